"""Which mutants a run runs: `--only`, then `--shard`, and the provenance of the selection."""

from __future__ import annotations

from guardcheck.catalogue.select import select_mutants
from guardcheck.errors import GuardcheckError
from guardcheck.merge import read_report
from guardcheck.model import Mutant, Provenance
from guardcheck.options import RunOptions
from guardcheck.provenance import run_provenance
from guardcheck.shard import costs_from, take_shard


def choose(options: RunOptions, catalogue: list[Mutant]) -> tuple[list[Mutant], Provenance]:
    """`--only` and `--shard` applied; the provenance names the selection before the split."""
    chosen = select_mutants(catalogue, options.only)
    costs = _shard_costs(options)  # before the provenance, which hashes the same file
    # Recorded before the split: every shard names the same full selection.
    provenance = run_provenance(options, chosen)
    return take_shard(chosen, options.shard, costs), provenance


def _shard_costs(options: RunOptions) -> dict[str, float] | None:
    """The mutants' estimated seconds from `--shard-times REPORT.json`, for a sharded run."""
    if options.shard is None or options.shard_times is None:
        return None
    path = options.resolve(options.shard_times)
    try:
        return costs_from(read_report(path))
    except GuardcheckError as exc:
        raise GuardcheckError(
            f"--shard-times: {exc}\n  fix: give every shard the same earlier "
            "`guardcheck run --json` (or merged) report, or drop --shard-times"
        ) from None
