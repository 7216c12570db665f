"""Which tests write into the private copy of the project, in the baseline.

By hand every mutant starts from a fresh checkout. guardcheck's mutants share one
private copy (lab/sandbox/projectcopy.py), and two of them may run at once: a
test that rewrites a file of the project (a data file next to it, a golden
output) changes it for whatever runs beside it and after it. tomlkit 0.13.2's
`test_toml_file` writes `tests/examples/example.toml` and puts it back in a
`finally`; two of its runs at once left the file empty for every later mutant,
so 31 of them were `error`. The lab runs a mutant whose tests include such a
writer alone, and puts the files it wrote back afterwards
(lab/execute/scheduler.py).

Seen through audit events: a file opened for writing, created, truncated,
removed or renamed, and folders made or removed, under the copy's root. The
copy's git metadata (`.git/`) and bytecode caches are not the project's files.
"""

from __future__ import annotations

import os
import sys

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC
# Events whose first argument is a path the call changes (the second too for a rename).
_CHANGES = frozenset(
    {"os.remove", "os.rmdir", "os.mkdir", "os.truncate", "shutil.rmtree", "os.symlink"}
)
_NOT_THE_PROJECTS = frozenset({".git", "__pycache__", ".pytest_cache"})


def written_paths(event: str, args: tuple[object, ...]) -> list[object]:
    """The paths an audit event says are written, created or removed (maybe none)."""
    if event == "open":
        path, _mode, flags = args
        return [path] if isinstance(flags, int) and flags & _WRITE_FLAGS else []
    if event == "os.rename":
        return list(args[:2])
    if event in _CHANGES:
        return list(args[:1])
    return []


class CopyWrites:
    """Root-relative path -> the tests that changed it, from the moment it is made."""

    def __init__(self, root: str) -> None:
        self._root = os.path.realpath(root) + os.sep
        self.current = ""  # the running test's node id; "" between tests
        self.found: dict[str, set[str]] = {}
        sys.addaudithook(self._audit)

    def _audit(self, event: str, args: tuple[object, ...]) -> None:
        if not self.current:
            return
        for path in written_paths(event, args):
            relative = self._relative(path)
            if relative is not None:
                self.found.setdefault(relative, set()).add(self.current)

    def _relative(self, path: object) -> str | None:
        if not isinstance(path, str | bytes | os.PathLike):
            return None  # a file descriptor: opened (and seen) before
        try:
            real = os.path.realpath(os.fsdecode(path))
        except (TypeError, ValueError, OSError):
            return None
        if not real.startswith(self._root):
            return None
        relative = real[len(self._root) :]
        if _NOT_THE_PROJECTS.intersection(relative.split(os.sep)):
            return None
        return relative

    def by_path(self) -> dict[str, list[str]]:
        return {path: sorted(tests) for path, tests in sorted(self.found.items())}
