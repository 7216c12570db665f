"""The orchestration of guardcheck's commands, one module per step.

`guardcheck.api` is the public face and re-exports these; `review/` and `refactor/`
build on them directly. Nothing here imports `api`, `commands/`, `review/` or
`refactor/`, so the import graph has no cycle.

- `catalogue`: entries built and vetted (`check`), listed, shown by id
- `apply`: one mutant written into the working tree, and reverted
- `inputs`: what a run is given besides the catalogue (a sweep's mutants, typed)
- `select`: `--only`, `--shard` and the provenance of the selection
- `run`: the lab around the cache, the output folder, the exit code
- `sweep`: mutmut's operator mutants through the same run
- `merge`: shard reports read back and combined
- `project`: a project file's text and the import roots, as the steps read them
"""
