"""A mutant written into the private copy's files, for the runs that read them from disk.

The lab keeps a mutant in memory: the host swaps code, fresh runs and followed
processes are served the mutated text. A test that opens a mutated file, or
runs it as a script by path, reads the disk instead, where the original is, so
such a run cannot prove anything (child/diskreads.py, child/follow.py). The
scheduler then runs that mutant once more in a fresh interpreter with its files
written into the private copy, as they would be by hand, while nothing else
runs (every run shares the copy), and restores them before anything else starts.

A restored file gets its original bytes and (atime, mtime) back, so the copy's
manifest (lab/sandbox/projectcopy.py) still matches it. A run killed with a
mutant on disk leaves a file whose mtime the manifest does not know: the next
run copies it again. Each mutant gets an mtime of its own (later than any
before it), so a bytecode cache written from one mutant's file is never valid
for the next mutant of the same size.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from guardcheck.model import Mutant
from guardcheck.splices import encode_source

_SECOND = 1_000_000_000  # pyc files record a source's mtime in whole seconds


class OnDisk:
    """Writes one mutant at a time into `root` and puts the originals back."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._saved: dict[Path, tuple[bytes, int, int]] = {}  # path -> bytes, atime, mtime
        self._last_mtime = 0

    @property
    def active(self) -> bool:
        return bool(self._saved)

    def write(self, mutant: Mutant) -> None:
        """The mutant's files as `guardcheck apply` would write them (in their encoding)."""
        self.restore()
        mtime = max(time.time_ns(), self._last_mtime + _SECOND)
        self._last_mtime = mtime
        for change in mutant.changes:
            path = self.root / change.path
            stat = path.stat()
            self._saved[path] = (path.read_bytes(), stat.st_atime_ns, stat.st_mtime_ns)
            path.write_bytes(encode_source(change.mutated))
            os.utime(path, ns=(stat.st_atime_ns, mtime))

    def restore(self) -> None:
        for path, (data, atime, mtime) in self._saved.items():
            path.write_bytes(data)
            os.utime(path, ns=(atime, mtime))
        self._saved.clear()
