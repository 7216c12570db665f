"""`guardcheck equiv`: differential fuzzing of two implementations, across git revisions.

Imports nothing from the mutation-testing packages (`lab/`, `child/`, `edit/`,
`catalogue/`): it shares only errors and exit codes with them. The entry point is
`guardcheck.equiv.check.check`; this package file imports nothing, so that
`guardcheck.api` can name `EquivRequest` without loading Hypothesis for every command.
"""
