"""Where a project's source and tests are, as `guardcheck refactor` reads them."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from guardcheck.options import RunOptions

_SKIPPED_DIRS = {".git", ".venv", "venv", "__pycache__", "node_modules", "build", "dist"}
_TEST_DIRS = {"tests", "test", "testing"}


def source_paths(options: RunOptions) -> list[str]:
    """The configured `[tool.guardcheck] source`, else the top-level packages that are not
    tests (a folder with an `__init__.py`), else top-level modules."""
    if options.source:
        return [s.rstrip("/") for s in options.source]
    root = options.root
    packages = sorted(
        p.name
        for p in root.iterdir()
        if p.is_dir()
        and (p / "__init__.py").is_file()
        and p.name not in _TEST_DIRS
        and not p.name.startswith(".")
    )
    if packages:
        return packages
    return sorted(
        p.name
        for p in root.glob("*.py")
        if not p.name.startswith(("test_", "conftest")) and p.name != "setup.py"
    )


def test_paths(options: RunOptions) -> list[str]:
    """The configured `tests`, else `tests/` when it exists, else the root."""
    if options.tests:
        return [t.rstrip("/") for t in options.tests]
    return ["tests"] if (options.root / "tests").is_dir() else ["."]


def python_files(root: Path, paths: Iterable[str]) -> Iterator[Path]:
    """Every .py file under `paths` (files or folders), skipping virtualenvs and caches."""
    seen: set[Path] = set()
    for relative in paths:
        start = root / relative
        candidates = [start] if start.is_file() else sorted(start.rglob("*.py"))
        for path in candidates:
            rel_parts = path.relative_to(root).parts
            if path.suffix != ".py" or any(part in _SKIPPED_DIRS for part in rel_parts):
                continue
            if path not in seen:
                seen.add(path)
                yield path


def is_test_file(path: Path) -> bool:
    return path.name.startswith("test_") or path.name.endswith("_test.py")


def module_name(root: Path, path: Path) -> str:
    """The dotted module a file is imported as from the root (`relay/runner.py` -> relay.runner)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts and parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def display(root: Path, path: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)
