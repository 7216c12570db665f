"""Whether two compiled code objects are the same program, line numbers aside.

`lab/prepare/classify.py` compares one code object at a time to find what a
mutant changed; `edit/mutate.py` compares whole modules to refuse a catalogue
entry whose text differs but whose code does not (a constant the compiler
folds: `LIMIT = 10**3` for `LIMIT = 1000`), which no test can tell apart.
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


def same_code(a: types.CodeType, b: types.CodeType) -> bool:
    """Equal apart from line numbers, nested code objects included."""
    if not same_own_code(a, b):
        return False
    nested = [
        (x, y)
        for x, y in zip(a.co_consts, b.co_consts, strict=True)
        if isinstance(x, types.CodeType) and isinstance(y, types.CodeType)
    ]
    return all(same_code(x, y) for x, y in nested)
