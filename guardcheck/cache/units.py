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
from collections.abc import Sequence
from dataclasses import dataclass, field

from guardcheck.splices import Splice, apply_splices

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass(frozen=True)
class Units:
    skeleton: str  # digest of the text with every unit body blanked out
    bodies: dict[str, str] = field(default_factory=dict)  # unit name -> digest of its body
    lines: dict[int, str] = field(default_factory=dict)  # body line -> unit name
    spans: dict[str, tuple[int, int]] = field(default_factory=dict)  # name -> body, in chars


def units_of(text: str) -> Units | None:
    """None when the text does not parse (the caller keys the whole file instead)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    # ast columns count UTF-8 bytes; splices count characters: keep both per line.
    source_lines = text.splitlines(keepends=True)
    char_starts = [0]
    for line in source_lines:
        char_starts.append(char_starts[-1] + len(line))

    def offset(lineno: int, column: int) -> int:
        line = source_lines[lineno - 1] if lineno <= len(source_lines) else ""
        prefix = line.encode("utf-8", "surrogatepass")[:column]
        return char_starts[lineno - 1] + len(prefix.decode("utf-8", "surrogatepass"))

    found: list[tuple[str, int, int, int, int]] = []  # name, first/last line, char span
    seen: dict[str, int] = {}
    for qualname, node in _units(tree.body, ""):
        first, last = node.body[0], node.body[-1]
        last_line = last.end_lineno or last.lineno
        index = seen.get(qualname, 0)
        seen[qualname] = index + 1
        start = offset(first.lineno, first.col_offset)
        end = offset(last_line, last.end_col_offset or 0)
        found.append((f"{qualname}#{index}", first.lineno, last_line, start, end))
    skeleton = hashlib.sha256()
    position = 0
    bodies: dict[str, str] = {}
    lines: dict[int, str] = {}
    spans: dict[str, tuple[int, int]] = {}
    for name, first_line, last_line, start, end in sorted(found, key=lambda s: s[3]):
        skeleton.update(_bytes(text[position:start]))
        skeleton.update(b"\0")  # where a body was: "f(): A" and "f(): B" share a skeleton
        position = end
        bodies[name] = _digest(text[start:end])
        spans[name] = (start, end)
        for line in range(first_line, last_line + 1):
            lines[line] = name
    skeleton.update(_bytes(text[position:]))
    return Units(skeleton.hexdigest(), bodies, lines, spans)


def _bytes(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")


def _digest(text: str) -> str:
    return hashlib.sha256(_bytes(text)).hexdigest()


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


def changed_units(
    original: Units | None, splices: Sequence[Splice], original_text: str, mutated: str
) -> list[str] | None:
    """`skeleton + changed bodies` of the mutated text as key parts, or None if not comparable.

    When every splice lies inside one function body, the skeleton is the original's and
    each touched body is the original body with its splices applied: no parse of the
    mutated text (a sweep has thousands of mutants of the same few files). Otherwise
    the mutated text is parsed; not comparable (None) when it does not parse or the
    mutant adds, removes or renames a function: the caller keys the whole text.
    """
    if original is None:
        return None
    touched: dict[str, list[Splice]] = {}
    for splice in splices:
        name = _body_around(original, splice)
        if name is None:
            return _parsed_units(original, mutated)
        touched.setdefault(name, []).append(splice)
    parts = [f"skeleton {original.skeleton}"]
    for name, inside in sorted(touched.items()):
        start, end = original.spans[name]
        shifted = [Splice(s.start - start, s.end - start, s.replacement) for s in inside]
        parts.append(f"body {name} {_digest(apply_splices(original_text[start:end], shifted))}")
    return parts


def _body_around(units: Units, splice: Splice) -> str | None:
    for name, (start, end) in units.spans.items():
        if start <= splice.start and splice.end <= end:
            return name
    return None


def _parsed_units(before: Units, mutated: str) -> list[str] | None:
    after = units_of(mutated)
    if after is None or list(before.bodies) != list(after.bodies):
        return None
    parts = [f"skeleton {after.skeleton}"]
    parts += [
        f"body {name} {digest}"
        for name, digest in after.bodies.items()
        if before.bodies[name] != digest
    ]
    return parts
