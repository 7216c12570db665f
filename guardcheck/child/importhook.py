"""A meta path finder that serves chosen modules from memory instead of from disk.

Used by the fresh-interpreter path (module-level mutations), by forked
children whose target module was not imported by the host before the fork,
and by the processes tests start (child/follow.py). Nothing is written to
disk: no source file, no .pyc.

The loader it hands out is a complete file loader for the module's real
path (`SourceFileLoader`): only the module's own source differs. So
`importlib.resources.files(pkg)` and `pkgutil.get_data` read the package's
real data files, `runpy.run_module` and `python -m pkg.cli` get the mutated
code from `get_code`, and `get_source`/`linecache` show the mutated text, as
they would with the mutant written into the file.
"""

from __future__ import annotations

import io
import linecache
import os
import sys
import tokenize
import types
from collections.abc import Callable, Sequence
from importlib.machinery import ModuleSpec, SourceFileLoader
from typing import Any


def cache_source(filename: str, source: str) -> None:
    """Make tracebacks and inspect show the mutated text (mtime None: never re-read)."""
    lines = source.splitlines(keepends=True)
    linecache.cache[filename] = (len(source), None, lines, filename)


class ServedLoader(SourceFileLoader):
    """The real file's loader, but its source and code are the mutant's."""

    def __init__(
        self, fullname: str, path: str, served: types.CodeType | str, owner: ServedModules
    ):
        super().__init__(fullname, path)
        self._served = served
        self._real = os.path.realpath(path)
        self._owner = owner

    def get_data(self, path: str) -> bytes:
        if os.path.realpath(path) == self._real and isinstance(self._served, str):
            return _encoded(self._served)
        return super().get_data(path)  # package data, other files: the real ones

    def get_code(self, fullname: str) -> types.CodeType:
        # Asked for the code to run it: by exec_module (an import) or by runpy (`-m`).
        self._owner.ran(self._real)
        if not isinstance(self._served, str):
            return self._served
        # A mutated file keeps its UTF-8 BOM; the compiler does not take it in a str.
        text = self._served.removeprefix("\ufeff")
        return compile(text, self.path, "exec", dont_inherit=True)

    def get_source(self, fullname: str) -> str | None:
        if isinstance(self._served, str):
            return self._served
        # A served code object's text is what the caller put in linecache, if anything.
        entry: tuple[Any, ...] | None = linecache.cache.get(self.path)
        if entry is not None and len(entry) == 4 and entry[1] is None:
            return "".join(entry[2])
        return super().get_source(fullname)

    def set_data(self, path: str, data: bytes, *, _mode: int = 0o666) -> None:  # type: ignore[override]
        return None  # never cache the mutant's bytecode

    def exec_module(self, module: types.ModuleType) -> None:
        if isinstance(self._served, str):
            cache_source(self.path, self._served)
        super().exec_module(module)


def _encoded(text: str) -> bytes:
    """The mutated text in its own declared encoding (its coding cookie, else UTF-8).

    Read from the text, not the file: opening the file would count as a test
    reading the original from disk (child/diskreads.py).
    """
    if text.startswith("\ufeff"):
        return text.removeprefix("\ufeff").encode("utf-8-sig")
    head = "".join(text.splitlines(keepends=True)[:2]).encode("ascii", errors="replace")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(head).readline)
    except SyntaxError:
        encoding = "utf-8"
    return text.encode(encoding)


class ServedModules:
    """Serves `modules` (real path -> code object or source text) to any import of them."""

    def __init__(
        self,
        modules: dict[str, types.CodeType | str],
        on_exec: Callable[[str], None] | None = None,
    ) -> None:
        self._modules = modules
        self.on_exec = on_exec  # settable: a forked worker reports to a file instead
        self._searching = False
        self.executed: list[str] = []  # real paths whose served code ran

    def install(self, before: object | None = None) -> None:
        """First on sys.meta_path, or just before `before` where that is on it: where it
        would be had it been installed when `before` was first."""
        finders = sys.meta_path
        finders.insert(finders.index(before) if before in finders else 0, self)

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
                spec: ModuleSpec | None = find(fullname, path, target)
                if spec is None:
                    continue
                real = os.path.realpath(spec.origin) if spec.origin else None
                if real is not None and real in self._modules and spec.origin is not None:
                    spec.loader = ServedLoader(fullname, spec.origin, self._modules[real], self)
                return spec
            return None
        finally:
            self._searching = False

    def ran(self, real: str) -> None:
        self.executed.append(real)
        if self.on_exec is not None:
            self.on_exec(real)
