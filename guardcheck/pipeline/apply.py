"""`guardcheck apply` / `--revert`: one mutant written into the working tree, and undone."""

from __future__ import annotations

from pathlib import Path

from guardcheck.applyfile import applied_ids, apply_mutant, refuse_if_applied
from guardcheck.applyfile import revert as revert_mutant
from guardcheck.model import Mutant
from guardcheck.options import RunOptions
from guardcheck.pipeline.catalogue import assess, build


def applied(options: RunOptions) -> list[str]:
    """Ids of mutants `guardcheck apply` wrote into the working tree and not yet reverted."""
    return applied_ids(options)


def apply(options: RunOptions, mutant_id: str) -> tuple[Mutant, Path]:
    """Write one mutant into the working tree; returns it and the saved-state file."""
    # Before building: an applied mutant no longer matches its own `find`.
    refuse_if_applied(options, mutant_id)
    (mutant,) = build(assess(options, only={mutant_id}), [mutant_id])
    return mutant, apply_mutant(options, mutant)


def revert(options: RunOptions, mutant_id: str) -> list[str]:
    """Restore the files `apply` changed, exactly; returns their paths."""
    return revert_mutant(options, mutant_id)
