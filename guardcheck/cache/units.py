"""A Python file as its functions' bodies and the rest (the skeleton), each by digest.

A *unit* is a function whose parent is the module or a class (methods included; a
nested function belongs to the unit around it). Its body runs only when called, so a
test that never executes a line of it cannot depend on it; everything else (imports,
constants, class attributes, signatures, decorators, defaults) runs at import and is
the skeleton, which every test may depend on without executing a line of it under its
coverage context.

Units are named `qualname#k` (k counts earlier units of the same qualname, so a
property's getter and setter differ) so that editing one function renames no other.
"""

from __future__ import annotations

import ast
import hashlib
from dataclasses import dataclass, field

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class Units:
    skeleton: str  # digest of the text with every unit body blanked out
    bodies: dict[str, str] = field(default_factory=dict)  # unit name -> digest of its body
    lines: dict[int, str] = field(default_factory=dict)  # body line -> unit name


def units_of(text: str) -> Units | None:
    """None when the text does not parse (the caller keys the whole file instead)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    data = text.encode("utf-8", "surrogatepass")
    starts = _line_starts(data)
    spans: list[tuple[str, int, int, int, int]] = []  # name, first/last line, byte span
    seen: dict[str, int] = {}
    for qualname, node in _units(tree.body, ""):
        first, last = node.body[0], node.body[-1]
        start = starts[first.lineno - 1] + first.col_offset
        end = starts[(last.end_lineno or last.lineno) - 1] + (last.end_col_offset or 0)
        index = seen.get(qualname, 0)
        seen[qualname] = index + 1
        spans.append(
            (f"{qualname}#{index}", first.lineno, last.end_lineno or last.lineno, start, end)
        )
    skeleton = hashlib.sha256()
    position = 0
    bodies: dict[str, str] = {}
    lines: dict[int, str] = {}
    for name, first_line, last_line, start, end in sorted(spans, key=lambda s: s[3]):
        skeleton.update(data[position:start])
        skeleton.update(b"\0")  # where a body was: "f(): A" and "f(): B" share a skeleton
        position = end
        bodies[name] = hashlib.sha256(data[start:end]).hexdigest()
        for line in range(first_line, last_line + 1):
            lines[line] = name
    skeleton.update(data[position:])
    return Units(skeleton.hexdigest(), bodies, lines)


def _units(
    body: list[ast.stmt], prefix: str
) -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    found: list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]] = []
    for node in body:
        for inner in _flatten(node):
            if isinstance(inner, _FUNCTIONS):
                found.append((prefix + inner.name, inner))
            elif isinstance(inner, ast.ClassDef):
                found += _units(inner.body, f"{prefix}{inner.name}.")
    return found


def _flatten(node: ast.stmt) -> list[ast.stmt]:
    """A statement, or the statements of the if/try/with blocks it runs at import."""
    if isinstance(node, (ast.If, ast.Try, ast.With, ast.AsyncWith)) or (
        hasattr(ast, "TryStar") and isinstance(node, ast.TryStar)
    ):
        inner: list[ast.stmt] = []
        for name in ("body", "orelse", "finalbody"):
            for child in getattr(node, name, []):
                inner += _flatten(child)
        for handler in getattr(node, "handlers", []):
            for child in handler.body:
                inner += _flatten(child)
        return inner
    return [node]


def _line_starts(data: bytes) -> list[int]:
    starts = [0]
    index = data.find(b"\n")
    while index != -1:
        starts.append(index + 1)
        index = data.find(b"\n", index + 1)
    return starts


def changed_units(original: str, mutated: str) -> list[str] | None:
    """`skeleton + changed bodies` of the mutated text as key parts, or None if not comparable.

    Not comparable: either text does not parse, or the mutant adds, removes or renames
    a unit; the caller then keys the whole mutated text.
    """
    before, after = units_of(original), units_of(mutated)
    if before is None or after is None or list(before.bodies) != list(after.bodies):
        return None
    parts = [f"skeleton {after.skeleton}"]
    parts += [
        f"body {name} {digest}"
        for name, digest in after.bodies.items()
        if before.bodies[name] != digest
    ]
    return parts
