"""A change inside one method of a class, compiled as that method alone.

instrument.narrowed compiles the top-level statements a change touches; for a
method that is its whole class, parsed and compiled twice per mutant (272 lines
for target_app's GatewayRunner: most of what classifying one of its mutants
cost). Here the method is compiled inside a stub of its classes: `class Name:`
headers, outermost first, on the lines just above it, and the method's own text
at its own lines. The method's code object comes out as in its module: the
same qualname, the same name mangling and `__class__` cell (both come from
the class it sits in), the same line numbers; its class's bases, decorators
and other statements run in the class body, not in the method.

Only for a change within one def that sits in classes only (no `if` between),
whose lines and place in its class the mutant keeps; otherwise None, and the
caller narrows to the top-level statement as before.
"""

from __future__ import annotations

import ast
import types
from dataclasses import dataclass

from guardcheck.child.codeswap import nested
from guardcheck.edit import toplevel

Def = ast.FunctionDef | ast.AsyncFunctionDef
Path_ = tuple[int, ...]


@dataclass(frozen=True)
class MethodPart:
    """The stub modules of one method, and where the method sits in the whole module."""

    original: ast.Module  # prelude, then the class stubs holding the original method
    mutated: ast.Module
    first: int  # the method's first line (decorators included) and last line
    last: int
    whole_path: Path_  # its code object's ordinal path in the whole original module


def _enclosing(body: list[ast.stmt], first: int, last: int) -> ast.stmt | None:
    inside = [
        s for s in body if toplevel.first_line(s) <= first and last <= (s.end_lineno or s.lineno)
    ]
    return inside[0] if len(inside) == 1 else None


def _chain(found: toplevel.Outline, first: int, last: int) -> tuple[list[ast.ClassDef], Def] | None:
    """The classes, outermost first, down to the one def holding lines first..last."""
    top = _enclosing(found.tree.body[found.after_futures :], first, last)
    classes: list[ast.ClassDef] = []
    node = top
    while isinstance(node, ast.ClassDef):
        classes.append(node)
        node = _enclosing(node.body, first, last)
    if not classes or not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    return classes, node


def _headers(original: str, found: toplevel.Outline, classes: list[ast.ClassDef]) -> str | None:
    headers = []
    for node in classes:
        start = found.line_starts[node.lineno - 1]
        indent = original[start : start + node.col_offset]
        if indent.strip():  # not on a line of its own
            return None
        headers.append(f"{indent}class {node.name}:\n")
    return "".join(headers)


def _whole_path(compiled: types.CodeType, classes: list[ast.ClassDef], method: Def) -> Path_ | None:
    """The ordinal path of the method's code in the whole module, found by qualname and line."""
    path: list[int] = []
    code = compiled
    qualname = ""
    for node in [*classes, method]:
        qualname = f"{qualname}.{node.name}" if qualname else node.name
        key = (qualname, toplevel.first_line(node))
        inner = nested(code)
        found = [i for i, c in enumerate(inner) if (c.co_qualname, c.co_firstlineno) == key]
        if len(found) != 1:
            return None
        path.append(found[0])
        code = inner[found[0]]
    return tuple(path)


def _parsed_stub(text: str, depth: int, method: Def) -> ast.Module | None:
    """`text` parsed, if it holds exactly the classes and a def like `method`, at its lines."""
    try:
        module = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    body = module.body
    for _ in range(depth):
        if len(body) != 1 or not isinstance(body[0], ast.ClassDef):
            return None
        body = body[0].body
    if len(body) != 1 or type(body[0]) is not type(method):
        return None
    found = body[0]
    assert isinstance(found, ast.FunctionDef | ast.AsyncFunctionDef)
    same = (found.name, toplevel.first_line(found), found.end_lineno) == (
        method.name,
        toplevel.first_line(method),
        method.end_lineno,
    )
    return module if same else None


def method_part(
    original: str, mutated: str, changed: tuple[int, int] | None, compiled: types.CodeType
) -> MethodPart | None:
    """The stub modules for a change inside one method, or None (see the module doc).

    Texts without a BOM; `changed` as for toplevel.touched; `compiled` is the
    whole original module. Only the mutated method is parsed per mutant: the
    original's classes and def come from its outline, parsed once.
    """
    found = toplevel.outline(original)
    if not found.narrowable or original == mutated:
        return None
    begin, finish = toplevel.changed_region(original, mutated, changed)
    delta = len(mutated) - len(original)
    if mutated.count("\n", begin, finish + delta) != original.count("\n", begin, finish):
        return None  # lines move: the method's would not be its own
    place = _chain(found, found.line_of(begin), found.line_of(finish))
    if place is None:
        return None
    classes, method = place
    first, last = toplevel.first_line(method), method.end_lineno or method.lineno
    starts = found.line_starts
    start, end = starts[first - 1], starts[last] if last < len(starts) else len(original)
    headers = _headers(original, found, classes)
    whole_path = _whole_path(compiled, classes, method)
    if headers is None or whole_path is None:
        return None
    pad = "\n" * (first - 1 - len(classes))
    stub_o = _original_stub(found, pad + headers + original[start:end], len(classes), method)
    stub_m = _parsed_stub(pad + headers + mutated[start : end + delta], len(classes), method)
    if stub_o is None or stub_m is None:
        return None
    return MethodPart(
        toplevel.part_module(found, stub_o.body, imports=True),
        toplevel.part_module(found, stub_m.body, imports=True),
        first,
        last,
        whole_path,
    )


# The original method's stub, parsed once for all the mutants of it.
_ORIGINAL_STUBS: toplevel.PerOutline[ast.Module | None] = toplevel.PerOutline()


def _original_stub(
    found: toplevel.Outline, text: str, depth: int, method: Def
) -> ast.Module | None:
    return _ORIGINAL_STUBS.get(found, method.lineno, lambda: _parsed_stub(text, depth, method))


def replace_at(code: types.CodeType, path: Path_, new: types.CodeType) -> types.CodeType:
    """`code` with the nested code object at `path` replaced by `new`."""
    if not path:
        return new
    consts = list(code.co_consts)
    positions = [i for i, c in enumerate(consts) if isinstance(c, types.CodeType)]
    place = positions[path[0]]
    inner = consts[place]
    assert isinstance(inner, types.CodeType)
    consts[place] = replace_at(inner, path[1:], new)
    return code.replace(co_consts=tuple(consts))
