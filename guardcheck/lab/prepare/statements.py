"""The statements of the original a mutant changes, as line ranges.

A function that ran at import or collection sends its mutants to a fresh
interpreter, because what it computed then outlives a code swap. Not when the
changed statement itself never ran then: whatever import and collection
computed, they computed without reaching it, and the mutant computes the same.
`changed_statements` gives the lines to look for in the host's record of what
ran (child/importwatch.py); `any_line_ran` says whether any of them did.

Line granularity is what makes this safe to decide: when a statement runs, the
tracer sees at least one of its lines (its first instruction either starts a new
line or continues one already seen). A statement the compiler left no code for
(`if 0:` bodies, a docstring) cannot be told apart from one that never ran, so
the answer is None there, and None means "assume it ran".
"""

from __future__ import annotations

import ast
import functools
import types
from collections.abc import Collection, Sequence

from guardcheck.edit.toplevel import common_prefix, common_suffix

LineRange = tuple[int, int]


def changed_statements(
    original: str, mutated: str, region: tuple[int, int] | None
) -> tuple[LineRange, ...] | None:
    """The innermost statements of `original` that the change overlaps, or None.

    `region` is the replaced part of the original in characters, when the edit
    says; otherwise it is what the two texts do not share. None for a statement
    inserted between others (it runs wherever the code around it runs) and when no
    line of the statements has code.
    """
    if region is None:
        prefix = common_prefix(original, mutated)
        suffix = common_suffix(original, mutated, min(len(original), len(mutated)) - prefix)
        region = (prefix, len(original) - suffix)
    start, end = region
    if end <= start and not _inside_a_line(original, start):
        return None
    first = original.count("\n", 0, start) + 1
    last = original.count("\n", 0, max(start, end - 1)) + 1
    index = _index(original)
    if index is None:
        return None
    body, executable = index
    ranges = _innermost(body, first, last)
    if not any_line_ran(ranges, executable):
        return None  # no code of their own: never seen to run
    return tuple(ranges)


def _inside_a_line(text: str, at: int) -> bool:
    """Is the insertion point between code on its line (`if not x` for `if x`), not
    at a line's start or end, where a new statement would go?"""
    line_start = text.rfind("\n", 0, at) + 1
    line_end = text.find("\n", at)
    after = text[at : line_end if line_end >= 0 else len(text)].strip()
    return bool(text[line_start:at].strip()) and bool(after) and not after.startswith("#")


def any_line_ran(statements: Sequence[LineRange], lines: Collection[int]) -> bool:
    """Did any line of the statements run?"""
    return any(line in lines for a, b in statements for line in range(a, b + 1))


@functools.lru_cache(maxsize=8)
def _index(original: str) -> tuple[list[ast.stmt], frozenset[int]] | None:
    """The module's statements and the lines its compiled code has instructions on."""
    try:
        tree = ast.parse(original)
    except (SyntaxError, ValueError):
        return None
    executable = traced_lines(tree)
    return None if executable is None else (tree.body, executable)


def traced_lines(tree: ast.Module) -> frozenset[int] | None:
    """Every line some instruction of the compiled module (nested code included) sits on.

    Compiled by this interpreter, which is the one the tests run on, so the same
    statements are optimised away as there.
    """
    try:
        module = compile(tree, "<lines>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return None
    lines: set[int] = set()
    codes = [module]
    while codes:
        code = codes.pop()
        lines.update(line for _, _, line in code.co_lines() if line is not None)
        codes.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    return frozenset(lines)


def _innermost(body: list[ast.stmt], first: int, last: int) -> list[LineRange]:
    """Line ranges of the deepest statements covering lines first..last."""
    hits = [s for s in body if _start(s) <= last and _end(s) >= first]
    if len(hits) == 1 and _start(hits[0]) <= first and last <= _end(hits[0]):
        for inner in _bodies(hits[0]):
            if any(_start(s) <= first and last <= _end(s) for s in inner):
                return _innermost(inner, first, last)
    return [(_start(s), _end(s)) for s in hits]


def _bodies(statement: ast.stmt) -> list[list[ast.stmt]]:
    """The statement lists nested directly in a compound statement."""
    found: list[list[ast.stmt]] = []
    for name in ("body", "orelse", "finalbody"):
        value = getattr(statement, name, None)
        if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
            found.append(value)
    for handler in getattr(statement, "handlers", ()):
        found.append(handler.body)
    for case in getattr(statement, "cases", ()):
        found.append(case.body)
    return found


def _start(statement: ast.stmt) -> int:
    """Its first line, decorators included (they run as part of the definition)."""
    decorators = getattr(statement, "decorator_list", ())
    return min([statement.lineno, *(d.lineno for d in decorators)])


def _end(statement: ast.stmt) -> int:
    return statement.end_lineno or statement.lineno
