"""Helpers for the lab tests on the `calc` fixture project (tests/fixtures/projects/calc).

Each test copies it into tmp_path as a git repository (`project("calc", git=True)`),
so `git status` can prove the working tree is untouched; mutants are built here.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from guardcheck import api
from guardcheck.model import BaselineTest, FileChange, Mutant, MutantResult, RunReport, Where
from guardcheck.options import RunOptions

OPS = "calc/ops.py"

T = "tests/test_ops.py::"


def mutant(
    root: Path,
    ident: str,
    find: str,
    replace: str,
    *,
    killed_by: tuple[str, ...] = (),
    path: str = OPS,
) -> Mutant:
    original = (root / path).read_text(encoding="utf-8")
    assert original.count(find) == 1, f"{find!r} must occur exactly once in {path}"
    mutated = original.replace(find, replace)
    line = original[: original.index(find)].count("\n") + 1
    change = FileChange(path, original, mutated, Where(path, line))
    return Mutant(ident, ident, (change,), killed_by=killed_by)


class Events:
    """Records the lab's callbacks."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.baseline: list[BaselineTest] = []
        self.logs: dict[str, str] = {}

    def run_started(self, mutants: Sequence[Mutant]) -> None:
        self.calls.append(f"run_started {len(mutants)}")

    def baseline_started(self) -> None:
        self.calls.append("baseline_started")

    def baseline_finished(self, tests: list[BaselineTest], seconds: float) -> None:
        self.calls.append("baseline_finished")
        self.baseline = tests

    def mutant_started(self, mutant: Mutant) -> None:
        self.calls.append(f"started {mutant.id}")

    def mutant_finished(self, result: MutantResult, log: str) -> None:
        self.calls.append(f"finished {result.mutant.id}")
        self.logs[result.mutant.id] = log


def run(
    root: Path, mutants: list[Mutant], events: Events | None = None, **options: object
) -> RunReport:
    """The library API's run over `mutants`, in process, with `options` over the defaults."""
    return api.run(RunOptions(root=root).with_overrides(**options), events, mutants=mutants)


def by_id(report: RunReport) -> dict[str, MutantResult]:
    return {r.mutant.id: r for r in report.results}
