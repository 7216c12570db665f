"""Which code objects a mutant changes, and how a forked child puts them in place.

Parent side (`classify`): compile the original and the mutated module with
the real filename and walk both code-object trees in parallel. Functions whose
own code differs (line numbers aside) can be swapped in a forked child;
anything evaluated at import time (module level, class bodies, decorators,
default values, comprehensions outside functions) cannot, so those mutants go
to a fresh interpreter; except new literal default values of a module- or
class-level def, which the child sets on the live function (lab/prepare/default_values.py).
The mutated tree shipped to the child is compiled with an evidence marker,
`__guardcheck_seen__("qualname")`, as the first statement of every changed
function (same line number, so tracebacks are unchanged): a mutant may only
survive if a marker fired. A function that merely stops referencing an
enclosing variable (mutmut's `replace host with None`) gets a dead
`if False: host` so its free variables, and so its swap, stay possible.

Child side (`activate`): find the live function objects (an index of
`gc.get_objects()` built once in the host before forking), set their
`__code__`, and put the mutated text in linecache.
"""

from __future__ import annotations

import base64
import functools
import marshal
import types
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from guardcheck import messages
from guardcheck.child.codeswap import code_at, nested
from guardcheck.edit.samecode import identical, same_own_code
from guardcheck.edit.toplevel import common_prefix, common_suffix
from guardcheck.lab.prepare.default_values import NewDefaults, changed_defaults
from guardcheck.lab.prepare.instrument import (
    NoPlaceForMarker,
    View,
    instrument,
    keep_free_variables,
    narrowed,
    recompile,
    touched_part,
)
from guardcheck.lab.prepare.statements import LineRange, any_line_ran, changed_statements
from guardcheck.model import ExecutionPath, FileChange, Mutant

_COMPREHENSIONS = {"<listcomp>", "<setcomp>", "<dictcomp>", "<genexpr>"}
_CO_OPTIMIZED = 0x1

BOM = "\ufeff"
Path_ = tuple[int, ...]  # ordinal path of nested code objects, from the module code


class Unviable(Exception):
    """The mutated text does not compile."""


@dataclass(frozen=True)
class Swap:
    qualname: str
    at: Path_  # where the replacement sits in the mutated tree
    original: bytes  # marshalled original code: recognises the live functions to patch
    # marshalled (len(__defaults__), {index: value}, {name: value}) to set on them, or b""
    defaults: bytes = b""


@dataclass(frozen=True)
class FileActivation:
    path: str  # root-relative posix path
    filename: str  # absolute path both trees were compiled with
    mutated: str
    tree: bytes  # marshalled mutated module code with evidence markers
    swaps: tuple[Swap, ...]
    # (qualname, first and last line of its header in the original: co_firstlineno, which
    # is its first decorator's, to its body's first line) of each code object whose own
    # code changed. A copy a decorator compiled again without the decorators (typeguard's
    # @typechecked) starts inside that span, not on co_firstlineno.
    changed: tuple[tuple[str, int, int], ...] = ()
    reach: bool = False  # markers before the changed statements (lab/prepare/instrument.py)
    # The mutated text compiles to the original's code, positions included (`while 1:`
    # for `while 2:`): nothing the interpreter runs changed.
    equivalent: bool = False
    # Line ranges of the original's statements the change is in (lab/prepare/
    # statements.py); None when unknown, which counts as "ran at collection".
    statements: tuple[LineRange, ...] | None = None

    def to_message(self) -> messages.SwapFile:
        swaps = [
            messages.Swap(s.qualname, list(s.at), _b64(s.original), _b64(s.defaults))
            for s in self.swaps
        ]
        return messages.SwapFile(self.path, self.filename, self.mutated, _b64(self.tree), swaps)


@dataclass(frozen=True)
class Activation:
    mode: ExecutionPath
    why: str  # for FRESH: what a code swap cannot express
    files: tuple[FileActivation, ...] = ()
    # For FRESH: the test files (node ids) whose collection alone ran the changed code,
    # when that is all a fresh interpreter must redo (lab/plan.py); None: anything may
    # depend on it (module-level code, or code run at import).
    collected_in: tuple[str, ...] | None = None

    @property
    def equivalent(self) -> bool:
        """Every changed file runs exactly the original's code: only a test reading the
        source text could tell, so the tests' results are the baseline's."""
        return bool(self.files) and all(f.equivalent for f in self.files)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


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
    at_import: bool = False  # the problem is own code of the module or a class body
    # Functions that no longer reference some enclosing variables (`host` -> `None`):
    # (first line, name) -> the names, so the mutated code can keep its closure layout.
    lost_freevars: dict[tuple[int, str], set[str]] = field(default_factory=dict)
    # Functions a nested function, lambda or comprehension was removed from: below them
    # the mutated tree's positions no longer match the original's.
    removed_from: set[Path_] = field(default_factory=set)


def _walk(original: types.CodeType, mutated: types.CodeType, at: Path_, diff: _Diff) -> None:
    kind = _kind(mutated, len(at))
    diff.kinds[at] = kind
    if kind in ("function", "lambda"):
        diff.functions[at] = original
    inner_o, inner_m = nested(original), nested(mutated)
    where = mutated.co_qualname if at else "the module"
    pairs = _pairs(inner_o, inner_m, removable=kind in ("function", "lambda"))
    if pairs is None:
        diff.problem = diff.problem or (
            f"adds, removes or renames a function, class, lambda or comprehension in {where}"
        )
        return
    if len(pairs) < len(inner_o):
        diff.removed_from.add(at)
    if not same_own_code(original, mutated):
        if kind in ("module", "class") and diff.problem is None:
            diff.at_import = True  # perhaps only default values (lab/prepare/default_values.py)
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
        elif original.co_freevars != mutated.co_freevars and kind != "comprehension":
            # (A comprehension is made from its function's code at each call, with that
            # call's cells: swapping the function carries it. A change that reaches the
            # function's own free variables is found at the function.)
            if set(mutated.co_freevars) < set(original.co_freevars):  # a def or a lambda
                lost = set(original.co_freevars) - set(mutated.co_freevars)
                diff.lost_freevars[(mutated.co_firstlineno, mutated.co_name)] = lost
            else:
                diff.problem = diff.problem or f"closure variables of {where} changed"
        else:
            diff.changed[at] = mutated.co_qualname
    for index, (o, m) in enumerate(pairs):  # index: the position in the mutated tree
        _walk(o, m, (*at, index), diff)


def _pairs(
    inner_o: list[types.CodeType], inner_m: list[types.CodeType], *, removable: bool
) -> list[tuple[types.CodeType, types.CodeType]] | None:
    """Each mutated nested code object with its original, or None when they do not match.

    Inside a function a mutant may remove a nested def, lambda or comprehension
    (`replace lambda: info(...) with None`): its code is a constant of the
    function, made into a function object only when the function runs. The host
    runs no test, so a live one exists only if the function ran at import or
    collection, which `after_collection` sends to a fresh interpreter; otherwise
    swapping the function's code is enough. Anything added or renamed, or
    removed at module or class level, changes what exists at import time.
    """
    if [c.co_qualname for c in inner_o] == [c.co_qualname for c in inner_m]:
        return list(zip(inner_o, inner_m, strict=True))
    if not removable:
        return None
    pairs: list[tuple[types.CodeType, types.CodeType]] = []
    rest = iter(inner_m)
    wanted = next(rest, None)
    for code in inner_o:
        if wanted is not None and code.co_qualname == wanted.co_qualname:
            pairs.append((code, wanted))
            wanted = next(rest, None)
    return pairs if wanted is None else None


@functools.lru_cache(maxsize=8)
def _compile_original(source: str, filename: str) -> types.CodeType:
    # Every mutant of a file diffs against the same original: compile it once.
    return _compile(source, filename, "original")


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


def _diff(original: types.CodeType, mutated: types.CodeType) -> _Diff:
    diff = _Diff({}, {}, {})
    _walk(original, mutated, (), diff)
    return diff


def _classify_file(change: FileChange, root: Path, *, narrow: bool = True) -> FileActivation | str:
    path, original, mutated = change.path, change.original, change.mutated
    filename = str(root / path)
    whole_o = _compile_original(original, filename)
    bare_o, bare_m = original.removeprefix(BOM), mutated.removeprefix(BOM)
    view = narrowed(bare_o, bare_m, filename, _region(change), whole_o) if narrow else None
    if view is None:  # compile the whole mutated module (instrument.narrowed says when)
        tree_m = _compile(mutated, filename, "mutated text")
        view = View(whole_o, tree_m, touched_part(bare_o, bare_m, filename, tree_m))
    tree_o, tree_m, part = view.original, view.mutated, view.part
    # Judged on the mutated text's own code, before any dead reference is added to it.
    equivalent = identical(tree_o, tree_m)
    diff = _diff(tree_o, tree_m)
    if diff.lost_freevars:
        # First: a method that stops calling super() changes its class body only through
        # its closure (`__class__`), which the dead reference keeps.
        keep_free_variables(part.tree, diff.lost_freevars)
        kept_tree = recompile(part, tree_m, filename)
        kept = _diff(tree_o, kept_tree) if kept_tree is not None else None
        if kept is None or kept.lost_freevars:  # e.g. the name became a local
            names = ", ".join(sorted({n for names in diff.lost_freevars.values() for n in names}))
            return f"{path}: closure variables changed ({names} no longer referenced)"
        tree_m, diff = kept_tree, kept
    new_defaults: dict[Path_, bytes] = {}
    if diff.problem:
        found = changed_defaults(bare_o, bare_m, _region(change)) if diff.at_import else None
        if not found:
            return f"{path}: {diff.problem}"
        if view.narrowed:
            # The served module (not imported before the fork) must hold the new
            # defaults too: only the whole mutated module has them.
            return _classify_file(change, root, narrow=False)
        located = _locate(found, tree_m, diff.kinds)
        if located is None:
            return f"{path}: {diff.problem}"
        new_defaults = located
        diff.changed.update({at: code_at(tree_m, at).co_qualname for at in located})
    for at in diff.removed_from:
        # A function swapped from below there would be looked up by the wrong original.
        # (A comprehension is not swapped: it is made from its function's code each call.)
        below = [f for f in diff.functions if len(f) > len(at) and f[: len(at)] == at]
        if any(c[: len(f)] == f for f in below for c in diff.changed):
            return (
                f"{path}: changes inside {code_at(tree_m, at).co_qualname} after removing a "
                "nested function, lambda or comprehension from it"
            )
    defs: list[Path_] = []
    for at, qualname in diff.changed.items():
        nearest = _nearest_def(at, diff.kinds)
        if nearest is None:
            # Runs at import time, or is a lambda with no def around it to hold a marker.
            return f"{path}: {qualname} is a lambda or comprehension outside any def"
        defs.append(nearest)
    marked = [code_at(tree_m, at) for at in dict.fromkeys(defs)]
    try:
        reach = instrument(part, marked, _changed_lines(bare_o, bare_m))
    except NoPlaceForMarker as exc:
        raise Unviable(f"cannot place evidence markers in {exc}") from None
    instrumented = recompile(part, tree_m, filename)
    if instrumented is None:  # pragma: no cover - the same part mapped for the diff
        return f"{path}: the changed statements could not be compiled apart"
    shape = [(at, c.co_qualname) for at, c in _iter_codes(tree_m)]
    if shape != [(at, c.co_qualname) for at, c in _iter_codes(instrumented)]:
        raise Unviable(f"{path}: instrumenting changed the code structure")  # pragma: no cover
    # Every function on the way to a changed code object is swapped: the outer ones
    # so closures created from now on are mutated, the inner ones for closures alive
    # since before the fork (decorator wrappers, factories run at import).
    # The original code comes from the whole module: it must be the live functions' own.
    swaps = tuple(
        Swap(
            code.co_qualname,
            view.at(at),
            marshal.dumps(code_at(whole_o, view.at(at))),
            new_defaults.get(at, b""),
        )
        for at, code in diff.functions.items()
        if any(changed[: len(at)] == at for changed in diff.changed)
    )
    changed = tuple((q, *_header(code_at(tree_o, at))) for at, q in diff.changed.items())
    tree = marshal.dumps(view.whole(instrumented, whole_o))
    statements = changed_statements(bare_o, bare_m, _region(change))
    return FileActivation(
        path, filename, mutated, tree, swaps, changed, reach, equivalent, statements
    )


def _locate(
    found: tuple[NewDefaults, ...], tree: types.CodeType, kinds: dict[Path_, str]
) -> dict[Path_, bytes] | None:
    """Where each def with new defaults sits in `tree`, with its marshalled values."""
    located: dict[Path_, bytes] = {}
    for new in found:
        places = [
            at
            for at, code in _iter_codes(tree)
            if kinds.get(at) == "function"
            and (code.co_qualname, code.co_firstlineno) == (new.qualname, new.line)
        ]
        if len(places) != 1:  # pragma: no cover - the AST and the code agree on defs
            return None
        values = (new.count, dict(new.positional), dict(new.keyword))
        located[places[0]] = marshal.dumps(values)
    return located


def _changed_lines(original: str, mutated: str) -> tuple[int, int] | None:
    """The first and last line of the mutated text that differ from the original."""
    prefix = common_prefix(original, mutated)
    suffix = common_suffix(original, mutated, min(len(original), len(mutated)) - prefix)
    end = len(mutated) - suffix
    if end <= prefix:
        return None  # only a deletion: nothing of the mutated text to point at
    return mutated.count("\n", 0, prefix) + 1, mutated.count("\n", 0, end) + 1


def _region(change: FileChange) -> tuple[int, int] | None:
    """The part of the original (without its BOM) the splices replaced, if they say."""
    if not change.splices:
        return None
    start, end = change.splices[0].start, change.splices[-1].end
    if change.original.startswith(BOM):
        return (start - len(BOM), end - len(BOM)) if start else None
    return start, end


def classify(mutant: Mutant, root: Path, *, narrow: bool = True) -> Activation:
    """FORK when every change is inside function bodies, else FRESH with the reason.

    Raises Unviable when the mutated text does not compile. `narrow=False`
    compiles every mutated module whole (the narrowing's tests compare).
    """
    files: list[FileActivation] = []
    for change in mutant.changes:
        result = _classify_file(change, root, narrow=narrow)
        if isinstance(result, str):
            return Activation(ExecutionPath.FRESH, result)
        files.append(result)
    return Activation(ExecutionPath.FORK, "", tuple(files))


def _header(code: types.CodeType) -> tuple[int, int]:
    """From a function's first line (its first decorator's) to its body's first line."""
    later = [line for _, _, line in code.co_lines() if line and line > code.co_firstlineno]
    return code.co_firstlineno, min(later, default=code.co_firstlineno)


def _not_reached_early(file: FileActivation, lines: Mapping[str, Collection[int]] | None) -> bool:
    """Did none of the file's changed statements run before the first test?"""
    early = lines.get(file.path) if lines is not None else None
    if early is None or file.statements is None:
        return False  # not known: they may have
    return not any_line_ran(file.statements, early)


def after_collection(
    activation: Activation,
    ran: Collection[messages.RanFunction] | None,
    lines: Mapping[str, Collection[int]] | None = None,
) -> Activation:
    """FRESH for a FORK mutant whose changed code ran in the host before the first test.

    `ran` is the host's record of import and collection (None: it could not watch),
    `lines` the lines of each source file that ran then (None: not recorded).
    What that code computed then (an lru_cache warmed at import, a module-level
    table, a parametrize list) lives on in every forked child, made by the original;
    unless the changed statements themselves never ran then (lab/prepare/statements.py).
    """
    if activation.mode is not ExecutionPath.FORK or activation.equivalent:
        return activation  # (an equivalent mutant computed at import what the original did)
    if ran is None:
        return Activation(
            ExecutionPath.FRESH,
            "the host could not watch import and collection (another profiler was "
            "installed), so import-time work by the changed code cannot be ruled out",
        )
    during: dict[tuple[str, str], dict[int, set[str]]] = {}
    for r in ran:
        during.setdefault((r.path, r.qualname), {}).setdefault(r.line, set()).add(r.during)
    files: set[str] = set()
    ran_early: list[str] = []
    for file in activation.files:
        if _not_reached_early(file, lines):
            continue  # the functions ran then, the changed statements did not
        for qualname, first, last in file.changed:
            lines_ran = during.get((file.path, qualname), {})
            where = set().union(*(w for line, w in lines_ran.items() if first <= line <= last))
            if where:
                ran_early.append(f"{file.path}: {qualname}")
                files |= where
    if not ran_early:
        return activation
    if "" in files:
        return Activation(
            ExecutionPath.FRESH,
            f"{ran_early[0]} ran at import or collection time "
            "(its results would outlive a code swap)",
        )
    return Activation(
        ExecutionPath.FRESH,
        f"{ran_early[0]} ran while pytest collected {', '.join(sorted(files))} "
        "(its results would outlive a code swap)",
        activation.files,  # a code swap still puts it in place, before they are collected
        collected_in=tuple(sorted(files)),
    )
