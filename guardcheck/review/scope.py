"""Which mutants and tests a change puts in scope.

Catalogue entries count when a line their splices rewrite lies in a changed
function (or is itself a changed line, for module-level code). Operator mutants
come from the sweep's generator restricted to changed lines; by default one per
line, the one most likely to matter (`RANK`), since a review should be quick and a
line that survives its strongest mutant rarely needs a weaker one reported.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from guardcheck.model import Mutant, is_named_by
from guardcheck.review.diff import Change, Function

# Lower is likelier to matter. A comparison or boolean flip changes which branch runs;
# arithmetic changes a value; constants and strings most often change only a message.
RANK: dict[str, int] = {
    "keywords": 0,  # and/or, is/is not, in/not in, True/False
    "swap-op": 1,  # refined below: a comparison swap ranks with the keywords
    "if-exp": 1,
    "remove-unary-ops": 1,
    "augmented-assignment": 2,
    "number": 3,
    "name": 3,
    "assignment": 3,
    "match": 4,
    "arg-removal": 4,
    "dict-arguments": 4,
    "lambda": 4,
    "string": 5,
    "symmetric-string-methods-swap": 5,
    "unsymmetrical-string-methods-swap": 5,
}
_UNKNOWN = 6
_COMPARISON = re.compile(r"`(<|<=|>|>=|==|!=)` with")


def rank(mutant: Mutant) -> int:
    base = RANK.get(mutant.mutator, _UNKNOWN)
    if mutant.mutator == "swap-op" and _COMPARISON.search(mutant.summary):
        return 0
    return base


def likeliest_per_line(mutants: Sequence[Mutant]) -> list[Mutant]:
    """One mutant per (file, line): the lowest rank, the first generated among equals."""
    best: dict[tuple[str, int], Mutant] = {}
    for mutant in mutants:
        key = (mutant.span.path, mutant.span.line)
        if key not in best or rank(mutant) < rank(best[key]):
            best[key] = mutant
    return list(best.values())


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
