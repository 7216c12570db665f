"""A meta path finder that serves chosen modules from memory instead of from disk.

Used by the fresh-interpreter path (module-level mutations) and by forked
children whose target module was not imported by the host before the fork.
Nothing is written to disk: no source file, no .pyc.
"""

from __future__ import annotations

import importlib.abc
import linecache
import os
import sys
import types
from collections.abc import Callable, Sequence
from importlib.machinery import ModuleSpec


def cache_source(filename: str, source: str) -> None:
    """Make tracebacks and inspect show the mutated text (mtime None: never re-read)."""
    lines = source.splitlines(keepends=True)
    linecache.cache[filename] = (len(source), None, lines, filename)


class ServedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves `modules` (real path -> code object or source text) to any import of them."""

    def __init__(
        self,
        modules: dict[str, types.CodeType | str],
        on_exec: Callable[[str], None] | None = None,
    ) -> None:
        self._modules = modules
        self.on_exec = on_exec  # settable: a forked worker reports to a file instead
        self._names: dict[str, str] = {}  # module name -> real path
        self._searching = False
        self.executed: list[str] = []  # real paths whose served code ran

    def install(self) -> None:
        sys.meta_path.insert(0, self)

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: types.ModuleType | None = None,
    ) -> ModuleSpec | None:
        if self._searching:
            return None
        self._searching = True
        try:
            # Ask the other finders where the module lives; take over only our files,
            # keeping their spec (origin, package search locations) otherwise intact.
            for finder in sys.meta_path:
                find = getattr(finder, "find_spec", None)
                if finder is self or find is None:
                    continue
                spec = find(fullname, path, target)
                if spec is None:
                    continue
                real = os.path.realpath(spec.origin) if spec.origin else None
                if real in self._modules:
                    spec.loader = self
                    self._names[fullname] = real
                return spec
            return None
        finally:
            self._searching = False

    def create_module(self, spec: ModuleSpec) -> types.ModuleType | None:
        return None  # the default module object

    def exec_module(self, module: types.ModuleType) -> None:
        real = self._names[module.__name__]
        origin = module.__spec__.origin if module.__spec__ else real
        served = self._modules[real]
        if isinstance(served, str):
            cache_source(origin, served)
            # A mutated file keeps its UTF-8 BOM; the compiler does not take it in a str.
            code = compile(served.removeprefix("\ufeff"), origin, "exec", dont_inherit=True)
        else:
            code = served
        self.executed.append(real)
        if self.on_exec is not None:
            self.on_exec(real)
        exec(code, module.__dict__)

    def get_source(self, fullname: str) -> str | None:
        served = self._modules.get(self._names.get(fullname, ""))
        return served if isinstance(served, str) else None
