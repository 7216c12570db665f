"""Putting a mutant in place in a forked child: swap live functions' code.

Runs in the pytest host (`activate` just before forking, `Applied.undo`
right after). The live function objects are found through an index of
`gc.get_objects()` built once in the host; their `__code__` is set from the
marshalled tree the lab compiled (lab/prepare/classify.py), and the mutated text goes
into linecache so tracebacks show it.
"""

from __future__ import annotations

import base64
import builtins
import gc
import linecache
import marshal
import os
import sys
import types
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from guardcheck.child.importhook import ServedModules, cache_source
from guardcheck.child.preloaded import modules_from
from guardcheck.messages import MARKER, SwapFile

Path_ = tuple[int, ...]  # ordinal path of nested code objects, from the module code


class ActivationError(Exception):
    """The child could not put the mutant in place (live code does not match the original)."""


class NeedsFileOnDisk(ActivationError):
    """The live code is not what compiling the module's text gives; the mutant is in place
    as by hand only written on disk, where whatever made that code makes it again. The
    message says why, for the verdict's record."""


class RewrittenModule(NeedsFileOnDisk):
    """The module's live code is pytest's assertion rewrite of its text (a pytest plugin,
    a module given to `register_assert_rewrite`): a code swap compiled from the mutated
    text would run without that rewrite. With the mutant written on disk, pytest's own
    import hook rewrites it, as by hand."""


class RecompiledFunction(NeedsFileOnDisk):
    """Every live function of that name is a copy compiled again from the module's text
    when it was defined (typeguard's @typechecked compiles an instrumented copy from
    `inspect.getsource`): a swap compiled from the mutated text would drop what the
    decorator added. With the mutant written on disk, the decorator compiles it, as by
    hand."""


def nested(code: types.CodeType) -> list[types.CodeType]:
    return [c for c in code.co_consts if isinstance(c, types.CodeType)]


def code_at(tree: types.CodeType, at: Path_) -> types.CodeType:
    code = tree
    for index in at:
        code = nested(code)[index]
    return code


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
            os.path.realpath(path)
            for m in list(sys.modules.values())
            if isinstance(path := getattr(m, "__file__", None), str)
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
    # (function, its __defaults__, its __kwdefaults__) before new defaults were set
    defaults: list[tuple[types.FunctionType, Any, Any]] = field(default_factory=list)

    @property
    def reexecuted(self) -> list[str]:
        """Mutated files a test executed again from their served text (runpy, reload);
        the list grows as they do."""
        return self.finder.executed if self.finder is not None else []

    def undo(self) -> None:
        for function, code in reversed(self.codes):
            function.__code__ = code
        for function, positional, keyword in reversed(self.defaults):
            function.__defaults__, function.__kwdefaults__ = positional, keyword
        for filename, entry in self.lines.items():
            if entry is None:
                linecache.cache.pop(filename, None)
            else:
                linecache.cache[filename] = entry
        if self.finder is not None and self.finder in sys.meta_path:
            sys.meta_path.remove(self.finder)


class SwapEvidence:
    """Whether a swapped mutant ran: its evidence markers fired, or a test failed after a
    mutated file was executed again from its text. That text carries no markers, so it
    counts for a failing test only, whose kill a control run then confirms."""

    def __init__(self, seen: set[str], reexecuted: list[str]) -> None:
        self._seen = seen
        self._reexecuted = reexecuted
        self._failed_after: set[str] = set()

    def seen(self, failed: bool) -> bool:
        """Did it run by now? `failed`: the test that just ended failed."""
        if failed and self._reexecuted:
            self._failed_after.update(self._reexecuted)
            return True
        return bool(self._seen)

    def names(self) -> list[str]:
        return [*sorted(self._seen), *(f"re-executed {p}" for p in sorted(self._failed_after))]


def activate(files: list[SwapFile], live: LiveFunctions) -> Applied:
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
    file: SwapFile,
    live: LiveFunctions,
    applied: Applied,
    served: dict[str, types.CodeType | str],
) -> None:
    real = os.path.realpath(file.filename)
    filename = live.filename(real, file.filename)
    tree = marshal.loads(base64.b64decode(file.tree))
    if tree.co_filename != filename:
        tree = _refile(tree, filename)
    applied.lines.setdefault(filename, linecache.cache.get(filename))
    cache_source(filename, file.mutated)
    if not live.imported(real):
        served[real] = tree
        applied.notes.append(f"{file.path}: not imported before the fork; served on import")
        return
    # Imported already, but a test may execute the file again (`runpy.run_module`,
    # `importlib.reload`, a `del sys.modules[...]` then import): that reads the mutant,
    # as the file written by hand would. Its unmarked text is no evidence by itself.
    served[real] = file.mutated
    for swap in file.swaps:
        original = marshal.loads(base64.b64decode(swap.original))
        named = live.find(real, swap.qualname)
        targets = [f for f in named if f.__code__ == original]
        if not targets and "<locals>" not in swap.qualname:
            if assert_rewritten(real):
                raise RewrittenModule(
                    "pytest rewrites the asserts of its module as it imports it (a pytest "
                    "plugin, or a module given to register_assert_rewrite), so it runs with "
                    "the mutant written into the private copy, where pytest rewrites it"
                )
            if named:
                raise RecompiledFunction(
                    f"{swap.qualname} in {file.path} is a copy compiled again from the "
                    "module's text when it was defined (a decorator such as typeguard's "
                    "@typechecked), so it runs with the mutant written into the private "
                    "copy, where that decorator compiles it"
                )
            raise ActivationError(
                f"no live function {swap.qualname} in {file.path} matches the "
                "original text (file changed since the catalogue was read, or rewritten "
                "by pytest's assertion rewriting?)"
            )
        replacement = code_at(tree, tuple(swap.at))
        for function in targets:
            applied.codes.append((function, function.__code__))
            function.__code__ = replacement
        if swap.defaults:
            _set_defaults(targets, marshal.loads(base64.b64decode(swap.defaults)), applied)
            applied.notes.append(f"new defaults for {swap.qualname}")
        applied.notes.append(f"swapped {swap.qualname} ({len(targets)} live)")


def assert_rewritten(real: str) -> bool:
    """Whether the module imported from `real` came through pytest's assertion rewriting."""
    from _pytest.assertion.rewrite import AssertionRewritingHook  # pytest internals, pinned

    module = modules_from([real]).get(real)
    return isinstance(getattr(module, "__loader__", None), AssertionRewritingHook)


def _set_defaults(
    functions: list[types.FunctionType],
    values: tuple[int, dict[int, object], dict[str, object]],
    applied: Applied,
) -> None:
    """Give each function the mutant's default values (lab/prepare/default_values.py)."""
    count, positional, keyword = values
    for function in functions:
        old, old_keyword = function.__defaults__, function.__kwdefaults__
        if len(old or ()) != count or not set(keyword) <= set(old_keyword or {}):
            raise ActivationError(
                f"live function {function.__qualname__} has other default values than "
                "its def in the original text"
            )
        applied.defaults.append((function, old, old_keyword))
        new = list(old or ())
        for index, value in positional.items():
            new[index] = value
        function.__defaults__ = tuple(new)
        if keyword:
            function.__kwdefaults__ = {**(old_keyword or {}), **keyword}
