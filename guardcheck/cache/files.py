"""The project files a verdict may depend on, and their content digests.

Conservative on purpose: every Python file under the root (sources, tests, conftest
modules, helpers a test imports), the pytest/packaging configuration files at the root,
and every file (data included) under the configured test paths. Skipped: hidden folders
(.git, .venv, .guardcheck, .pytest_cache), `__pycache__`, virtualenvs (a `pyvenv.cfg`
inside), build output and the output folder. A data file a test reads from outside the
test paths is not part of the key: run with `--no-cache` after changing one.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from pathlib import Path

CONFIG_FILES = ("pyproject.toml", "setup.cfg", "pytest.ini", "tox.ini", "setup.py")
_SKIP_DIRS = frozenset({"__pycache__", "node_modules", "build", "dist"})
_SOURCE_SUFFIXES = (".py", ".pyi")


def project_digests(root: Path, test_paths: tuple[str, ...], skip: Path) -> dict[str, str]:
    """posix path relative to root -> sha256 of its bytes, for every file a verdict may read."""
    found: dict[str, str] = {}
    for path in _walk(root, skip, lambda name: name.endswith(_SOURCE_SUFFIXES)):
        found.setdefault(path, _digest(root / path))
    for name in CONFIG_FILES:
        if (root / name).is_file():
            found[name] = _digest(root / name)
    for test_path in test_paths:
        base = (root / test_path).resolve()
        if base.is_file():
            found.setdefault(_relative(base, root), _digest(base))
        elif base.is_dir():
            for path in _walk(base, skip, lambda _name: True):
                full = base / path
                found.setdefault(_relative(full, root), _digest(full))
    return found


def _relative(path: Path, root: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:  # a test path outside the root: keyed by its absolute path
        return path.as_posix()


def _digest(path: Path) -> str:
    try:
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as exc:  # unreadable now: a key that matches nothing stored
        return f"unreadable:{exc.errno}"


def _walk(base: Path, skip: Path, wanted: object) -> Iterator[str]:
    """Relative posix paths of the wanted files under base, pruning what never matters."""
    assert callable(wanted)
    skip_resolved = str(skip.resolve())
    stack = [base]
    while stack:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        if any(e.name == "pyvenv.cfg" for e in entries) and folder != base:
            continue  # a virtualenv: the dependency versions stand for it
        for entry in entries:
            name = entry.name
            if entry.is_dir(follow_symlinks=False):
                if name.startswith(".") or name in _SKIP_DIRS or name.endswith(".egg-info"):
                    continue
                if entry.path == skip_resolved:
                    continue
                stack.append(Path(entry.path))
            elif entry.is_file() and wanted(name):
                yield Path(entry.path).relative_to(base).as_posix()
