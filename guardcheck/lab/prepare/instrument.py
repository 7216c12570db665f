"""The mutated module as the child runs it: evidence markers, kept closure layouts.

Used by lab/prepare/classify.py once it knows which functions a mutant changes. Only
the top-level statements the change touches are parsed and compiled again
(`touched_part`, `recompile`): the rest of the module is the mutated code
already compiled for the diff. Parsing and compiling the whole module again per
mutant cost the parent more than running the mutant (bench/README.md).
"""

from __future__ import annotations

import ast
import collections
import contextlib
import types
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from guardcheck.child.codeswap import code_at, nested
from guardcheck.edit import toplevel
from guardcheck.edit.toplevel import BODIES, common_prefix, common_suffix
from guardcheck.lab.prepare import methodview
from guardcheck.messages import MARKER, REACHED

DefKey = tuple[int, str]  # (co_firstlineno, co_name): how a def's code object is found
Def = ast.FunctionDef | ast.AsyncFunctionDef


class NoPlaceForMarker(LookupError):
    """A changed function has no def in the mutated text to put a marker in."""


def _statements(nodes: Iterable[ast.AST]) -> Iterator[ast.AST]:
    for node in nodes:
        yield node
        for name in BODIES:
            inner = getattr(node, name, None)
            if isinstance(inner, list):
                yield from _statements(inner)


def _defs(nodes: Iterable[ast.AST]) -> Iterator[tuple[DefKey, Def]]:
    """Every def with a body, keyed as its code object is: (co_firstlineno, co_name)."""
    for node in _statements(nodes):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            yield (toplevel.first_line(node), node.name), node


def keep_free_variables(tree: ast.Module, lost: dict[DefKey, set[str]]) -> None:
    """Keep a dead reference to each enclosing variable a def or lambda stopped using.

    A live function's `__code__` only takes code with the same free variables, and
    the enclosing function's cells follow its closures' references. A def gets
    `if False: name` appended, a lambda's body `X` becomes `X if True else (name,)`:
    the compiler (3.11) emits no bytecode for either dead branch, but its symbol
    table still sees the names, so the mutated code keeps the original's
    co_freevars/co_cellvars and runs exactly the mutated code. Two lambdas on one
    line cannot be told apart: neither is touched (the mutant stays fresh).
    """
    for key, node in _defs(tree.body):
        names = lost.get(key)
        if not names:
            continue
        anchor = node.body[-1]
        refs = [ast.Expr(ast.Name(name, ast.Load())) for name in sorted(names)]
        dead = ast.If(ast.Constant(False), refs, [])
        for node_ in ast.walk(dead):
            ast.copy_location(node_, anchor)
        node.body.append(dead)
    lambdas: dict[DefKey, list[ast.Lambda]] = {}
    if any(name == "<lambda>" for _, name in lost):
        for node in ast.walk(tree):
            if isinstance(node, ast.Lambda):
                lambdas.setdefault((node.lineno, "<lambda>"), []).append(node)
    for key, found in lambdas.items():
        names = lost.get(key)
        if not names or len(found) != 1:
            continue
        (node,) = found
        refs = ast.Tuple([ast.Name(name, ast.Load()) for name in sorted(names)], ast.Load())
        body = ast.IfExp(ast.Constant(True), node.body, refs)
        for node_ in (body, body.test, refs, *refs.elts):
            ast.copy_location(node_, node.body)
        node.body = body


def _add_markers(node: Def, qualname: str, lines: tuple[int, int] | None) -> bool:
    """A marker first in the def (it was entered: the mutant is active), and one named
    `qualname + REACHED` before each innermost statement holding a changed line (the
    changed statement was reached, not only its function: a test may reach it only
    after an earlier test's setup, issue 22 case 9). False when no statement holds one
    (a deletion)."""
    spots = list(_innermost(node.body, *lines)) if lines else []
    for body, index in sorted(spots, key=lambda spot: (id(spot[0]), -spot[1])):
        body.insert(index, _marker_for(body[index], qualname + REACHED))
    _add_marker(node, qualname)
    return bool(spots)


def _innermost(
    statements: list[ast.stmt], first: int, last: int
) -> Iterator[tuple[list[ast.stmt], int]]:
    """(list, index) of each innermost statement whose lines meet first..last."""
    for index, statement in enumerate(statements):
        end = statement.end_lineno or statement.lineno
        if statement.lineno > last or end < first:
            continue
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            yield statements, index  # its own code: reached when the def runs
            continue
        inner = [spot for block in _blocks(statement) for spot in _innermost(block, first, last)]
        yield from inner or [(statements, index)]


def _blocks(statement: ast.stmt) -> Iterator[list[ast.stmt]]:
    for name in ("body", "orelse", "finalbody"):
        block = getattr(statement, name, None)
        if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
            yield block
    for handler in getattr(statement, "handlers", ()):
        yield handler.body
    for case in getattr(statement, "cases", ()):
        yield case.body


def _marker_for(anchor: ast.stmt, qualname: str) -> ast.Expr:
    call = ast.Call(ast.Name(MARKER, ast.Load()), [ast.Constant(qualname)], [])
    marker = ast.Expr(call)
    for node_ in (marker, call, call.func, *call.args):
        # Same line as the statement it precedes: tracebacks keep their line numbers.
        ast.copy_location(node_, anchor)
        node_.end_lineno, node_.end_col_offset = anchor.lineno, anchor.col_offset
    return marker


def _add_marker(node: Def, qualname: str) -> None:
    body = node.body
    docstring = (
        isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    )
    anchor = body[1] if docstring and len(body) > 1 else body[0]
    call = ast.Call(ast.Name(MARKER, ast.Load()), [ast.Constant(qualname)], [])
    marker = ast.Expr(call)
    for node_ in (marker, call, call.func, *call.args):
        # Same line as the statement it precedes: tracebacks keep their line numbers.
        ast.copy_location(node_, anchor)
        node_.end_lineno, node_.end_col_offset = anchor.lineno, anchor.col_offset
    body.insert(1 if docstring else 0, marker)


def _key(code: types.CodeType) -> tuple[str, int]:
    return code.co_qualname, code.co_firstlineno


@dataclass(frozen=True)
class Part:
    """The top-level statements of a mutated module that its change touches.

    `tree` holds them (at their own line numbers) after the module's imports,
    which change how code compiles. With `whole`, it is the
    entire module (the change could not be narrowed down).
    """

    tree: ast.Module
    whole: bool


def touched_part(original: str, mutated: str, filename: str, compiled: types.CodeType) -> Part:
    """Parse only the top-level statements of `mutated` that differ from `original`.

    Parsing a large module costs as much as compiling it, per mutant. Statements
    around the change are the same text, so the same code: scope never crosses a
    top-level statement (module-level names are globals in every function).
    """
    keys = [_key(c) for c in nested(compiled)]
    prefix = common_prefix(original, mutated)
    suffix = common_suffix(original, mutated, min(len(original), len(mutated)) - prefix)
    first = original.count("\n", 0, prefix) + 1
    last = original.count("\n", 0, len(original) - suffix) + 1
    shift = mutated.count("\n", 0, len(mutated) - suffix) + 1 - last
    outline = toplevel.outline(original)
    spans = [(a, b) for a, b in outline.spans if a <= last and b >= first]
    if len(set(keys)) == len(keys) and spans:
        start, end = spans[0][0], spans[-1][1] + shift
        lines = mutated.splitlines(keepends=True)
        # Leading newlines put every node at its line in the whole file.
        text = "\n" * (start - 1) + "".join(lines[start - 1 : end])
        with contextlib.suppress(SyntaxError):  # not whole statements after all
            body = [*outline.prelude, *ast.parse(text, filename).body]
            return Part(ast.Module(body=body, type_ignores=[]), whole=False)
    return Part(ast.parse(mutated, filename), whole=True)


def recompile(part: Part, compiled: types.CodeType, filename: str) -> types.CodeType | None:
    """`compiled` with the code objects of `part`'s statements compiled again from it.

    A top-level def or class compiles to the same code alone as in its module:
    names at module level are globals either way. None when the part's code
    objects do not map one to one onto `compiled`'s.
    """
    code = compile(part.tree, filename, "exec", dont_inherit=True)
    if part.whole:
        return code
    fresh = {_key(c): c for c in nested(code)}
    if not fresh.keys() <= {_key(c) for c in nested(compiled)}:
        return None
    consts = tuple(
        fresh.get(_key(c), c) if isinstance(c, types.CodeType) else c for c in compiled.co_consts
    )
    return compiled.replace(co_consts=consts)


def instrument(
    part: Part, marked: list[types.CodeType], lines: tuple[int, int] | None = None
) -> bool:
    """Put marker calls in each function listed in `marked` (in `part`'s tree): first in
    its body, and before the statements holding the mutated text's changed `lines`.
    True when statement markers were placed."""
    wanted = {(c.co_firstlineno, c.co_name): c.co_qualname for c in marked}
    reach = False
    for key, node in _defs(part.tree.body):
        qualname = wanted.pop(key, None)
        if qualname is not None:
            reach = _add_markers(node, qualname, lines) or reach
    if wanted:
        raise NoPlaceForMarker(", ".join(wanted.values()))
    return reach


@dataclass(frozen=True)
class View:
    """A mutant's original and mutated code, whole or narrowed to its touched statements.

    Classification diffs `original` against `mutated` and instruments `part`, in
    the view's own coordinates; `at` and `whole` take its results back to the
    whole module's (the identity for a whole view).
    """

    original: types.CodeType
    mutated: types.CodeType
    part: Part
    # Index in the whole module's nested code objects of each of the view's; None: whole.
    places: tuple[int, ...] | None = None
    # A method in stubs of its classes (lab/prepare/methodview.py): its path in the whole module.
    # The view's classes and the method are each the only code object of their parent.
    method: tuple[int, ...] | None = None

    @property
    def narrowed(self) -> bool:
        return self.places is not None or self.method is not None

    def at(self, path: tuple[int, ...]) -> tuple[int, ...]:
        if self.method is not None:
            return (*self.method[: len(path)], *path[len(self.method) :])
        if self.places is None or not path:
            return path
        return (self.places[path[0]], *path[1:])

    def whole(self, code: types.CodeType, base: types.CodeType) -> types.CodeType:
        """`base` (the whole original module) with `code`'s statements in place."""
        if self.method is not None:
            inner = code_at(code, (0,) * len(self.method))
            return methodview.replace_at(base, self.method, inner)
        if self.places is None:
            return code
        consts = list(base.co_consts)
        positions = _index(base).positions
        for place, inner in zip(self.places, nested(code), strict=True):
            consts[positions[place]] = inner
        return base.replace(co_consts=tuple(consts))


@dataclass(frozen=True)
class _Index:
    module: types.CodeType  # kept alive, so its id is not reused while it is cached
    positions: tuple[int, ...]  # where in co_consts each nested code object sits
    places: dict[tuple[str, int], int]  # (qualname, first line) -> nested index, if unique


# By identity: hashing a code object hashes all of its nested code, per lookup.
_INDEXES: dict[int, _Index] = {}


def _index(module: types.CodeType) -> _Index:
    found = _INDEXES.get(id(module))
    if found is None or found.module is not module:
        if len(_INDEXES) >= 8:
            _INDEXES.clear()
        keys = [_key(c) for c in nested(module)]
        once = {key for key, count in collections.Counter(keys).items() if count == 1}
        found = _Index(
            module,
            tuple(i for i, c in enumerate(module.co_consts) if isinstance(c, types.CodeType)),
            {key: index for index, key in enumerate(keys) if key in once},
        )
        _INDEXES[id(module)] = found
    return found


# The original statements a mutant touches, compiled once for all the mutants of them
# (a class's methods share one).
_ORIGINAL_PARTS: toplevel.PerOutline[types.CodeType] = toplevel.PerOutline()


def _original_part(
    found: toplevel.Outline, touched: toplevel.Touched, filename: str
) -> types.CodeType:
    def make() -> types.CodeType:
        before = toplevel.part_module(found, touched.original(found), imports=True)
        return compile(before, filename, "exec", dont_inherit=True)

    return _ORIGINAL_PARTS.get(found, (touched.first, touched.last, filename), make)


def narrowed(
    original: str,
    mutated: str,
    filename: str,
    changed: tuple[int, int] | None,
    compiled: types.CodeType,
) -> View | None:
    """A view of only the top-level statements the change touches (texts without a BOM).

    `compiled` is the whole original module. None when the whole module must be
    compiled instead: edit/toplevel.py cannot narrow the change; it moves lines
    (every later code object would move with it); the touched statements do not
    compile alone (the whole module says why); or their code objects do not map
    one to one onto the module's by (qualname, first line).
    """
    method = methodview.method_part(original, mutated, changed, compiled)
    if method is not None:
        view = _method_view(toplevel.outline(original), method, filename)
        if view is not None:
            return view
    touched = toplevel.touched(original, mutated, changed)
    if touched is None or touched.shift:
        return None
    found = toplevel.outline(original)
    after = toplevel.part_module(found, touched.statements, imports=True)
    try:
        code_o = _original_part(found, touched, filename)
        code_m = compile(after, filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return None
    index = _index(compiled).places
    places = [index.get(_key(c)) for c in nested(code_o)]
    if None in places or places != [index.get(_key(c)) for c in nested(code_m)]:
        return None
    return View(code_o, code_m, Part(after, whole=True), tuple(p for p in places if p is not None))


# The original method in stubs of its classes, compiled once for all the mutants of it.
_ORIGINAL_METHODS: toplevel.PerOutline[types.CodeType] = toplevel.PerOutline()


def _method_view(
    found: toplevel.Outline, method: methodview.MethodPart, filename: str
) -> View | None:
    def make() -> types.CodeType:
        return compile(method.original, filename, "exec", dont_inherit=True)

    try:
        code_o = _ORIGINAL_METHODS.get(found, (method.first, method.last, filename), make)
        code_m = compile(method.mutated, filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return None
    return View(code_o, code_m, Part(method.mutated, whole=True), method=method.whole_path)
