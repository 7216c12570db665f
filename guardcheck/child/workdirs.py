"""Where a child works: the lab's private copy of the project, with a pytest basetemp
of its own.

A child runs with its working directory in the root (the private copy,
lab/sandbox/projectcopy.py), as a test runs in a checkout: real files and folders,
the copy's own `.git`, so `git status` in a test is as clean as in the user's
checkout, and a package the tests' subprocesses import from the working
directory is the same file the host imported (one location for every
module, which the mutant's import hook and the baseline's coverage rely on).
An earlier design gave each child a folder of symlinks to the root's entries
instead; git saw type changes there (`TT pyproject.toml`), which failed
baselines that plain pytest passes.

What a test writes by a relative name lands in the copy and stays for the
later children of the run (the next run resets the copy), as its writes
relative to `__file__` always did; two children running at once share it.

Slots are pooled: a slot is a basetemp folder, emptied when given back.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

LARGE = 8 << 20  # bytes: larger files stay out of the private copy's commit


@dataclass(frozen=True)
class Slot:
    cwd: Path  # the child's working directory: the root
    tmp: Path  # the child's pytest basetemp


class Sandbox:
    def __init__(self, root: Path, scratch: Path) -> None:
        self._root = root
        self._scratch = scratch
        self._free: list[Slot] = []
        self._made = 0

    def take(self) -> Slot:
        if self._free:
            return self._free.pop()
        self._made += 1
        slot = Slot(self._root, self._scratch / f"tmp-{self._made}")
        slot.tmp.mkdir(parents=True)
        return slot

    def give_back(self, slot: Slot) -> None:
        """Empty the slot's basetemp, then pool it again."""
        try:
            with os.scandir(slot.tmp) as entries:
                for entry in entries:
                    _delete(Path(entry.path))
        except FileNotFoundError:  # the child removed it
            slot.tmp.mkdir(parents=True)
        self._free.append(slot)


def _delete(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def remove(folder: Path) -> None:
    """rmtree unlinks symlinks instead of following them, so the root is safe."""
    shutil.rmtree(folder, ignore_errors=True)
