"""What a run is given besides the catalogue: mutants made by its caller, or by a sweep.

A sweep's counts (what mutmut made, what the filters skipped) are stored in the cache
beside its mutants, so a sweep replayed unbuilt reports the same numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from guardcheck.model import Mutant


@dataclass(frozen=True)
class SweepCounts:
    """A sweep's numbers beside its mutants, as its report shows them."""

    generated: int  # mutants mutmut's operators made, before guardcheck's filters
    skipped: Mapping[str, int] = field(default_factory=dict)  # filter name -> mutants skipped
    files: int = 0
    warnings: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        return {
            "generated": self.generated,
            "skipped": dict(self.skipped),
            "files": self.files,
            "warnings": list(self.warnings),
        }

    @classmethod
    def from_json(cls, data: object) -> SweepCounts | None:
        """The counts stored by `to_json`, or None for anything else (an older cache's)."""
        if not isinstance(data, dict):
            return None
        try:
            skipped = {str(k): int(v) for k, v in data["skipped"].items()}
            warnings = tuple(str(w) for w in data["warnings"])
            return cls(int(data["generated"]), skipped, int(data["files"]), warnings)
        except (KeyError, TypeError, ValueError, AttributeError):
            return None


@dataclass(frozen=True)
class Given:
    """Mutants the caller made (a review, a refactor, a sweep); run as given, unvalidated.

    With a `scope` (what made them: a sweep's parameters) the cache remembers them and
    their `counts`, so an unchanged project's next sweep replays them unbuilt.
    """

    mutants: tuple[Mutant, ...]
    counts: SweepCounts | None = None
    scope: tuple[str, ...] = ()


@dataclass(frozen=True)
class Generator:
    """A sweep whose mutants `make` returns once pytest has started: making them overlaps
    pytest's start-up and the baseline. Needs `options.source` (what the lab measures).
    Never a catalogue: its entries must be validated before any test runs."""

    make: Callable[[], tuple[Sequence[Mutant], SweepCounts]]
    scope: tuple[str, ...]
