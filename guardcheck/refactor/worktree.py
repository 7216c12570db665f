"""Today's source overlaid onto a worktree of the base revision (see guardcheck.gitbase).

The worktree then holds the base tests beside the current code.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from pathlib import Path

# What a copy of today's source leaves out: caches a run made, never source.
_NOT_SOURCE = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", ".hypothesis")


def overlay(source_root: Path, target_root: Path, paths: Iterable[str]) -> list[str]:
    """Replace each of `paths` under `target_root` with today's copy from `source_root`.

    A path that is gone today is removed from the target too. Returns the paths copied.
    """
    copied = []
    for relative in paths:
        here, there = source_root / relative, target_root / relative
        if there.is_dir() and not there.is_symlink():
            shutil.rmtree(there)
        elif there.exists() or there.is_symlink():
            there.unlink()
        if here.is_dir():
            shutil.copytree(here, there, ignore=_NOT_SOURCE, symlinks=True)
        elif here.is_file():
            there.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(here, there)
        else:
            continue
        copied.append(relative)
    return copied
