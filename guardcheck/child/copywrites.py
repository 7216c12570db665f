"""Which tests write into the private copy of the project, in the baseline.

By hand every mutant starts from a fresh checkout. guardcheck's mutants share one
private copy (lab/sandbox/projectcopy.py), and two of them may run at once: a
test that rewrites a file of the project (a data file next to it, a golden
output) changes it for whatever runs beside it and after it. tomlkit 0.13.2's
`test_toml_file` writes `tests/examples/example.toml` and puts it back in a
`finally`; two of its runs at once left the file empty for every later mutant,
so 31 of them were `error`. The lab keeps a run of such a writer apart from
any run of a test that opens the same files, and puts the files back after it
(lab/execute/scheduler.py).

Seen through audit events: a file opened for writing, created, truncated,
removed or renamed, and folders made or removed, under the copy's root. The
copy's git metadata (`.git/`) and bytecode caches are not the project's files.
"""

from __future__ import annotations

import os
import sys

_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_TRUNC
# Event -> (the positions of the paths it changes, the positions of its dir_fd arguments).
# A path given relative to a dir_fd is not relative to the working directory: shutil.rmtree
# removes the files of a temporary folder by name that way (jinja2's tests), and taking
# those names as the copy's files kept unrelated runs apart.
_CHANGES: dict[str, tuple[tuple[int, ...], tuple[int, ...]]] = {
    "os.remove": ((0,), (1,)),
    "os.rmdir": ((0,), (1,)),
    "os.mkdir": ((0,), (2,)),
    "os.rename": ((0, 1), (2, 3)),
    "os.symlink": ((1,), (2,)),
    "os.truncate": ((0,), ()),
    "shutil.rmtree": ((0,), (1,)),
}
_NOT_THE_PROJECTS = frozenset({".git", "__pycache__", ".pytest_cache"})


def written_paths(event: str, args: tuple[object, ...]) -> list[object]:
    """The paths an audit event says are written, created or removed (maybe none)."""
    if event == "open":
        path, _mode, flags = args
        return [path] if isinstance(flags, int) and flags & _WRITE_FLAGS else []
    paths, dir_fds = _CHANGES.get(event, ((), ()))
    if any(len(args) > n and args[n] is not None for n in dir_fds):
        return []
    return [args[n] for n in paths if len(args) > n]


class CopyWrites:
    """Root-relative path -> the tests that changed it (`found`), and the tests that
    opened it at all (`opened`), from the moment it is made."""

    def __init__(self, root: str) -> None:
        self._root = os.path.realpath(root) + os.sep
        self.current = ""  # the running test's node id; "" between tests
        self.found: dict[str, set[str]] = {}
        self.opened: dict[str, set[str]] = {}
        sys.addaudithook(self._audit)

    def _audit(self, event: str, args: tuple[object, ...]) -> None:
        if not self.current:
            return
        if event == "open":  # one path to resolve, whether it was opened to write or not
            opened = self._relative(args[0])
            if opened is None:
                return
            self.opened.setdefault(opened, set()).add(self.current)
            changed = [opened] if written_paths(event, args) else []
        else:
            paths = written_paths(event, args)
            changed = [r for path in paths if (r := self._relative(path)) is not None]
        for relative in changed:
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
        return _listed(self.found)

    def opened_by_path(self) -> dict[str, list[str]]:
        return _listed(self.opened)


def _listed(found: dict[str, set[str]]) -> dict[str, list[str]]:
    return {path: sorted(tests) for path, tests in sorted(found.items())}
