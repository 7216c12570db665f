"""`guardcheck refactor`: does a refactor keep the promises the base revision's tests made?

Five checks, each reported on its own (see docs/refactoring.md): the base
revision's tests against today's source, removed or changed names still in
use, lost assertions, named mutations across the change, and the migration
table of moved names. `verify.verify` runs them; `report` renders the result.
Lab and catalogue work goes through `guardcheck.pipeline`, never the API; the API
imports `verify` when a refactor runs (it loads libcst and griffe).
"""
