"""Which mutants and tests a change puts in scope.

Catalogue entries count when a line their splices rewrite lies in a changed
function (or is itself a changed line, for module-level code). Operator mutants
are every one the sweep's generator makes on changed lines: a line's informative
mutant is often not the one a ranking would pick (an off-by-one `>` -> `>=` beside an
`is not` -> `is` that crashes every test), and at milliseconds a mutant the whole set
costs a review seconds. `sample` caps a huge diff (`--max-mutants`).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

from guardcheck.model import Mutant, is_named_by
from guardcheck.review.diff import Change, Function


def sample(mutants: Sequence[Mutant], cap: int, seed: int) -> list[Mutant]:
    """At most `cap` of `mutants`, spread over their lines, the same for the same seed.

    Each line's mutants are shuffled with `seed`, then lines (in a seeded order) give one
    mutant each per round: every line gets a mutant before any line gets two. The kept
    mutants stay in their generated order.
    """
    if len(mutants) <= cap:
        return list(mutants)
    rng = random.Random(seed)
    by_line: dict[tuple[str, int], list[int]] = {}
    for index, mutant in enumerate(mutants):
        by_line.setdefault((mutant.span.path, mutant.span.line), []).append(index)
    queues = list(by_line.values())
    for queue in queues:
        rng.shuffle(queue)
    rng.shuffle(queues)
    kept: list[int] = []
    while len(kept) < cap:
        for queue in queues:
            if queue and len(kept) < cap:
                kept.append(queue.pop())
    return [mutants[i] for i in sorted(kept)]


def touches_change(mutant: Mutant, change: Change) -> bool:
    for file_change in mutant.changes:
        lines = change.lines.get(file_change.path)
        if not lines:
            continue
        region = set(lines)
        for function in change.changed_functions(file_change.path):
            region.update(function.lines())
        if region.intersection(file_change.changed_lines()):
            return True
    return False


def function_at(change: Change, path: str, line: int) -> Function | None:
    """The innermost function of today's `path` around `line`."""
    around = [f for f in change.functions.get(path, []) if f.start <= line <= f.end]
    return min(around, key=lambda f: f.end - f.start, default=None)


def is_test_function(function: Function) -> bool:
    """pytest's default discovery: `test*` functions, at module level or in `Test*` classes."""
    parts = function.qualname.split(".")
    if not parts[-1].startswith("test"):
        return False
    return len(parts) == 1 or (len(parts) == 2 and parts[0].startswith("Test"))


def changed_tests(change: Change) -> list[Function]:
    """Test functions of test files whose lines (decorators included) changed."""
    return [
        f
        for path in change.test_files()
        for f in change.changed_functions(path)
        if is_test_function(f)
    ]


def names(test: str, nodeids: Iterable[str]) -> bool:
    """Does the function-level id `test` stand for any of `nodeids` (parametrized ones too)?"""
    return any(is_named_by(test, nodeid) for nodeid in nodeids)


def names_any(tests: Iterable[str], nodeid: str) -> bool:
    """Does any of `tests` (function-level or concrete ids) stand for `nodeid`?"""
    return any(is_named_by(test, nodeid) for test in tests)
