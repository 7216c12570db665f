"""Whether two compiled code objects are the same program, line numbers aside.

`lab/prepare/classify.py` compares one code object at a time to find what a
mutant changed, and whole trees to find a sweep mutant that changed nothing the
interpreter runs (`identical`); `edit/mutate.py` compares whole modules to refuse
a catalogue entry whose text differs but whose code does not (a constant the
compiler folds: `LIMIT = 10**3` for `LIMIT = 1000`), which no test can tell apart.
"""

from __future__ import annotations

import types

OWN_FIELDS = (
    "co_code",
    "co_names",
    "co_varnames",
    "co_freevars",
    "co_cellvars",
    "co_argcount",
    "co_posonlyargcount",
    "co_kwonlyargcount",
    "co_flags",
    "co_exceptiontable",
    "co_name",
    "co_qualname",
)


def const_key(value: object) -> object:
    """A constant as the program sees it: (1,) == (True,) == (1.0,) in Python, not here."""
    if isinstance(value, types.CodeType):
        return ("code", value.co_qualname)
    if isinstance(value, tuple | frozenset):
        return (type(value).__name__, tuple(const_key(v) for v in value))
    return (type(value).__name__, repr(value))


def same_own_code(a: types.CodeType, b: types.CodeType) -> bool:
    """Equal apart from line numbers and the contents of nested code objects."""
    if any(getattr(a, name) != getattr(b, name) for name in OWN_FIELDS):
        return False
    return [const_key(c) for c in a.co_consts] == [const_key(c) for c in b.co_consts]


def _nested(a: types.CodeType, b: types.CodeType) -> list[tuple[types.CodeType, types.CodeType]]:
    """The nested code objects of two codes whose own constants match, pairwise."""
    return [
        (x, y)
        for x, y in zip(a.co_consts, b.co_consts, strict=True)
        if isinstance(x, types.CodeType) and isinstance(y, types.CodeType)
    ]


def same_code(a: types.CodeType, b: types.CodeType) -> bool:
    """Equal apart from line numbers, nested code objects included."""
    return same_own_code(a, b) and all(same_code(x, y) for x, y in _nested(a, b))


def identical(a: types.CodeType, b: types.CodeType) -> bool:
    """The same program to the last line and column: `same_code` with the position
    tables too, so not even a traceback or a warning's line number tells them apart
    (`while 1:` and `while 2:` compile to the same loop, in the same places)."""
    if not same_own_code(a, b):
        return False
    if (a.co_firstlineno, a.co_linetable) != (b.co_firstlineno, b.co_linetable):
        return False
    return all(identical(x, y) for x, y in _nested(a, b))
