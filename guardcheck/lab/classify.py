"""Which code objects a mutant changes, and how a forked child puts them in place.

Parent side (`classify`): compile the original and the mutated module with
the real filename and walk both code-object trees in parallel. Functions whose
own code differs (line numbers aside) can be swapped in a forked child;
anything evaluated at import time (module level, class bodies, decorators,
default values, comprehensions outside functions) cannot, so those mutants go
to a fresh interpreter. The mutated tree shipped to the child is compiled with
an evidence marker, `__guardcheck_seen__("qualname")`, as the first statement
of every changed function (same line number, so tracebacks are unchanged):
a mutant may only survive if a marker fired.

Child side (`activate`): find the live function objects (an index of
`gc.get_objects()` built once in the host before forking), set their
`__code__`, and put the mutated text in linecache.
"""

from __future__ import annotations

import ast
import base64
import marshal
import types
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from pathlib import Path

from guardcheck import messages
from guardcheck.child.codeswap import code_at, nested
from guardcheck.messages import MARKER
from guardcheck.model import ExecutionPath, Mutant

_COMPREHENSIONS = {"<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>"}
_CO_OPTIMIZED = 0x1
_OWN_FIELDS = (
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

BOM = "\ufeff"
Path_ = tuple[int, ...]  # ordinal path of nested code objects, from the module code


class Unviable(Exception):
    """The mutated text does not compile."""


@dataclass(frozen=True)
class Swap:
    qualname: str
    at: Path_  # where the replacement sits in the mutated tree
    original: bytes  # marshalled original code: recognises the live functions to patch


@dataclass(frozen=True)
class FileActivation:
    path: str  # root-relative posix path
    filename: str  # absolute path both trees were compiled with
    mutated: str
    tree: bytes  # marshalled mutated module code with evidence markers
    swaps: tuple[Swap, ...]
    # (qualname, co_firstlineno in the original) of each code object whose own code changed
    changed: tuple[tuple[str, int], ...] = ()

    def to_message(self) -> messages.SwapFile:
        swaps = [messages.Swap(s.qualname, list(s.at), _b64(s.original)) for s in self.swaps]
        return messages.SwapFile(self.path, self.filename, self.mutated, _b64(self.tree), swaps)


@dataclass(frozen=True)
class Activation:
    mode: ExecutionPath
    why: str  # for FRESH: what a code swap cannot express
    files: tuple[FileActivation, ...] = ()


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _const_key(value: object) -> object:
    # Type-aware: (1,) == (True,) == (1.0,) in Python, but they are different mutants.
    if isinstance(value, types.CodeType):
        return ("code", value.co_qualname)
    if isinstance(value, tuple | frozenset):
        return (type(value).__name__, tuple(_const_key(v) for v in value))
    return (type(value).__name__, repr(value))


def _same_own_code(a: types.CodeType, b: types.CodeType) -> bool:
    """Equal apart from line numbers and the contents of nested code objects."""
    if any(getattr(a, name) != getattr(b, name) for name in _OWN_FIELDS):
        return False
    return [_const_key(c) for c in a.co_consts] == [_const_key(c) for c in b.co_consts]


def _kind(code: types.CodeType, depth: int) -> str:
    if depth == 0:
        return "module"
    if not code.co_flags & _CO_OPTIMIZED:
        return "class"
    if code.co_name in _COMPREHENSIONS:
        return "comprehension"
    return "lambda" if code.co_name == "<lambda>" else "function"


@dataclass
class _Diff:
    changed: dict[Path_, str]  # self-changed code -> qualname
    functions: dict[Path_, types.CodeType]  # every function (def/lambda) of the original
    kinds: dict[Path_, str]
    problem: str | None = None


def _walk(original: types.CodeType, mutated: types.CodeType, at: Path_, diff: _Diff) -> None:
    kind = _kind(mutated, len(at))
    diff.kinds[at] = kind
    if kind in ("function", "lambda"):
        diff.functions[at] = original
    inner_o, inner_m = nested(original), nested(mutated)
    where = mutated.co_qualname if at else "the module"
    if [c.co_qualname for c in inner_o] != [c.co_qualname for c in inner_m]:
        diff.problem = diff.problem or (
            f"adds, removes or renames a function, class, lambda or comprehension in {where}"
        )
        return
    if not _same_own_code(original, mutated):
        if kind == "module":
            diff.problem = diff.problem or (
                "module-level code changed (imports, constants, decorators, default values "
                "or signatures are evaluated at import time)"
            )
        elif kind == "class":
            diff.problem = diff.problem or (
                f"class body of {where} changed (class attributes, decorators or default "
                "values are evaluated at import time)"
            )
        elif original.co_freevars != mutated.co_freevars:
            diff.problem = diff.problem or f"closure variables of {where} changed"
        else:
            diff.changed[at] = mutated.co_qualname
    for index, (o, m) in enumerate(zip(inner_o, inner_m, strict=True)):
        _walk(o, m, (*at, index), diff)


def _compile(source: str, filename: str, what: str) -> types.CodeType:
    try:
        # A UTF-8 BOM stays in the text (apply writes it back); the compiler wants it gone.
        return compile(source.removeprefix(BOM), filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        raise Unviable(f"{what} of {filename} does not compile: {exc}") from None


def _nearest_def(at: Path_, kinds: dict[Path_, str]) -> Path_ | None:
    """The innermost def enclosing (or being) the code at `at`: where a marker can go."""
    for depth in range(len(at), 0, -1):
        if kinds.get(at[:depth]) == "function":
            return at[:depth]
    return None


def _iter_codes(code: types.CodeType, at: Path_ = ()) -> Iterator[tuple[Path_, types.CodeType]]:
    yield at, code
    for index, inner in enumerate(nested(code)):
        yield from _iter_codes(inner, (*at, index))


def _instrument(mutated: str, filename: str, marked: list[types.CodeType]) -> types.CodeType:
    """Compile `mutated` with a marker call first in each function listed in `marked`."""
    tree = ast.parse(mutated.removeprefix(BOM), filename)
    wanted = {(c.co_firstlineno, c.co_name): c.co_qualname for c in marked}
    for node in ast.walk(tree):
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) or not node.body:
            continue
        first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
        qualname = wanted.pop((first, node.name), None)
        if qualname is None:
            continue
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
            ast.copy_location(node_, anchor)
            node_.end_lineno, node_.end_col_offset = anchor.lineno, anchor.col_offset
        body.insert(1 if docstring else 0, marker)
    if wanted:
        raise Unviable(f"cannot place evidence markers in {', '.join(wanted.values())}")
    return compile(tree, filename, "exec", dont_inherit=True)


def _classify_file(path: str, original: str, mutated: str, root: Path) -> FileActivation | str:
    filename = str(root / path)
    tree_o = _compile(original, filename, "original")
    tree_m = _compile(mutated, filename, "mutated text")
    diff = _Diff({}, {}, {})
    _walk(tree_o, tree_m, (), diff)
    if diff.problem:
        return f"{path}: {diff.problem}"
    defs: list[Path_] = []
    for at, qualname in diff.changed.items():
        nearest = _nearest_def(at, diff.kinds)
        if nearest is None:
            # Runs at import time, or is a lambda with no def around it to hold a marker.
            return f"{path}: {qualname} is a lambda or comprehension outside any def"
        defs.append(nearest)
    marked = [code_at(tree_m, at) for at in dict.fromkeys(defs)]
    instrumented = _instrument(mutated, filename, marked)
    shape = [(at, c.co_qualname) for at, c in _iter_codes(tree_m)]
    if shape != [(at, c.co_qualname) for at, c in _iter_codes(instrumented)]:
        raise Unviable(f"{path}: instrumenting changed the code structure")  # pragma: no cover
    # Every function on the way to a changed code object is swapped: the outer ones
    # so closures created from now on are mutated, the inner ones for closures alive
    # since before the fork (decorator wrappers, factories run at import).
    swaps = tuple(
        Swap(code.co_qualname, at, marshal.dumps(code))
        for at, code in diff.functions.items()
        if any(changed[: len(at)] == at for changed in diff.changed)
    )
    changed = tuple((q, code_at(tree_o, at).co_firstlineno) for at, q in diff.changed.items())
    return FileActivation(path, filename, mutated, marshal.dumps(instrumented), swaps, changed)


def classify(mutant: Mutant, root: Path) -> Activation:
    """FORK when every change is inside function bodies, else FRESH with the reason.

    Raises Unviable when the mutated text does not compile.
    """
    files: list[FileActivation] = []
    for change in mutant.changes:
        result = _classify_file(change.path, change.original, change.mutated, root)
        if isinstance(result, str):
            return Activation(ExecutionPath.FRESH, result)
        files.append(result)
    return Activation(ExecutionPath.FORK, "", tuple(files))


def after_collection(
    activation: Activation, ran: Collection[messages.RanFunction] | None
) -> Activation:
    """FRESH for a FORK mutant whose changed code ran in the host before the first test.

    `ran` is the host's record of import and collection (None: it could not watch).
    What that code computed then (an lru_cache warmed at import, a module-level
    table, a parametrize list) lives on in every forked child, made by the original.
    """
    if activation.mode is not ExecutionPath.FORK:
        return activation
    if ran is None:
        return Activation(
            ExecutionPath.FRESH,
            "the host could not watch import and collection (another profiler was "
            "installed), so import-time work by the changed code cannot be ruled out",
        )
    seen = {(r.path, r.qualname, r.line) for r in ran}
    for file in activation.files:
        for qualname, line in file.changed:
            if (file.path, qualname, line) in seen:
                return Activation(
                    ExecutionPath.FRESH,
                    f"{file.path}: {qualname} ran at import or collection time "
                    "(its results would outlive a code swap)",
                )
    return activation
