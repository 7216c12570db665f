"""Which tests to run against a mutant, and why (pure: no processes, no I/O).

Coverage records the line a statement starts executing on, and a line event
may fire on any line of a multi-line statement; so a changed line is widened to
the whole statement enclosing it before looking up which tests executed it.
A statement the compiler gives no instruction of its own (a string literal
standing alone, a constant-folded branch) never fires a line event: it falls
back to the enclosing function's body, and the reason says so. A statement with
instructions that the baseline never recorded did not run in the whole suite,
in its own order: no test executes it.

A test that ran a changed line selects, with it, every test that entered the
function around that line: what the line computed may be kept (a cache filled
on a miss) and read by later calls that never run the line again. Under a
memoizing decorator (`functools.lru_cache`) a call answered from the cache
enters nothing, so there every test is selected. A statement no test ran
selects nothing: in the suite's order it left nothing behind.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from guardcheck.edit import toplevel
from guardcheck.lab.prepare.statements import traced_lines
from guardcheck.model import BaselineTest, Mutant, Selection, Status, is_named_by
from guardcheck.options import RunOptions

# root-relative posix path -> line number -> node ids of the tests that executed it
CoverageMap = Mapping[str, Mapping[int, frozenset[str]]]

_COMPOUND = (
    ast.If,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.With,
    ast.AsyncWith,
    ast.Try,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Match,
    *((ast.TryStar,) if hasattr(ast, "TryStar") else ()),
)
_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class RunPlan:
    """Run these tests against the mutant, in this order, within this time."""

    mutant: Mutant
    tests: tuple[str, ...]
    selection: tuple[Selection, ...]  # one per baseline test, in collection order
    timeout: float  # seconds for the whole child
    # Tests that must all have run before the child stops at a failure: the `killed_by`
    # ones, since each of them must fail (a test passing gives `weakened`).
    must_run: tuple[str, ...] = ()
    fixed: int = 0  # leading tests whose place is kept: the named killers
    # Tests selected because they read a mutated file's text in the baseline. A pass of
    # theirs with the mutant only in memory proves nothing even when they opened no file:
    # a tool with a cache (mypy's checks a file's size and mtime) skips reading a file it
    # has seen. They run again with the mutant on disk (lab/execute/scheduler.py).
    readers: tuple[str, ...] = ()
    # Those that read it only through linecache, which a mutant's run fills with the
    # mutated text: their run in memory read the mutant, as by hand.
    linecache_readers: tuple[str, ...] = ()


@dataclass(frozen=True)
class EarlyResult:
    """A verdict reached without running anything (no test executes the mutation)."""

    mutant: Mutant
    status: Status
    reason: str
    selection: tuple[Selection, ...] = ()


MutantPlan = RunPlan | EarlyResult


@dataclass(frozen=True)
class _Span:
    lines: tuple[int, ...]
    label: str  # for reasons: "run.py:42" or "function run.py:cooldown"


@dataclass(frozen=True)
class _SourceMap:
    statement: Mapping[int, tuple[int, ...]]  # line -> all lines of its innermost statement
    function: Mapping[int, tuple[str, tuple[int, ...]]]  # line -> (name, body lines)
    header: Mapping[int, tuple[str, tuple[int, ...]]]  # a def's own line -> (name, body lines)
    # Lines with an instruction of their own in the compiled module (None: it did not
    # compile here), i.e. lines that fire a line event whenever they run.
    traced: frozenset[int] | None
    # Body lines of functions under a memoizing decorator (`functools.lru_cache`, ...):
    # a call answered from its cache runs no line of the function.
    memoized: frozenset[int] = frozenset()


def _header_end(node: ast.stmt) -> int:
    """Last line of a statement's own text: compound statements stop before their body."""
    end = node.end_lineno or node.lineno
    if isinstance(node, _COMPOUND):
        body = getattr(node, "body", None) or getattr(node, "cases", None)
        if body:
            end = min(end, getattr(body[0], "pattern", body[0]).lineno - 1)  # match_case
    return max(end, node.lineno)


@lru_cache(maxsize=64)
def _source_map(source: str) -> _SourceMap:
    # The tree edit/ parsed for vetting the same file: each original is parsed once a run.
    tree = toplevel.outline(source.removeprefix("\ufeff")).tree  # a BOM is kept, not parsed
    statement: dict[int, tuple[int, ...]] = {}
    function: dict[int, tuple[str, tuple[int, ...]]] = {}
    header: dict[int, tuple[str, tuple[int, ...]]] = {}
    memoized: set[int] = set()
    # ast.walk is breadth-first, so inner statements overwrite the outer ones.
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt):
            start = toplevel.first_line(node)
            lines = tuple(range(start, _header_end(node) + 1))
            for line in lines:
                statement[line] = lines
        if isinstance(node, _FUNCTIONS) and node.body:
            body = tuple(range(node.body[0].lineno, (node.end_lineno or node.lineno) + 1))
            for line in body:
                function[line] = (node.name, body)
            for line in range(node.lineno, body[0]):
                header[line] = (node.name, body)
            if any(_memoizing(d) for d in node.decorator_list):
                memoized.update(body)
    return _SourceMap(statement, function, header, traced_lines(tree), frozenset(memoized))


# Decorators that keep a function's results across calls, by their last name.
_MEMOIZERS = frozenset({"lru_cache", "cache", "cached", "memoize", "memoized"})


def _memoizing(decorator: ast.expr) -> bool:
    """`@lru_cache`, `@functools.lru_cache(maxsize=...)`, `@cachetools.cached(...)`."""
    if isinstance(decorator, ast.Call):
        decorator = decorator.func
    name = decorator.attr if isinstance(decorator, ast.Attribute) else getattr(decorator, "id", "")
    return name in _MEMOIZERS


def _testers(lines: Sequence[int], by_line: Mapping[int, frozenset[str]]) -> set[str]:
    found: set[str] = set()
    for line in lines:
        found |= by_line.get(line, frozenset())
    return found


def _covering_tests(
    mutant: Mutant, coverage: CoverageMap, whole_file: bool, baseline: Sequence[BaselineTest]
) -> tuple[dict[str, str], list[str], set[str]]:
    """Tests executing the mutation -> first reason; the changed lines no test executed;
    the tests selected only for entering a function around a changed line."""
    reasons: dict[str, str] = {}
    missing: list[str] = []
    later: set[str] = set()

    def select_later(nodeids: Iterable[str], why: str) -> None:
        """Select, after the changed lines' own tests, those not selected yet."""
        for nodeid in nodeids:
            if nodeid not in reasons:
                reasons[nodeid] = why
                later.add(nodeid)

    if whole_file:
        # Reading a module constant or class attribute executes no line of the module,
        # so coverage cannot tell who depends on an import-time value: every test may.
        paths = ", ".join(c.path for c in mutant.changes)
        reason = (
            f"module-level change in {paths}: import-time values are read without "
            "executing a line, so every test is selected"
        )
        return {t.nodeid: reason for t in baseline}, missing, later
    for change in mutant.changes:
        by_line = coverage.get(change.path, {})
        source = _source_map(change.original)
        for line in sorted(change.changed_lines()):
            span = source.statement.get(line, (line,))
            found = _testers(span, by_line)
            reason = f"executes {change.path}:{span[0]}"
            silent = source.traced is None or source.traced.isdisjoint(span)
            if not found and silent and line in source.function:
                name, body = source.function[line]
                found = _testers(body, by_line)
                reason = (
                    f"executes {change.path}:{name} (function-level fallback: "
                    f"line {line} records no line event)"
                )
            if line in source.header:
                # A forked mutant changing a def's own line changes its default values
                # (lab/prepare/default_values.py): what calls it runs its body. (The def
                # itself ran at import, perhaps inside the test that imported the module
                # first.)
                name, body = source.header[line]
                calls = _testers(body, by_line)
                why = f"executes {change.path}:{name} (its default values changed)"
                for nodeid in sorted(calls - found):
                    reasons.setdefault(nodeid, why)
                found |= calls
            if not found:
                missing.append(f"{change.path}:{line}")
            for nodeid in sorted(found):
                reasons.setdefault(nodeid, reason)
            if found and line in source.function:
                # What the mutated line computed may outlive the call (a cache the
                # function fills on a miss and reads on every later call): a later
                # test that only entered the function can be the one that notices.
                name, body = source.function[line]
                why = f"enters {change.path}:{name}, which may keep what line {line} computed"
                select_later(sorted(_testers(body, by_line)), why)
                if line in source.memoized:
                    # A call answered from the decorator's cache runs no line at all:
                    # any later test may be handed what the mutated line computed.
                    why = f"may call {change.path}:{name}, whose cache keeps what line {line}"
                    select_later((t.nodeid for t in baseline), f"{why} computed")
    return reasons, missing, later


def _import_time_rank(mutant: Mutant, coverage: CoverageMap) -> dict[str, int]:
    """For a module-level mutant, which of the tests (all selected) to run first.

    Every test runs unless one fails, so this changes the time to a kill, not
    the verdict. Tests that executed the mutated statement or the function
    around it (a closure that an import-time call built) come first (0), then
    tests that executed anything in the mutated files (1); the rest follow.
    """
    rank: dict[str, int] = {}
    for change in mutant.changes:
        by_line = coverage.get(change.path, {})
        for tests in by_line.values():
            for nodeid in tests:
                rank.setdefault(nodeid, 1)
        source = _source_map(change.original)
        for line in change.changed_lines():
            near = set(source.statement.get(line, (line,)))
            if line in source.function:
                near.update(source.function[line][1])
            for nodeid in _testers(sorted(near), by_line):
                rank[nodeid] = 0
    return rank


def plan_mutant(
    mutant: Mutant,
    baseline: Sequence[BaselineTest],
    coverage: CoverageMap,
    *,
    whole_file: bool = False,
    timeout_factor: float = RunOptions.timeout_factor,  # the defaults: options.py's
    timeout_constant: float = RunOptions.timeout_constant,
    unfollowed: Mapping[str, str] | None = None,
    readers: Mapping[str, Mapping[str, str]] | None = None,
    cached_readers: Mapping[str, Collection[str]] | None = None,
    collected_in: Collection[str] = (),
) -> MutantPlan:
    """Order: named killers first (declared order), then covering tests, fastest first
    (for a module-level change, the likeliest killers first: `_import_time_rank`).

    A kill is confirmed by a control run of the tests that ran, in the order
    they ran, without the mutant (scheduler.py); so this order need not be
    the baseline's: whatever order a kill was seen in, it is checked in.

    `whole_file` is for module-level or class-body changes (run in a fresh
    interpreter): such lines run at import, outside any test's context.
    `unfollowed` (node id -> reason) are tests whose processes coverage could
    not see into: they are selected whatever the coverage says; so are `readers`
    (root-relative file -> node id -> reason), tests that read a mutated file's
    text in the baseline; those of them in `cached_readers` (file -> node ids) read it
    only through linecache, so their run in memory already reads the mutant and they are
    not the plan's `readers` (which a pass sends to a run on disk). `collected_in`
    are test files whose collection alone ran the changed code (for a fresh
    interpreter): what it computed then is theirs, so their tests are selected.
    """
    order = {test.nodeid: index for index, test in enumerate(baseline)}
    duration = {test.nodeid: test.duration for test in baseline}
    covering, missing, later = _covering_tests(mutant, coverage, whole_file, baseline)
    for nodeid, reason in (unfollowed or {}).items():
        covering.setdefault(nodeid, reason)
    read: set[str] = set()
    through_linecache: set[str] = set()
    for change in mutant.changes if readers else ():
        cached = (cached_readers or {}).get(change.path, ())
        for nodeid, reason in readers.get(change.path, {}).items():
            # The read says more than a line run: the test depends on all of the text.
            covering[nodeid] = reason
            if nodeid in cached:
                through_linecache.add(nodeid)
            else:
                read.add(nodeid)
    for test in baseline if collected_in else ():
        file = test.nodeid.split("::")[0]
        if file in collected_in:
            covering.setdefault(test.nodeid, f"in {file}, whose collection ran the changed code")
    covering = {n: r for n, r in covering.items() if n in order}
    # Declared order first; a class or an unparametrized name expands to its collected ids.
    named = list(dict.fromkeys(_expand(mutant.named_killers, order)))
    must_run = tuple(dict.fromkeys(_expand(mutant.killed_by, order)))

    if not covering:
        where = ", ".join(missing) or "the mutated lines"
        reason = f"no test executes {where}"
        selection = tuple(
            Selection(
                t.nodeid,
                False,
                "named in killed_by, but no test executes the mutated lines"
                if t.nodeid in named
                else "does not execute the mutated lines",
            )
            for t in baseline
        )
        return EarlyResult(mutant, Status.NO_COVERAGE, reason, selection)

    # Tests that only entered a function around the change go last: a kill is likelier
    # from the tests that ran the changed line itself.
    rank = _import_time_rank(mutant, coverage) if whole_file else dict.fromkeys(later, 3)
    others = sorted(
        (n for n in covering if n not in named),
        key=lambda n: (rank.get(n, 2), duration[n], order[n]),
    )
    tests = (*named, *others)

    def why(nodeid: str) -> Selection:
        if nodeid in named:
            note = "" if nodeid in covering else " (does not execute the mutated lines)"
            return Selection(nodeid, True, f"named in killed_by{note}")
        if nodeid in covering:
            return Selection(nodeid, True, covering[nodeid])
        return _not_selected(nodeid)

    timeout = timeout_factor * sum(duration[n] for n in tests) + timeout_constant
    selection = tuple(why(t.nodeid) for t in baseline)
    reading = tuple(n for n in tests if n in read)
    through_linecache -= read  # a direct read of another mutated file needs the disk
    return RunPlan(
        mutant,
        tests,
        selection,
        timeout,
        must_run,
        fixed=len(named),
        readers=reading,
        linecache_readers=tuple(n for n in tests if n in through_linecache),
    )


@lru_cache(maxsize=1 << 16)
def _not_selected(nodeid: str) -> Selection:
    # Most tests, for most mutants: one shared (frozen) row each instead of one per
    # mutant (mutants x tests rows), which was most of planning's time.
    return Selection(nodeid, False, "does not execute the mutated lines")


def killers_first(
    plan: RunPlan,
    kills: Mapping[str, int],
    durations: Mapping[str, float],
    nearby: Collection[str] = frozenset(),
) -> RunPlan:
    """The same tests, ordered by the expected time to a kill, given this run's kills.

    Mutants of one line tend to die by the same tests: `nearby` (the tests that
    killed a mutant on one of this mutant's changed lines) go first. Then
    neighbouring mutants: a test's chance to kill is taken as (its kills in
    these files + 1/2), so the order is by seconds over that (the time-per-kill
    rule for a first failure): a fast test that never killed still goes before a
    slow one that killed once. Only the time to a kill changes: every selected
    test still runs unless one fails, and a kill is confirmed by a control run
    in whatever order it was seen. Named killers keep their places; the plan's
    order breaks ties.

    The plan's `readers` go last, history or not: a run in which one of them read the
    mutated file goes again with the file on disk, kill or pass (inflect: a doctest
    first in a probe cost a 55 s run on disk, where a unit test after it kills in
    memory), so any other test's kill is the cheaper one.
    """
    head, rest = plan.tests[: plan.fixed], plan.tests[plan.fixed :]
    readers = frozenset(plan.readers)
    if not (kills or nearby or readers.intersection(rest)) or len(rest) < 2:
        return plan

    def cost(nodeid: str) -> tuple[bool, bool, float]:
        if not (kills or nearby):  # no history: the plan's order, readers last
            return nodeid in readers, False, 0.0
        chance = kills.get(nodeid, 0) + 0.5
        return nodeid in readers, nodeid not in nearby, durations.get(nodeid, 0.0) / chance

    return dataclasses.replace(plan, tests=(*head, *sorted(rest, key=cost)))


def _expand(ids: Sequence[str], collected: Mapping[str, int]) -> list[str]:
    """Declared order; a class or an unparametrized name expands to its collected ids."""
    return [n for named_id in dict.fromkeys(ids) for n in collected if is_named_by(named_id, n)]
