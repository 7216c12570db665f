"""Dependency keys: a verdict keyed by what its mutant's selected tests ran, not the whole project.

Used once the baseline has run (so the project changed since the last run): each
planned mutant's verdict is restored when this key matches one stored, and run
otherwise.

    dependency key = H(environment,
                       the shared part: every config/data/helper file by content, and
                           the skeleton (import-time text) of every measured source file,
                       the mutant: its killed_by/expect/tags/mutator, and per changed
                           file its path, mutated skeleton and changed function bodies,
                       per selected test (baseline order): its id, its own function's
                           body, its test file without the other tests' bodies, and the
                           digest of every function body it executed in the baseline
                           just run,
                       per file a selected test was chosen for reading (its text, in
                           the baseline): the whole file's digest)

So editing the body of `f` re-runs the mutants of `f` (their mutated body changed)
and the mutants whose selected tests execute `f` (their tests' digests changed),
and restores the rest; editing one test re-runs the mutants it is selected for
(editing a helper or fixture in a test file re-runs those of every test in that
file), and the new selection (a test that now executes a mutant) is part of the key.
Editing anything run at import (a constant, an import, a signature), a conftest, a
helper module outside the measured source, the configuration or the dependencies
re-runs everything.

What the key cannot see: a mutant that makes its tests call a function the baseline
never saw them call (the mutated branch calls `g`); editing `g` then restores that
mutant's old verdict. docs/cache.md lists it under the limits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from guardcheck.cache.keys import Inputs, hash_parts, key_of
from guardcheck.cache.units import Units, changed_units, units_of
from guardcheck.model import BaselineTest, Mutant, Selection, read_by

# root-relative path -> line -> node ids that executed it (lab/plan.py's CoverageMap)
Coverage = Mapping[str, Mapping[int, frozenset[str]]]


class DependencyKeys:
    """The keys of one baseline: computed per test once, then per mutant from its tests."""

    def __init__(
        self,
        environment: str,
        root: Path,
        digests: Mapping[str, str],
        baseline: Sequence[BaselineTest],
        coverage: Coverage,
    ) -> None:
        self.environment = environment
        self.digests = digests
        test_files = {t.path for t in baseline}
        self._units: dict[str, Units | None] = {
            path: _read_units(root / path) for path in coverage if path in digests
        }
        shared = []
        for path in sorted(digests):
            if path in test_files:
                continue  # keyed per test, with the tests that live in it
            units = self._units.get(path)
            shared.append(f"{path} {units.skeleton if units else digests[path]}")
        self.shared = hash_parts(shared)
        self._paths = {t.nodeid: t.path for t in baseline}
        self._executed = _executed_bodies(coverage, self._units)
        self._files = {path: _TestFile(root / path, digests.get(path)) for path in test_files}
        for nodeid, path in self._paths.items():
            self._files[path].owners.add(test_qualname(nodeid))
        self._tests: dict[str, str] = {}
        self._originals: dict[str, Units | None] = {}

    def test_key(self, nodeid: str) -> str:
        key = self._tests.get(nodeid)
        if key is None:
            path = self._paths.get(nodeid, "")
            found = self._files.get(path)
            parts = [nodeid, path, *(found.parts(nodeid) if found else ["absent"])]
            parts += sorted(self._executed.get(nodeid, ()))
            key = self._tests[nodeid] = hash_parts(parts)
        return key

    def mutant_inputs(self, mutant: Mutant, selection: Sequence[Selection]) -> Inputs:
        tests = [self.test_key(s.nodeid) for s in selection if s.selected]
        # A test selected for reading a file's text depends on all of it, not on its units.
        tests += sorted(
            f"reads {path} {self.digests.get(path, 'absent')}"
            for path in {read_by(s) for s in selection} - {None}
        )
        return {
            "environment": self.environment,
            "shared": self.shared,
            "mutant": hash_parts(mutant_parts(mutant, self._originals)),
            "tests": hash_parts(tests),
        }

    def mutant_key(self, mutant: Mutant, selection: Sequence[Selection]) -> str:
        return key_of("dependencies", self.mutant_inputs(mutant, selection))


def test_qualname(nodeid: str) -> str:
    """`tests/t.py::TestA::test_b[1]` -> `TestA.test_b`: the function a test runs."""
    names = nodeid.split("::")[1:]
    return ".".join(names).split("[", 1)[0]


class _TestFile:
    """A test module keyed per test: each test's own body apart, the rest shared."""

    def __init__(self, path: Path, digest: str | None) -> None:
        self.units = _read_units(path)
        self.digest = digest or "absent"
        self.owners: set[str] = set()  # qualnames of the collected tests it holds
        self._common: str | None = None

    def parts(self, nodeid: str) -> list[str]:
        if self.units is None:  # does not parse: the whole file for every test
            return [f"file {self.digest}"]
        own = test_qualname(nodeid)
        bodies = self.units.bodies
        return [f"module {self.common()}"] + [
            f"own {digest}" for name, digest in bodies.items() if name.rsplit("#", 1)[0] == own
        ]

    def common(self) -> str:
        """The skeleton and every body no collected test owns (helpers, fixtures)."""
        if self._common is None:
            assert self.units is not None
            shared = [
                f"{name} {digest}"
                for name, digest in self.units.bodies.items()
                if name.rsplit("#", 1)[0] not in self.owners
            ]
            self._common = hash_parts([self.units.skeleton, *shared])
        return self._common


def mutant_parts(mutant: Mutant, originals: dict[str, Units | None] | None = None) -> list[str]:
    """What the mutant is, without its id or positions (editing `f` shifts `g`'s lines).

    `originals`: the units of each original text already split (keyed by the text), reused.
    """
    originals = {} if originals is None else originals
    parts = [f"mutator {mutant.mutator}", f"expect {mutant.expect}"]
    parts += [f"killed_by {k}" for k in mutant.killed_by]
    parts += [f"killed_by_any {k}" for k in mutant.killed_by_any]
    parts += [f"tag {t}" for t in mutant.tags]
    for change in mutant.changes:
        parts.append(f"file {change.path}")
        if change.original not in originals:  # keyed by the text itself: shared, not copied
            originals[change.original] = units_of(change.original)
        units = originals[change.original]
        changed = changed_units(units, change.splices, change.original, change.mutated)
        # Not comparable (a def added or removed, unparsable text): the whole text.
        parts += changed if changed is not None else [f"text {change.mutated}"]
    return parts


def _read_units(path: Path) -> Units | None:
    if path.suffix not in (".py", ".pyi"):
        return None
    try:
        return units_of(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        return None


def _executed_bodies(coverage: Coverage, units: Mapping[str, Units | None]) -> dict[str, set[str]]:
    """node id -> `path unit digest` of every function body it executed."""
    executed: dict[str, set[str]] = {}
    for path, by_line in coverage.items():
        found = units.get(path)
        for line, nodeids in by_line.items():
            name = found.lines.get(line) if found else None
            if found is None or name is None:
                continue  # import-time lines: the shared skeleton stands for them
            part = f"{path} {name} {found.bodies[name]}"
            for nodeid in nodeids:
                executed.setdefault(nodeid, set()).add(part)
    return executed
