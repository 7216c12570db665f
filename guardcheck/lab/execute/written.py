"""The files of the private copy that the baseline's tests wrote, and which runs may overlap.

Every run shares the copy (lab/sandbox/projectcopy.py). A run of a test that writes a
file of it (child/copywrites.py) must not overlap a run of any test that opens that
file, or one would see the other's half-written file; runs that touch none of the
same files may overlap as before. After a writer's run its files are put back.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

NOTHING: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Footprint:
    """What one run's tests do to the copy's written files."""

    writes: frozenset[str] = NOTHING  # paths its tests wrote, created or removed
    touches: frozenset[str] = NOTHING  # those, and the paths its tests opened

    def clashes(self, other: Footprint) -> bool:
        return bool(self.writes & other.touches or other.writes & self.touches)


@dataclass(frozen=True)
class WrittenFiles:
    """Root-relative path -> the tests that wrote it (`writes`), and -> the tests that
    opened it at all (`opens`), for the paths some test wrote, from the baseline."""

    writes: Mapping[str, Sequence[str]] = field(default_factory=dict)
    opens: Mapping[str, Sequence[str]] = field(default_factory=dict)

    @cached_property
    def _written_by(self) -> dict[str, frozenset[str]]:
        return _by_test(self.writes)

    @cached_property
    def _touched_by(self) -> dict[str, frozenset[str]]:
        both: dict[str, list[str]] = {
            p: [*self.writes[p], *self.opens.get(p, ())] for p in self.writes
        }
        return _by_test(both)

    def footprint(self, tests: Iterable[str]) -> Footprint:
        if not self.writes:
            return Footprint()
        writes: set[str] = set()
        touches: set[str] = set()
        for test in tests:
            writes.update(self._written_by.get(test, NOTHING))
            touches.update(self._touched_by.get(test, NOTHING))
        return Footprint(frozenset(writes), frozenset(touches))


def _by_test(paths: Mapping[str, Sequence[str]]) -> dict[str, frozenset[str]]:
    found: dict[str, set[str]] = {}
    for path, tests in paths.items():
        for test in tests:
            found.setdefault(test, set()).add(path)
    return {test: frozenset(found[test]) for test in found}
