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
"""

from __future__ import annotations

import cProfile
import os
import sys
import types

from guardcheck import messages


class ImportWatch:
    """Started as the host plugin loads, stopped when the host takes over the test loop."""

    def __init__(self, root: str, source: list[str]) -> None:
        self._root = os.path.realpath(root)
        self._source = [os.path.realpath(s) for s in source]
        self._profile: cProfile.Profile | None = None

    def start(self) -> None:
        if sys.getprofile() is not None:
            return  # someone else profiles: we cannot watch, and stop() reports that
        self._profile = cProfile.Profile(builtins=False, subcalls=False)
        self._profile.enable()

    def stop(self) -> list[messages.RanFunction] | None:
        """The functions under the source roots that ran; None when nothing was watched."""
        if self._profile is None:
            return None
        self._profile.disable()
        codes = [e.code for e in self._profile.getstats() if isinstance(e.code, types.CodeType)]
        self._profile = None
        found: dict[tuple[str, str, int], None] = {}
        paths: dict[str, str | None] = {}  # co_filename -> root-relative path, if watched
        for code in codes:
            if code.co_filename not in paths:
                paths[code.co_filename] = self._relative(code.co_filename)
            path = paths[code.co_filename]
            if path is not None:
                found[(path, code.co_qualname, code.co_firstlineno)] = None
        return [messages.RanFunction(p, q, line) for p, q, line in found]

    def _relative(self, filename: str) -> str | None:
        real = os.path.realpath(filename)
        if not any(real == s or real.startswith(s + os.sep) for s in self._source):
            return None
        try:
            relative = os.path.relpath(real, self._root)
        except ValueError:
            return None
        return None if relative.startswith("..") else relative.replace(os.sep, "/")
