"""Plain values that flow between guardcheck's phases.

The parser (libcst) is used only by the engine; everything downstream of it
(planning, running, reporting) works on these frozen values.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property

from guardcheck import __version__
from guardcheck.splices import (
    LineIndex,
    Location,
    Splice,
    changed_lines,
    location,
    unified_diff,
    whole_text_splice,
)

_NOWHERE = Location((1, 1), (1, 1), "")
EXPECT_SURVIVES = "survives"  # the only value of a catalogue entry's `expect`


@dataclass(frozen=True)
class Where:
    """A place in a file: the catalogue line an entry starts on, or a target span."""

    path: str  # as the user should read it: relative to the project root when inside it
    line: int
    column: int = 1  # 1-based
    end_line: int | None = None
    end_column: int | None = None

    def __str__(self) -> str:
        return f"{self.path}:{self.line}"


@dataclass(frozen=True)
class Edit:
    """One find/replace step of a catalogue entry."""

    file: str  # posix path relative to the project root
    find: str = ""
    replace: str = ""
    scope: str | None = None  # qualified name: "Class.method", "outer.inner"
    occurrence: int | None = None  # 1-based; required when `find` matches several places
    transform: str | None = None  # "module.path:ClassName" escape hatch instead of find/replace
    where: Where | None = None  # the catalogue line this edit was declared on


@dataclass(frozen=True)
class Entry:
    """One `[[mutation]]` table of a catalogue file, as declared."""

    id: str
    summary: str
    edits: tuple[Edit, ...]
    where: Where  # catalogue file and line of the `[[mutation]]` header
    killed_by: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    killed_by_any: tuple[str, ...] = ()  # "any one of these" killers
    expect: str | None = None  # "survives": a known gap, see Mutant.expect
    reason: str = ""  # why the gap is accepted; required with `expect`


@dataclass(frozen=True)
class FileChange:
    """One file a mutant touches: its original text and the splices the engine made.

    `mutated` is the original with the splices applied. The diff, the changed
    lines and the report location all come from the splices, never from
    diffing the two texts. Built without splices (tests, old records), one
    splice between the texts' common prefix and suffix stands in.
    """

    path: str  # posix path relative to the project root
    original: str
    mutated: str
    span: Where  # the first matched region, in the original file's coordinates
    splices: tuple[Splice, ...] = ()

    def __post_init__(self) -> None:
        if not self.splices and self.original != self.mutated:
            object.__setattr__(self, "splices", (whole_text_splice(self.original, self.mutated),))

    @cached_property
    def lines(self) -> LineIndex:
        return LineIndex(self.original)

    def diff(self) -> str:
        return unified_diff(self.path, self.original, self.splices)

    def location(self) -> Location:
        """The first splice's place and replacement text (what Stryker's schema asks for)."""
        return location(self.lines, self.splices[0]) if self.splices else _NOWHERE

    def changed_lines(self) -> frozenset[int]:
        """Lines of the original file that the mutation removes or rewrites.

        A pure insertion changes no line of its own: both lines around it count.
        """
        return changed_lines(self.lines, self.splices)


def is_named_by(named: str, nodeid: str) -> bool:
    """Does the `killed_by` id `named` stand for the collected test `nodeid`?

    A test class (`file.py::TestX`) stands for its tests, and a parametrized
    test named without its `[...]` for every parametrization.
    """
    return nodeid == named or nodeid.startswith((f"{named}::", f"{named}["))


def function_id(nodeid: str) -> str:
    """A test's id without its parametrization: `path::Class::test`."""
    return nodeid.split("[", 1)[0]


@dataclass(frozen=True)
class Mutant:
    """A concrete, validated mutation: what the runner activates and reports on."""

    id: str  # catalogue id, or a stable sweep name like "run.py:42:7: replace < with <="
    summary: str
    changes: tuple[FileChange, ...]
    mutator: str = "catalogue"  # Stryker's mutatorName; operator name for sweeps
    killed_by: tuple[str, ...] = ()  # expected killers, pytest node ids: every one must fail
    tags: tuple[str, ...] = ()
    declared_at: Where | None = None  # catalogue entry location, when it came from one
    killed_by_any: tuple[str, ...] = ()  # expected killers of which one failing is enough
    # "survives": a known gap, accepted while it survives (`expect_reason` says why)
    expect: str | None = None
    expect_reason: str = ""

    @property
    def named_killers(self) -> tuple[str, ...]:
        """Every id of `killed_by` and `killed_by_any`, declared order, no repeats."""
        return tuple(dict.fromkeys((*self.killed_by, *self.killed_by_any)))

    @property
    def expects_survival(self) -> bool:
        return self.expect == EXPECT_SURVIVES

    def diff(self) -> str:
        return "".join(change.diff() for change in self.changes)

    def names_killer(self, nodeid: str) -> bool:
        """Is `nodeid` one of the tests `killed_by` names?

        See `is_named_by` for what one `killed_by` id stands for.
        """
        return any(is_named_by(named, nodeid) for named in self.named_killers)

    @property
    def span(self) -> Where:
        return self.changes[0].span


class ExecutionPath(StrEnum):
    """How a mutant was made active: the values are what reports print."""

    FORK = "fork"  # code swapped in a forked child of the long-lived pytest host
    FRESH = "subprocess"  # a fresh interpreter serving the mutated module from memory


class Status(StrEnum):
    """Per-mutant verdicts. Only CAUGHT, TIMEOUT and KNOWN_GAP pass the gate."""

    CAUGHT = "caught"
    TIMEOUT = "timeout"  # counted as caught, listed separately
    SURVIVED = "survived"
    NO_COVERAGE = "no-coverage"
    CAUGHT_ELSEWHERE = "caught-elsewhere"  # caught, but not by any named killer
    WEAKENED = "weakened"  # caught, but a test named in killed_by passed against it
    KNOWN_GAP = "known-gap"  # survived, as its entry's `expect = "survives"` says
    GAP_CLOSED = "gap-closed"  # caught although its entry expects it to survive
    ERROR = "error"  # guardcheck could not establish a verdict (e.g. mutant not provably active)

    @property
    def passes_gate(self) -> bool:
        return self in (Status.CAUGHT, Status.TIMEOUT, Status.KNOWN_GAP)


class TestOutcome(StrEnum):
    __test__ = False  # not a pytest test class

    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"  # setup/teardown error
    SKIPPED = "skipped"
    XFAILED = "xfailed"  # an expected failure that failed: neither a pass nor a kill


@dataclass(frozen=True)
class TestResult:
    __test__ = False

    nodeid: str
    outcome: TestOutcome
    duration: float  # seconds, all phases
    message: str = ""  # one line: why it failed


@dataclass(frozen=True)
class Selection:
    """Why a test was, or was not, run against a mutant (Stryker's statusReason, per test)."""

    nodeid: str
    selected: bool
    reason: str  # "named in killed_by", "executes run.py:42", "does not execute the mutated lines"


_READ_PREFIX = "read "
_READ_SUFFIX = " from disk in the baseline"


def read_reason(path: str) -> str:
    """The selection reason of a test that read `path`'s text (child/sourcereads.py)."""
    return f"{_READ_PREFIX}{path}{_READ_SUFFIX}"


def read_by(selection: Selection) -> str | None:
    """The file a selected test was chosen for reading, if that is why (else None)."""
    reason = selection.reason
    if selection.selected and reason.startswith(_READ_PREFIX) and reason.endswith(_READ_SUFFIX):
        return reason[len(_READ_PREFIX) : -len(_READ_SUFFIX)]
    return None


class SharedSelection(tuple[Selection, ...]):
    """A mutant's selection rows that also carry their compact form (guardcheck/cache/).

    A plan selects over every baseline test, so 1,000 restored mutants x 5,000 tests are
    5 million rows; the cache restores them as the shared test-id list, the most common
    (selected, reason) pair and the rows that differ, and the reports write that form
    back without scanning every row. It is a tuple of rows like any selection (equal to
    one with the same rows).
    """

    nodeids: tuple[str, ...]  # the shared test-id list, one object for many mutants
    default: tuple[bool, str]  # (selected, reason) of every row not in `exceptions`
    exceptions: tuple[tuple[int, bool, str], ...]  # (position, selected, reason)

    def __new__(
        cls,
        rows: tuple[Selection, ...],
        nodeids: tuple[str, ...],
        default: tuple[bool, str],
        exceptions: tuple[tuple[int, bool, str], ...],
    ) -> SharedSelection:
        made = super().__new__(cls, rows)
        made.nodeids, made.default, made.exceptions = nodeids, default, exceptions
        return made


@dataclass(frozen=True)
class ChildOutcome:
    """What a child (forked or fresh interpreter) reported, or what the lab saw of it.

    The raw facts a verdict is judged from; every result keeps them, so a
    result can be judged again later (a cache, a merge of shard reports).
    """

    tests: tuple[TestResult, ...] = ()
    evidence: bool = False  # positive proof the mutated code ran in that child
    timed_out: float | None = None  # the timeout (seconds) that expired, if it did
    crash: str | None = None  # "SIGSEGV", "exit code 3", "collection aborted: ..."
    current: str | None = None  # the test running when the child timed out or crashed
    error: str | None = None  # guardcheck could not activate or run the mutant
    # A statement marker fired: a changed statement itself ran, not only its function.
    reached: bool = False
    # When `error`'s only doubt is the disk: the tests that read a mutated file (or ran it
    # as a script) where the original was ("" outside a test). Run again with the mutant
    # written there, they settle it.
    from_disk: tuple[str, ...] = ()


@dataclass(frozen=True)
class MutantResult:
    mutant: Mutant
    status: Status
    reason: str  # human one-liner: the killing test, "crash: SIGSEGV", "no test executes run.py:42"
    tests: tuple[TestResult, ...] = ()  # what actually ran, in order
    selection: tuple[Selection, ...] = ()
    path: ExecutionPath = ExecutionPath.FORK
    duration: float = 0.0  # wall seconds for this mutant
    outcome: ChildOutcome | None = None  # what the child reported; None when nothing ran
    path_reason: str = ""  # for FRESH: why a code swap could not run this mutant

    @property
    def killers(self) -> tuple[str, ...]:
        return tuple(
            t.nodeid for t in self.tests if t.outcome in (TestOutcome.FAILED, TestOutcome.ERROR)
        )

    @property
    def covered_by(self) -> tuple[str, ...]:
        return tuple(s.nodeid for s in self.selection if s.selected)


@dataclass(frozen=True)
class BaselineTest:
    nodeid: str
    duration: float
    path: str  # test file, posix relative to root
    outcome: TestOutcome = TestOutcome.PASSED  # passed, skipped or xfailed (a red one stops)


@dataclass(frozen=True)
class Revision:
    """The git state a run saw: HEAD, and whether tracked files differed from it."""

    sha: str
    dirty: bool


@dataclass(frozen=True)
class Provenance:
    """What a run was run against, recorded in its JSON so `guardcheck merge` can refuse
    to combine shard reports of different code or configuration (see guardcheck/merge/).
    """

    version: str  # guardcheck's
    revision: Revision | None  # None outside a git checkout
    config: dict[str, object] = field(hash=False)  # the verdict-affecting settings
    config_hash: str = ""  # sha256 of `config`
    gate: Gate = field(default_factory=lambda: Gate())
    shard: tuple[int, int] | None = None  # (K, N) of a sharded run
    selected: tuple[str, ...] = ()  # every mutant id of the unsharded selection, in order
    merged_from: int = 0  # how many shard reports a merged report combines


@dataclass
class RunReport:
    """Everything a reporter needs; reporters never re-run anything."""

    root: str
    results: list[MutantResult] = field(default_factory=list)
    baseline: list[BaselineTest] = field(default_factory=list)
    baseline_seconds: float = 0.0
    wall_seconds: float = 0.0
    matrix: bool = False
    interrupted: bool = False
    incomplete: str | None = None  # why the run stopped early (the host died, an internal error)
    tool_version: str = __version__  # the guardcheck that made it
    provenance: Provenance | None = None  # what was run against; None for hand-built reports
    cached: int = 0  # results restored from guardcheck/cache/ instead of run
    hash_seed: str = ""  # the PYTHONHASHSEED every test process ran under ("" if unknown)
    randomly_seed: str = ""  # pytest-randomly's --randomly-seed in every run ("" if none)

    @property
    def score(self) -> float:
        """The mutation score: detected over detected + missed, in percent.

        Detected: caught, timed out, or a closed gap. Missed: survived, no
        coverage, a known gap, caught only by a test other than the named
        killers, or with a named killer passing (weakened). Errors are neither (no
        verdict was reached); a gate on the score still fails on any of them.
        """
        counts = self.counts()
        detected = counts[Status.CAUGHT] + counts[Status.TIMEOUT] + counts[Status.GAP_CLOSED]
        missed = counts[Status.SURVIVED] + counts[Status.NO_COVERAGE]
        missed += counts[Status.CAUGHT_ELSEWHERE] + counts[Status.WEAKENED]
        missed += counts[Status.KNOWN_GAP]  # accepted by the gate, but still not detected
        return 100.0 if detected + missed == 0 else 100.0 * detected / (detected + missed)

    def counts(self) -> dict[Status, int]:
        counts = dict.fromkeys(Status, 0)
        for result in self.results:
            counts[result.status] += 1
        return counts


@dataclass(frozen=True)
class Gate:
    """The pass/fail rule of a run, as the CLI flags set it.

    By default every mutant must be caught (or time out). `allow_caught_elsewhere` also
    accepts mutants caught by a test other than their named killers; `fail_under` replaces
    the per-mutant rule with a minimum mutation score (for broad sweeps).
    """

    allow_caught_elsewhere: bool = False
    fail_under: float | None = None

    def passes(self, result: MutantResult) -> bool:
        if result.status is Status.CAUGHT_ELSEWHERE:
            return self.allow_caught_elsewhere
        return result.status.passes_gate

    def failures(self, report: RunReport) -> list[MutantResult]:
        return [r for r in report.results if not self.passes(r)]

    def passed(self, report: RunReport) -> bool:
        # An interrupted run proved nothing about the mutants it never reached.
        if report.interrupted:
            return False
        if self.fail_under is not None:
            # An error is a mutant nobody can vouch for: no score makes up for it.
            unjudged = any(r.status is Status.ERROR for r in report.results)
            # A closed gap is a catalogue claim gone stale: fix the entry, whatever the score.
            stale = any(r.status is Status.GAP_CLOSED for r in report.results)
            return report.score >= self.fail_under and not unjudged and not stale
        return not self.failures(report)
