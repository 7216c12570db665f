"""Where the project's modules are imported from, as its own tests see them.

The project root first, then the parent of each `[tool.guardcheck] source`
folder (a `src/pkg` layout), then pytest's `pythonpath` setting (read from
the file pytest itself would read: pytest.ini, pyproject.toml's
`[tool.pytest.ini_options]`, tox.ini, setup.cfg), so `guardcheck equiv` finds
what `pytest` finds without PYTHONPATH or an install.
"""

from __future__ import annotations

import configparser
import sys
import tomllib
from collections.abc import Sequence
from pathlib import Path

# pytest's order of preference among its configuration files.
_CONFIG_FILES = ("pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg")


def _ini_pythonpath(path: Path, section: str) -> list[str] | None:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read(path, encoding="utf-8")
    except (configparser.Error, UnicodeDecodeError):
        return None  # pytest reports a broken config itself; no extra folders from it
    if not parser.has_section(section):
        return None
    return parser.get(section, "pythonpath", fallback="").split()


def _pyproject_pythonpath(path: Path) -> list[str] | None:
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, KeyError, TypeError):
        return None
    value = table.get("pythonpath", []) if isinstance(table, dict) else []
    return value.split() if isinstance(value, str) else [str(v) for v in value]


def _config_pythonpath(path: Path) -> list[str] | None:
    """None when the file holds no pytest configuration (pytest then reads the next one)."""
    if path.name == "pyproject.toml":
        return _pyproject_pythonpath(path)
    return _ini_pythonpath(path, "tool:pytest" if path.name == "setup.cfg" else "pytest")


def pytest_pythonpath(root: Path) -> list[Path]:
    """The folders of pytest's `pythonpath` setting in the root's configuration file."""
    for name in _CONFIG_FILES:
        path = root / name
        found = _config_pythonpath(path) if path.is_file() else None
        if found is not None:
            return [(root / entry).resolve() for entry in found]
    return []


def search_paths(root: Path, sources: Sequence[str] = ()) -> list[Path]:
    """Where project modules are found: the root, each source folder's parent, pythonpath."""
    paths = [root.resolve()]
    for folder in [(root / source).resolve().parent for source in sources]:
        if folder not in paths:
            paths.append(folder)
    for folder in pytest_pythonpath(root):
        if folder not in paths:
            paths.append(folder)
    return paths


def put_on_sys_path(paths: Sequence[Path]) -> None:
    for path in reversed(paths):
        if str(path) not in sys.path:
            sys.path.insert(0, str(path))
