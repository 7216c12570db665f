"""Choosing which mutants a run takes: `--only` globs over ids and tags (pure)."""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence

from guardcheck.errors import GuardcheckError
from guardcheck.model import Mutant


def select_mutants(mutants: Sequence[Mutant], patterns: Sequence[str]) -> list[Mutant]:
    """Keep mutants whose id or tag matches any glob in `patterns` (all when none given)."""
    if not patterns:
        return list(mutants)
    chosen = [
        m
        for m in mutants
        if any(
            fnmatch.fnmatchcase(m.id, p) or any(fnmatch.fnmatchcase(t, p) for t in m.tags)
            for p in patterns
        )
    ]
    if not chosen:
        known = ", ".join(m.id for m in mutants)
        raise GuardcheckError(
            f"--only {' '.join(patterns)} matches no mutation id or tag; known: {known}"
        )
    return chosen
