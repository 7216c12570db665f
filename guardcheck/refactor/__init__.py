"""`guardcheck refactor`: does a refactor keep the promises the base revision's tests made?

Five checks, each reported on its own (see docs/refactoring.md): the base
revision's tests against today's source, removed or changed names still in
use, lost assertions, named mutations across the change, and the migration
table of moved names. `verify.verify` runs them; `report` renders the result.
Lab, catalogue and equiv work goes through `guardcheck.api` only.
"""

# guardcheck.api imports this package's entry point and this package calls the api:
# importing the api first, whichever module is imported first, keeps that cycle sound.
import guardcheck.api  # noqa: F401
