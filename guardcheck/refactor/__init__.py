"""`guardcheck refactor`: does a refactor keep the promises the base revision's tests made?

Five checks, each reported on its own (see docs/refactoring.md): the base
revision's tests against today's source, removed or changed names still in
use, lost assertions, named mutations across the change, and the migration
table of moved names. `verify.verify` runs them; `report` renders the result.
Lab, catalogue and equiv work goes through `guardcheck.api` only; the API
imports `verify` when a refactor runs, so importing either never cycles.
"""
