"""What a review found: plain values, and the gate over them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

SURVIVED = "survived"
VACUOUS = "vacuous"
SOURCE_READING = "source-reading"
UNPINNED = "unpinned"
STALE = "stale"

# Category -> what it means; the order is the report's order.
CATEGORIES: dict[str, str] = {
    SURVIVED: "a mutant on a changed line that no (behavioural) test catches",
    VACUOUS: "an added or changed test that runs the changed code but catches no mutant of it",
    SOURCE_READING: "a test that reads source files instead of running the code",
    UNPINNED: "an added or changed test that also passes on the base revision",
    STALE: "a named mutation whose target the change touched that no longer builds",
}
DEFAULT_FAIL_ON = frozenset({SURVIVED, VACUOUS, SOURCE_READING, STALE})


@dataclass(frozen=True)
class MatrixRow:
    """One mutant in scope: the lab's verdict as-is, and who killed it or let it pass."""

    mutant_id: str
    path: str
    line: int
    mutation: str  # what the mutant does: "replace `>` with `>=`"
    code: str  # the line as it is today, stripped
    mutated: str  # the same line with the mutant, stripped
    status: str  # the lab's verdict (`guardcheck run` judges the same mutant the same)
    reason: str
    caught: bool  # by a behavioural test: a kill by source-reading tests only does not count
    killed_by: tuple[str, ...]  # every test that killed it (the crashed or hung one too)
    ran_by: tuple[str, ...]  # the tests selected for it: they execute its line
    changed_tests_not_killing: tuple[str, ...]  # added or changed tests that ran it and passed
    function: str | None  # qualified name of the changed function, if inside one


@dataclass(frozen=True)
class Survivor:
    mutant_id: str
    path: str
    line: int
    mutated: str  # the mutated code, one line
    reason: str
    function: str | None  # qualified name of the changed function, if inside one
    status: str = "survived"  # the lab's verdict: survived, no-coverage, error or known-gap
    mutation: str = ""


@dataclass(frozen=True)
class ChangedLine:
    """A changed source line with mutants: its code, its survivors, the tests executing it."""

    path: str
    line: int
    code: str  # today's line, stripped
    mutants: int
    survivors: tuple[Survivor, ...]
    ran_by: tuple[str, ...]  # the union of the tests selected for its mutants


@dataclass(frozen=True)
class FlaggedTest:
    nodeid: str
    path: str
    line: int
    reason: str


@dataclass(frozen=True)
class StaleEntry:
    entry_id: str
    path: str  # the catalogue file
    line: int
    target: str  # the target file the change touched
    message: str  # the hard error, as `guardcheck check` prints it
    kind: str = "stale"  # the hard error's kind: "stale", "bug-back" (the bug is back), ...


@dataclass(frozen=True)
class FunctionRow:
    path: str
    qualname: str
    line: int
    mutants: int
    caught: int
    survivors: int
    killers: tuple[str, ...]


@dataclass(frozen=True)
class Sample:
    """`--max-mutants`: `kept` of `total` operator mutants, drawn with `seed`."""

    total: int
    kept: int
    seed: int

    def phrase(self) -> str:
        return (
            f"sampled {self.kept} of {self.total} operator mutants on changed lines "
            f"(--max-mutants {self.kept}, seed {self.seed}); catalogue entries all ran"
        )


@dataclass
class ReviewReport:
    base: str  # label, e.g. "HEAD~1" or "merge-base with main"
    base_sha: str
    fail_on: frozenset[str]
    changed_files: list[str] = field(default_factory=list)
    functions: list[FunctionRow] = field(default_factory=list)
    mutants: int = 0  # in scope and run
    in_scope: list[str] = field(default_factory=list)  # their ids, catalogue entries first
    caught: int = 0
    survivors: list[Survivor] = field(default_factory=list)
    vacuous: list[FlaggedTest] = field(default_factory=list)
    source_reading: list[FlaggedTest] = field(default_factory=list)
    unpinned: list[FlaggedTest] = field(default_factory=list)
    stale: list[StaleEntry] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what was not checked, and why
    matrix: list[MatrixRow] = field(default_factory=list)  # one row per mutant in scope
    lines: list[ChangedLine] = field(default_factory=list)  # changed lines with mutants
    sample: Sample | None = None  # how --max-mutants cut the operator mutants, if it did

    def found(self, category: str) -> int:
        return len(
            {
                SURVIVED: self.survivors,
                VACUOUS: self.vacuous,
                SOURCE_READING: self.source_reading,
                UNPINNED: self.unpinned,
                STALE: self.stale,
            }[category]
        )

    @property
    def failing(self) -> list[str]:
        """The enabled categories with at least one finding, in report order."""
        return [c for c in CATEGORIES if c in self.fail_on and self.found(c)]

    @property
    def failed(self) -> bool:
        return bool(self.failing)

    def as_json(self) -> dict[str, Any]:
        def rows(items: list[Any]) -> list[dict[str, Any]]:
            return [dict(vars(item)) for item in items]

        return {
            "version": 1,
            "base": self.base,
            "base_sha": self.base_sha,
            "verdict": "fail" if self.failed else "pass",
            "fail_on": sorted(self.fail_on),
            "failing": self.failing,
            "changed_files": self.changed_files,
            "mutants": self.mutants,
            "in_scope": self.in_scope,
            "caught": self.caught,
            "functions": [{**vars(f), "killers": list(f.killers)} for f in self.functions],
            "sample": dict(vars(self.sample)) if self.sample else None,
            "lines": [
                {**vars(g), "survivors": rows(list(g.survivors)), "ran_by": list(g.ran_by)}
                for g in self.lines
            ],
            "matrix": [_listed(vars(row)) for row in self.matrix],
            "survivors": rows(self.survivors),
            "vacuous": rows(self.vacuous),
            "source_reading": rows(self.source_reading),
            "unpinned": rows(self.unpinned),
            "stale": rows(self.stale),
            "notes": self.notes,
        }


def _listed(values: dict[str, Any]) -> dict[str, Any]:
    """Tuples as JSON lists."""
    return {k: list(v) if isinstance(v, tuple) else v for k, v in values.items()}
