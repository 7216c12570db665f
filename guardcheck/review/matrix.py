"""The kill matrix of a change, from the lab's results: one row per mutant in scope.

The lab's verdict is taken as it is: `review` judges a mutant exactly as `run` and
`sweep` do (a crash, a collection change, an error). The one thing a review adds is
that a kill by source-reading tests alone does not count: such a test would fail on any
edit of the text, so it vouches for nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from guardcheck.model import MutantResult, Status
from guardcheck.review import scope
from guardcheck.review.diff import Change
from guardcheck.review.findings import ChangedLine, FunctionRow, MatrixRow, Survivor

# The verdicts in which a test failed because of the mutant (or it hung): lab/verdict.py's.
CAUGHT_KINDS = frozenset(
    {Status.CAUGHT, Status.CAUGHT_ELSEWHERE, Status.WEAKENED, Status.TIMEOUT, Status.GAP_CLOSED}
)


def killing_tests(result: MutantResult) -> tuple[str, ...]:
    """The tests that failed against the mutant, and the one it crashed or hung in."""
    killers = list(result.killers)
    outcome = result.outcome
    if outcome is None or result.status not in CAUGHT_KINDS:
        return tuple(killers)
    stopped_in = outcome.current if outcome.crash or outcome.timed_out is not None else None
    if stopped_in and stopped_in not in killers:
        killers.append(stopped_in)
    return tuple(killers)


def row(
    result: MutantResult, readers: set[str], changed_tests: Sequence[str], change: Change
) -> MatrixRow:
    """The mutant's verdict as the lab gave it, and whether a behavioural test caught it."""
    mutant = result.mutant
    span = mutant.span
    killers = killing_tests(result)
    reason = result.reason
    caught = result.status in CAUGHT_KINDS
    if caught and killers and all(scope.names_any(readers, k) for k in killers):
        caught = False
        reason = "caught only by source-reading tests: " + ", ".join(killers)
    ran = [t.nodeid for t in result.tests if t.nodeid not in killers]
    function = scope.function_at(change, span.path, span.line)
    return MatrixRow(
        mutant_id=mutant.id,
        path=span.path,
        line=span.line,
        mutation=mutant.summary,
        code=_line_of(mutant.changes[0].original, span.line),
        mutated=_line_of(mutant.changes[0].mutated, span.line),
        status=result.status.value,
        reason=reason,
        caught=caught,
        killed_by=killers,
        ran_by=result.covered_by,
        changed_tests_not_killing=tuple(
            sorted(n for n in ran if scope.names_any(changed_tests, n))
        ),
        function=function.qualname if function else None,
    )


def _line_of(text: str, line: int) -> str:
    lines = text.splitlines()
    return lines[line - 1].strip() if 0 < line <= len(lines) else ""


def survivor(matrix_row: MatrixRow) -> Survivor:
    r = matrix_row
    return Survivor(
        r.mutant_id, r.path, r.line, r.mutated, r.reason, r.function, r.status, r.mutation
    )


def honest_killers(matrix_row: MatrixRow, readers: set[str]) -> tuple[str, ...]:
    return tuple(k for k in matrix_row.killed_by if not scope.names_any(readers, k))


def function_rows(
    rows: Sequence[MatrixRow], readers: set[str], change: Change
) -> list[FunctionRow]:
    """One row per changed source function (mutants, caught, survivors, killing tests)."""
    table: dict[tuple[str, str], FunctionRow] = {}
    for path in change.source_files():
        for f in change.changed_functions(path):
            table[(path, f.qualname)] = FunctionRow(path, f.qualname, f.start, 0, 0, 0, ())
    for r in rows:
        function = scope.function_at(change, r.path, r.line)
        if function is None:
            continue
        key = (r.path, function.qualname)
        old = table.get(key) or FunctionRow(r.path, function.qualname, function.start, 0, 0, 0, ())
        table[key] = FunctionRow(
            old.path,
            old.qualname,
            old.line,
            old.mutants + 1,
            old.caught + r.caught,
            old.survivors + (not r.caught),
            tuple(sorted({*old.killers, *honest_killers(r, readers)})),
        )
    return sorted(table.values(), key=lambda f: (f.path, f.line))


def changed_lines(rows: Sequence[MatrixRow], change: Change) -> list[ChangedLine]:
    """The changed lines that have mutants, in file order: survivors and tests per line.

    A catalogue entry whose first splice lies outside the changed lines (elsewhere in a
    changed function) is left to the function table and the matrix.
    """
    grouped: dict[tuple[str, int], list[MatrixRow]] = {}
    for r in rows:
        if r.line in change.lines.get(r.path, ()):
            grouped.setdefault((r.path, r.line), []).append(r)
    return [
        ChangedLine(
            path,
            line,
            group[0].code,
            len(group),
            tuple(survivor(r) for r in group if not r.caught),
            _union(r.ran_by for r in group),
        )
        for (path, line), group in sorted(grouped.items())
    ]


def _union(groups: Iterable[Sequence[str]]) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for group in groups:
        seen.update(dict.fromkeys(group))
    return tuple(seen)
