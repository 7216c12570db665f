"""Which functions of the source roots the host ran before the first test.

Import and collection run once, in the host; a forked child inherits their
results (an `lru_cache` warmed at import, `TABLE = build_table()`, a
`parametrize` list built by a helper). Swapping a function's code in the child
cannot redo that work, so the lab must know which functions ran then and send
their mutants to a fresh interpreter.

cProfile is the mechanism: its hook is C, and with `builtins=False,
subcalls=False` it keeps one counter per code object and nothing else, so
collection pays a C call per Python call. Only the thread that started it is
seen (collection runs in one; a thread an import starts is not watched).

Each test file's collection (its import, its parametrize lists, its
`pytest_generate_tests`) is watched by a profile of its own, so the lab can tell
a function that only that file's collection ran: what it computed then lives in
that file's namespace and items, and only that file's tests (and those that call
it) can see it (lab/plan.py). A window in which another module of the project is
imported for the first time is not the file's alone (that module's top-level
code may have called the function, for everyone): it counts as global.
"""

from __future__ import annotations

import cProfile
import gc
import inspect
import os
import sys
import types
from typing import TYPE_CHECKING

from guardcheck import messages
from guardcheck.child.followcov import QUIET, measuring

if TYPE_CHECKING:
    from coverage import Coverage


class ImportWatch:
    """Started as the host plugin loads, stopped when the host takes over the test loop."""

    def __init__(self, root: str, source: list[str]) -> None:
        self._root = os.path.realpath(root)
        self._source = [os.path.realpath(s) for s in source]
        self._profile: cProfile.Profile | None = None
        # test file's node id -> its collection's profile; files whose windows imported
        # another project module (those count as global)
        self._windows: dict[str, cProfile.Profile] = {}
        self._shared: set[str] = set()
        self._open: list[tuple[str, set[str]]] = []  # (file, modules before it), nested
        self._current = ""
        self._coverage: Coverage | None = None  # records the lines, while watching
        # Root-relative path -> the lines of it that ran; None when not recorded.
        self.lines: dict[str, list[int]] | None = None

    def start(self) -> None:
        if sys.getprofile() is not None:
            return  # someone else profiles: we cannot watch, and stop() reports that
        if sys.gettrace() is None:  # (a debugger's or coverage's tracer: no lines)
            self._coverage = measuring(self._source)
            self._coverage.set_option("run:disable_warnings", QUIET)
            self._coverage.start()
        self._profile = cProfile.Profile(builtins=False, subcalls=False)
        self._profile.enable()

    def enter(self, nodeid: str, filename: str) -> None:
        """The collection of the test file `nodeid` (at `filename`) starts."""
        if self._profile is None:
            return
        self._open.append((os.path.realpath(filename), set(sys.modules)))
        if len(self._open) > 1:
            return  # a collector inside another's report: the outer file's window
        self._profile.disable()
        window = self._windows.setdefault(nodeid, cProfile.Profile(builtins=False, subcalls=False))
        self._current = nodeid
        window.enable()

    def leave(self) -> None:
        if self._profile is None or not self._open:
            return
        filename, before = self._open.pop()
        if self._open:
            return
        self._windows[self._current].disable()
        if self._imported_others(filename, before):
            self._shared.add(self._current)
        self._profile.enable()

    def stop(self) -> list[messages.RanFunction] | None:
        """The functions under the source roots that ran; None when nothing was watched."""
        if self._profile is None:
            return None
        self._profile.disable()
        self.lines = self._stop_lines()
        profiles = [("", self._profile)]
        profiles += [(k if k not in self._shared else "", w) for k, w in self._windows.items()]
        self._profile = None
        found: dict[tuple[str, str, int, str], None] = {}
        paths: dict[str, str | None] = {}  # co_filename -> root-relative path, if watched
        for during, profile in profiles:
            for entry in profile.getstats():
                code = entry.code
                if not isinstance(code, types.CodeType):
                    continue
                if code.co_filename not in paths:
                    paths[code.co_filename] = self._relative(code.co_filename)
                path = paths[code.co_filename]
                if path is not None:
                    found[(path, code.co_qualname, code.co_firstlineno, during)] = None
        return [messages.RanFunction(p, q, line, during) for p, q, line, during in found]

    def _stop_lines(self) -> dict[str, list[int]] | None:
        """The lines of each source file that ran; a file with a generator or coroutine
        left suspended is left out (its frame runs the original code on, past lines that
        had not run yet)."""
        if self._coverage is None:
            return None
        self._coverage.stop()
        data = self._coverage.get_data()
        self._coverage = None
        lines: dict[str, list[int]] = {}
        for filename in data.measured_files():
            path = self._relative(filename)
            if path is not None:
                lines[path] = sorted(data.lines(filename) or ())
        for path in self._suspended():
            lines.pop(path, None)
        return lines

    def _suspended(self) -> set[str]:
        """Source files with a generator, coroutine or async generator not done yet."""
        found: set[str] = set()
        for thing in gc.get_objects():
            if inspect.isgenerator(thing):
                frame, code = thing.gi_frame, thing.gi_code
            elif inspect.iscoroutine(thing):
                frame, code = thing.cr_frame, thing.cr_code
            elif inspect.isasyncgen(thing):
                frame, code = thing.ag_frame, thing.ag_code
            else:
                continue
            if frame is not None:  # (not yet started counts: it too runs the original)
                path = self._relative(code.co_filename)
                if path is not None:
                    found.add(path)
        return found

    def _imported_others(self, filename: str, before: set[str]) -> bool:
        """Did the window import a module of the project other than its own file?

        The packages the file itself sits in (`tests/__init__.py`) do not count
        unless they are source.
        """
        folder = os.path.dirname(filename)
        for name in set(sys.modules) - before:
            real = _real_file(sys.modules.get(name))
            if real is None or real == filename or not real.startswith(self._root + os.sep):
                continue
            package = os.path.basename(real) == "__init__.py"
            inside = folder == os.path.dirname(real) or folder.startswith(
                os.path.dirname(real) + os.sep
            )
            if package and inside and not self._in_source(real):
                continue
            return True
        return False

    def _in_source(self, real: str) -> bool:
        return any(real == s or real.startswith(s + os.sep) for s in self._source)

    def _relative(self, filename: str) -> str | None:
        real = os.path.realpath(filename)
        if not self._in_source(real):
            return None
        try:
            relative = os.path.relpath(real, self._root)
        except ValueError:
            return None
        return None if relative.startswith("..") else relative.replace(os.sep, "/")


def _real_file(module: types.ModuleType | None) -> str | None:
    filename = getattr(module, "__file__", None)
    return os.path.realpath(filename) if isinstance(filename, str) else None
