"""Notice a test reading a mutated file from disk, where the original still is.

The mutant lives in memory: imports, `runpy`, `linecache`, `inspect`,
tracebacks, doctests and Hypothesis all see it (child/importhook.py,
child/hypothesis_constants.py). A test that opens the source file itself
(reads its text, lints it, imports it by path around the import system) reads
the original, where the same test by hand would read the mutant. Its pass
then proves nothing: the read is reported like a process that could not be
followed, so a pass is `error`, while a kill stands (its control run confirms it).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from typing import Any

from guardcheck.child.sourcereads import opened_name


class DiskReads:
    """An audit hook on `open` of the given files; `found` maps test id -> why."""

    def __init__(self, paths: Iterable[str]) -> None:
        self._paths = {os.path.realpath(p) for p in paths}
        self._names = {os.path.basename(p) for p in self._paths}
        self.current = ""  # the running test's id ("" outside a test)
        self.found: dict[str, str] = {}
        if self._paths:
            sys.addaudithook(self._audit)  # for good: this process only runs this mutant

    def _audit(self, event: str, args: tuple[Any, ...]) -> None:
        name = opened_name(event, args)
        if name is None or os.path.basename(name) not in self._names:
            return
        real = os.path.realpath(name)
        if real in self._paths and self.current not in self.found:
            self.found[self.current] = (
                f"read {real} from disk, which holds the original (guardcheck keeps the "
                "mutant in memory)"
            )
