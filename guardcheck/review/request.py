"""What `guardcheck review` was asked to do."""

from __future__ import annotations

from dataclasses import dataclass

from guardcheck.options import RunOptions
from guardcheck.review.findings import CATEGORIES, DEFAULT_FAIL_ON


@dataclass(frozen=True)
class ReviewRequest:
    options: RunOptions
    base: str | None = None  # None: the merge base with the default branch
    max_mutants: int | None = None  # cap on operator mutants: a seeded sample beyond it
    sample_seed: int = 0
    fail_on: frozenset[str] = DEFAULT_FAIL_ON
    timeout: float = 600.0  # seconds for each plain pytest run (pinning, audit)


__all__ = ["CATEGORIES", "DEFAULT_FAIL_ON", "ReviewRequest"]
