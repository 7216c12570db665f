"""Which files `lint-tests` reads: the test modules and conftest.py files under the paths."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from fnmatch import fnmatch
from pathlib import Path

from guardcheck.errors import GuardcheckError

# pytest's default `python_files`, plus conftest.py (its fixtures and helpers are test code).
TEST_FILE_GLOBS = ("test_*.py", "*_test.py", "conftest.py")
# Never test code of this project: caches, virtual environments, VCS and tool folders.
SKIPPED_FOLDERS = ("__pycache__", "node_modules", "*.egg-info", ".*")


def is_test_file(path: Path) -> bool:
    return any(fnmatch(path.name, glob) for glob in TEST_FILE_GLOBS)


def find_test_files(paths: Sequence[Path]) -> list[Path]:
    """Every test file under `paths`, resolved, each once, in a stable order.

    A file named explicitly is checked whatever its name, as ruff does: asking
    for it is the user's say-so. A path that does not exist is a usage error.
    """
    missing = [str(path) for path in paths if not path.exists()]
    if missing:
        raise GuardcheckError(f"no such file or folder: {', '.join(missing)}")
    found: set[Path] = set()
    for path in paths:
        found.update([path.resolve()] if path.is_file() else _walk(path.resolve()))
    return sorted(found)


def _walk(folder: Path) -> Iterator[Path]:
    for current, folders, files in os.walk(folder):
        # Pruned in place so os.walk never descends into them.
        folders[:] = [f for f in folders if not any(fnmatch(f, g) for g in SKIPPED_FOLDERS)]
        for name in files:
            if is_test_file(Path(name)):
                yield Path(current) / name
