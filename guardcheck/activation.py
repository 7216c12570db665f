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
import builtins
import gc
import linecache
import marshal
import os
import sys
import types
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from guardcheck.importhook import ServedModules, cache_source
from guardcheck.model import Mutant

MARKER = "__guardcheck_seen__"
FORK = "fork"
SUBPROCESS = "subprocess"
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

Path_ = tuple[int, ...]  # ordinal path of nested code objects, from the module code


class Unviable(Exception):
    """The mutated text does not compile."""


class ActivationError(Exception):
    """The child could not put the mutant in place (live code does not match the original)."""


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

    def to_wire(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "filename": self.filename,
            "mutated": self.mutated,
            "tree": base64.b64encode(self.tree).decode(),
            "swaps": [
                {"qualname": s.qualname, "at": list(s.at), "original": _b64(s.original)}
                for s in self.swaps
            ],
        }


@dataclass(frozen=True)
class Activation:
    mode: str  # FORK or SUBPROCESS
    why: str  # for SUBPROCESS: what a code swap cannot express
    files: tuple[FileActivation, ...] = ()


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


# --- parent side: classification -------------------------------------------


def _nested(code: types.CodeType) -> list[types.CodeType]:
    return [c for c in code.co_consts if isinstance(c, types.CodeType)]


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
    inner_o, inner_m = _nested(original), _nested(mutated)
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
        return compile(source, filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:
        raise Unviable(f"{what} of {filename} does not compile: {exc}") from None


def _nearest_def(at: Path_, kinds: dict[Path_, str]) -> Path_ | None:
    """The innermost def enclosing (or being) the code at `at`: where a marker can go."""
    for depth in range(len(at), 0, -1):
        if kinds.get(at[:depth]) == "function":
            return at[:depth]
    return None


def code_at(tree: types.CodeType, at: Path_) -> types.CodeType:
    code = tree
    for index in at:
        code = _nested(code)[index]
    return code


def _iter_codes(code: types.CodeType, at: Path_ = ()) -> Iterator[tuple[Path_, types.CodeType]]:
    yield at, code
    for index, inner in enumerate(_nested(code)):
        yield from _iter_codes(inner, (*at, index))


def _instrument(mutated: str, filename: str, marked: list[types.CodeType]) -> types.CodeType:
    """Compile `mutated` with a marker call first in each function listed in `marked`."""
    tree = ast.parse(mutated, filename)
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
    return FileActivation(path, filename, mutated, marshal.dumps(instrumented), swaps)


def classify(mutant: Mutant, root: Path) -> Activation:
    """FORK when every change is inside function bodies, else SUBPROCESS with the reason.

    Raises Unviable when the mutated text does not compile.
    """
    files: list[FileActivation] = []
    for change in mutant.changes:
        result = _classify_file(change.path, change.original, change.mutated, root)
        if isinstance(result, str):
            return Activation(SUBPROCESS, result)
        files.append(result)
    return Activation(FORK, "", tuple(files))


# --- child side: swapping in a forked child ----------------------------------


class LiveFunctions:
    """Every function object alive in the host, by (real path of its file, qualname).

    Built once, in the host, before forking: children inherit it for free.
    Functions reached only through staticmethod/classmethod, decorators'
    `__wrapped__` or closures are all plain function objects tracked by gc.
    """

    def __init__(self) -> None:
        by_filename: dict[str, list[types.FunctionType]] = defaultdict(list)
        for obj in gc.get_objects():
            if isinstance(obj, types.FunctionType):
                by_filename[obj.__code__.co_filename].append(obj)
        self._index: dict[str, dict[str, list[types.FunctionType]]] = {}
        self._filenames: dict[str, str] = {}  # real path -> co_filename the host used
        for filename, functions in by_filename.items():
            real = os.path.realpath(filename)
            self._filenames.setdefault(real, filename)
            by_name = self._index.setdefault(real, defaultdict(list))
            for function in functions:
                by_name[function.__code__.co_qualname].append(function)
        self._modules = {
            os.path.realpath(m.__file__)
            for m in list(sys.modules.values())
            if isinstance(getattr(m, "__file__", None), str)
        }

    def imported(self, real: str) -> bool:
        return real in self._modules or real in self._index

    def filename(self, real: str, default: str) -> str:
        return self._filenames.get(real, default)

    def find(self, real: str, qualname: str) -> list[types.FunctionType]:
        return self._index.get(real, {}).get(qualname, [])


def _refile(code: types.CodeType, filename: str) -> types.CodeType:
    consts = tuple(
        _refile(c, filename) if isinstance(c, types.CodeType) else c for c in code.co_consts
    )
    return code.replace(co_filename=filename, co_consts=consts)


def install_marker() -> set[str]:
    """The set the evidence markers add to (a C-level call: no tracing overhead)."""
    seen: set[str] = set()
    setattr(builtins, MARKER, seen.add)
    return seen


@dataclass
class Applied:
    """A mutant put in place in the host just before forking; `undo` right after."""

    notes: list[str]
    codes: list[tuple[types.FunctionType, types.CodeType]]
    lines: dict[str, Any]  # linecache entries replaced (None: there was none)
    finder: ServedModules | None = None

    def undo(self) -> None:
        for function, code in reversed(self.codes):
            function.__code__ = code
        for filename, entry in self.lines.items():
            if entry is None:
                linecache.cache.pop(filename, None)
            else:
                linecache.cache[filename] = entry
        if self.finder is not None and self.finder in sys.meta_path:
            sys.meta_path.remove(self.finder)


def activate(files: list[dict[str, Any]], live: LiveFunctions) -> Applied:
    """Put the mutant in place in this process: swap code, serve unimported modules.

    The host calls it right before forking and undoes it right after, so each
    child starts with the mutant active and pays nothing for it. Modules the
    host never imported are served from memory by an import hook instead, so a
    test importing them lazily still gets the mutated code.
    """
    applied = Applied([], [], {})
    served: dict[str, types.CodeType | str] = {}
    try:
        for file in files:
            _activate_file(file, live, applied, served)
    except BaseException:
        applied.undo()
        raise
    if served:
        applied.finder = ServedModules(served)
        applied.finder.install()
    return applied


def _activate_file(
    file: dict[str, Any],
    live: LiveFunctions,
    applied: Applied,
    served: dict[str, types.CodeType | str],
) -> None:
    real = os.path.realpath(file["filename"])
    filename = live.filename(real, file["filename"])
    tree = marshal.loads(base64.b64decode(file["tree"]))
    if tree.co_filename != filename:
        tree = _refile(tree, filename)
    applied.lines.setdefault(filename, linecache.cache.get(filename))
    cache_source(filename, file["mutated"])
    if not live.imported(real):
        served[real] = tree
        applied.notes.append(f"{file['path']}: not imported before the fork; served on import")
        return
    for swap in file["swaps"]:
        original = marshal.loads(base64.b64decode(swap["original"]))
        targets = [f for f in live.find(real, swap["qualname"]) if f.__code__ == original]
        if not targets and "<locals>" not in swap["qualname"]:
            raise ActivationError(
                f"no live function {swap['qualname']} in {file['path']} matches the "
                "original text (file changed since the catalogue was read, or rewritten "
                "by pytest's assertion rewriting?)"
            )
        replacement = code_at(tree, tuple(swap["at"]))
        for function in targets:
            applied.codes.append((function, function.__code__))
            function.__code__ = replacement
        applied.notes.append(f"swapped {swap['qualname']} ({len(targets)} live)")
