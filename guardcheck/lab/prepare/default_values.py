"""Mutants that change only literal default values of module- or class-level defs.

A def at module or class level evaluates its default values when the def
statement runs, at import; so a mutant of `def cached(maxsize=128)` changes
module-level code, and lab/prepare/classify.py would send it to a fresh interpreter
(about half a second, every test selected). To the running program the mutant
is one thing only: another value in the live function's `__defaults__` or
`__kwdefaults__`. When the new value is a literal (`ast.literal_eval` reads
it) a forked child can set it on the live function and run the tests that
call the function, as for any code swap: same evidence marker, same check
that the function did not already run at import or collection.

What a fresh interpreter would see and a fork does not: code that read the
function's defaults at import (a decorator calling `inspect.signature` and
keeping the result). docs/DESIGN.md names that limit.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from guardcheck.edit import toplevel

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
# Every field of a def but its decorators, its body and its arguments' defaults.
_SIGNATURE = ("posonlyargs", "args", "vararg", "kwonlyargs", "kwarg")


@dataclass(frozen=True)
class NewDefaults:
    """New values for some of a def's defaults, as its live function object holds them."""

    qualname: str
    line: int  # co_firstlineno: the def's first decorator line, else its own
    count: int  # len(__defaults__): tells a live function of another def apart
    positional: tuple[tuple[int, object], ...]  # index in __defaults__ -> new value
    keyword: tuple[tuple[str, object], ...]  # keyword-only name -> new value


def changed_defaults(
    original: str, mutated: str, region: tuple[int, int] | None
) -> tuple[NewDefaults, ...] | None:
    """The defaults a mutant changes, when that is all it changes (texts without a BOM).

    None when anything else differs, when a changed default sits anywhere but a
    def at module or class level, or when a new value is not a literal.
    """
    touched = toplevel.touched(original, mutated, region)
    if touched is None or touched.shift:
        return None
    found: list[NewDefaults] = []
    before = touched.original(toplevel.outline(original))
    if not _same_statements(before, touched.statements, "", found):
        return None
    return tuple(found) or None


def _same_statements(
    before: list[ast.stmt], after: list[ast.stmt], prefix: str, found: list[NewDefaults]
) -> bool:
    if len(before) != len(after):
        return False
    for old, new in zip(before, after, strict=True):
        if isinstance(old, _DEFS) and type(new) is type(old):
            if not _same_def(old, new, prefix, found):  # type: ignore[arg-type]
                return False
        elif isinstance(old, ast.ClassDef) and isinstance(new, ast.ClassDef):
            heads = [(n.name, _dump(n.bases), _dump(n.keywords), _dump(n.decorator_list))
                     for n in (old, new)]  # fmt: skip
            if heads[0] != heads[1]:
                return False
            if not _same_statements(old.body, new.body, f"{prefix}{old.name}.", found):
                return False
        elif _dump(old) != _dump(new):
            return False
    return True


def _same_def(
    old: ast.FunctionDef | ast.AsyncFunctionDef,
    new: ast.FunctionDef | ast.AsyncFunctionDef,
    prefix: str,
    found: list[NewDefaults],
) -> bool:
    same = (
        old.name == new.name
        and _dump(old.decorator_list) == _dump(new.decorator_list)
        and _dump(old.returns) == _dump(new.returns)
        and _dump(old.body) == _dump(new.body)
        and all(_dump(getattr(old.args, f)) == _dump(getattr(new.args, f)) for f in _SIGNATURE)
    )
    if not same or len(old.args.defaults) != len(new.args.defaults):
        return False
    positional: list[tuple[int, object]] = []
    for index, (a, b) in enumerate(zip(old.args.defaults, new.args.defaults, strict=True)):
        if _dump(a) != _dump(b):
            value = _literal(b)
            if value is _NOT_LITERAL:
                return False
            positional.append((index, value))
    keyword: list[tuple[str, object]] = []
    pairs = zip(old.args.kwonlyargs, old.args.kw_defaults, new.args.kw_defaults, strict=True)
    for arg, a, b in pairs:
        if (a is None) != (b is None):
            return False
        if a is not None and _dump(a) != _dump(b):
            value = _literal(b)
            if value is _NOT_LITERAL:
                return False
            keyword.append((arg.arg, value))
    if positional or keyword:
        line, count = toplevel.first_line(old), len(old.args.defaults)
        found.append(NewDefaults(f"{prefix}{old.name}", line, count, tuple(positional),
                                 tuple(keyword)))  # fmt: skip
    return True


_NOT_LITERAL = object()


def _literal(node: ast.expr | None) -> object:
    try:
        return ast.literal_eval(node) if node is not None else _NOT_LITERAL
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _NOT_LITERAL


def _dump(node: ast.AST | list[ast.AST] | list[ast.expr] | list[ast.stmt] | None) -> str:
    # Structure only: positions differ wherever a mutant changed a line's length.
    if isinstance(node, list):
        return "[" + ", ".join(ast.dump(n) for n in node) + "]"
    return ast.dump(node) if node is not None else ""
