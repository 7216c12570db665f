"""Boundary values: the numbers the code itself compares against, and their neighbours.

An off-by-one lives where the code mentions a number (`< 0.95 * x`, `>= 3600`,
`min(n, 5)`), so those constants and the values next to them are tried before
random ones. Constants are read from each function's syntax tree, from the
module-level numbers it names, and from the project functions it calls (two
levels), because a gate often delegates its threshold to a helper.
"""

from __future__ import annotations

import ast
import inspect
import math
import textwrap
import types
from collections.abc import Iterable
from typing import Any

# A ratio like 0.95 only shows its edge on whole numbers through a product:
# 20 * 0.95 == 19 exactly, 1000 * 0.95 == 950. These are the bases tried.
_RATIO_BASES = (10, 20, 100, 1000)
MAX_POOL = 48


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _same_project(function: types.FunctionType, other: Any) -> bool:
    if not isinstance(other, types.FunctionType):
        return False
    top = (function.__module__ or "").split(".", 1)[0]
    return (other.__module__ or "").split(".", 1)[0] == top


def numeric_constants(function: Any, depth: int = 2) -> set[float | int]:
    """Numbers written in `function`, in module constants it names and in callees."""
    function = inspect.unwrap(function)
    if not isinstance(function, types.FunctionType):
        return set()
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    except (OSError, TypeError, SyntaxError):
        return set()  # built-in or source not available: no boundary values from it
    found: set[float | int] = set()
    names = function.__globals__
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and _number(node.value):
            found.add(node.value)
        elif isinstance(node, ast.Name) and node.id in names:
            value = names[node.id]
            if _number(value):
                found.add(value)
            elif depth > 0 and _same_project(function, value) and value is not function:
                found |= numeric_constants(value, depth - 1)
    return found


def _simple_first(values: Iterable[Any]) -> list[Any]:
    unique = {(type(v), v) for v in values if not (isinstance(v, float) and math.isnan(v))}
    return [v for _, v in sorted(unique, key=lambda tv: (abs(tv[1]), tv[1] < 0, tv[1]))]


def int_pool(constants: Iterable[float | int]) -> list[int]:
    """Whole-number boundary values: each constant, +-1, 0, negatives, ratio products."""
    pool: set[int] = {0, 1, -1, 2}
    for c in constants:
        if isinstance(c, int) or float(c).is_integer():
            k = int(c)
            pool |= {k - 1, k, k + 1, -k}
        elif math.isfinite(c):
            pool |= {math.floor(c), math.ceil(c)}
            for base in _RATIO_BASES:
                edge = base * c
                pool |= {
                    base,
                    math.floor(edge) - 1,
                    math.floor(edge),
                    math.ceil(edge),
                    math.ceil(edge) + 1,
                }
    return _simple_first(pool)[:MAX_POOL]


def float_pool(constants: Iterable[float | int]) -> list[float]:
    """Real-number boundary values: each constant, its float neighbours, +-1, 0."""
    pool: set[float] = {0.0, 1.0, -1.0}
    for c in constants:
        c = float(c)
        if not math.isfinite(c):
            continue
        pool |= {c, -c, c + 1, c - 1, math.nextafter(c, math.inf), math.nextafter(c, -math.inf)}
    return _simple_first(pool)[:MAX_POOL]
