"""Scratch working directories that look like the project root but are not it.

A child runs with its working directory in a folder of symlinks to the root's
top-level entries: tests that read `data/x.json` relative to the working
directory still work, while files a test or a mutant creates by a relative
name (mutmut's string mutants made real `XX:memory:XX` sqlite files) land in
the scratch folder. The root here is the lab's private copy of the project
(lab/projectcopy.py), so writes *through* a symlinked folder reach that copy,
never the user's tree.

Folders are pooled: creating a mirror costs one symlink per top-level entry,
which measured 4 ms on a loaded ext4 /tmp; resetting a used one is a scandir.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Slot:
    cwd: Path  # the mirror of the root: the child's working directory
    tmp: Path  # the child's pytest basetemp


class Sandbox:
    def __init__(self, root: Path, skip: set[str], scratch: Path) -> None:
        self._root = root
        self._scratch = scratch
        # Listed once: a new slot only pays for the symlinks.
        self._names = sorted(name for name in os.listdir(root) if name not in skip)
        self._free: list[Slot] = []
        self._made = 0

    def take(self) -> Slot:
        if self._free:
            return self._free.pop()
        self._made += 1
        slot = Slot(self._scratch / f"cwd-{self._made}", self._scratch / f"tmp-{self._made}")
        self._mirror(slot.cwd)
        slot.tmp.mkdir()
        return slot

    def give_back(self, slot: Slot) -> None:
        """Undo whatever the child did to the slot, then pool it again."""
        self._reset(slot)
        self._free.append(slot)

    def _mirror(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        for name in self._names:
            os.symlink(self._root / name, folder / name)

    def _reset(self, slot: Slot) -> None:
        expected = set(self._names)
        try:
            with os.scandir(slot.cwd) as entries:
                for entry in entries:
                    if entry.name not in expected or not entry.is_symlink():
                        _delete(Path(entry.path))
                        continue
                    expected.discard(entry.name)
        except FileNotFoundError:  # the child removed its own working directory
            slot.cwd.mkdir(parents=True)
        for name in expected:  # a test unlinked or replaced a symlink: put it back
            os.symlink(self._root / name, slot.cwd / name)
        try:
            with os.scandir(slot.tmp) as entries:
                for entry in entries:
                    _delete(Path(entry.path))
        except FileNotFoundError:
            slot.tmp.mkdir(parents=True)


def _delete(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


def remove(folder: Path) -> None:
    """rmtree unlinks symlinks instead of following them, so the root is safe."""
    shutil.rmtree(folder, ignore_errors=True)
