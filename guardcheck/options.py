"""Project settings: `[tool.guardcheck]` in pyproject.toml, overridden by CLI flags."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from guardcheck.errors import GuardcheckError

KNOWN_KEYS = {
    "catalogue": "folders or files of catalogue TOML (default: ['mutations'])",
    "source": "folders or files measured for coverage (default: the catalogue targets)",
    "tests": "test paths handed to pytest (default: pytest's own testpaths)",
    "pytest_args": "extra arguments for every pytest run (default: [])",
    "output": "output folder for logs, diffs and reports (default: '.guardcheck')",
    "jobs": "parallel mutant workers (default: number of CPUs)",
    "timeout_factor": "a mutant may take this many times its tests' baseline time (default: 2.0)",
    "timeout_constant": "plus this many seconds (default: 5.0)",
    "baseline_runs": "baseline runs; a test whose outcome changes is flaky (default: 1)",
}


@dataclass(frozen=True)
class Settings:
    root: Path
    catalogue: tuple[Path, ...] = (Path("mutations"),)
    source: tuple[str, ...] = ()
    tests: tuple[str, ...] = ()
    pytest_args: tuple[str, ...] = ()
    output: Path = Path(".guardcheck")
    jobs: int | None = None
    timeout_factor: float = 2.0
    timeout_constant: float = 5.0
    baseline_runs: int = 1
    extra: dict[str, Any] = field(default_factory=dict)

    def resolve(self, path: Path) -> Path:
        return path if path.is_absolute() else self.root / path

    @property
    def output_dir(self) -> Path:
        return self.resolve(self.output)

    def display(self, path: Path) -> str:
        """A path as the user should read it: relative to the root when inside it."""
        try:
            return path.resolve().relative_to(self.root).as_posix()
        except ValueError:
            return str(path)


def find_root(start: Path) -> Path:
    """The nearest folder at or above `start` holding a pyproject.toml, else `start`."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if (folder / "pyproject.toml").is_file():
            return folder
    return start


def _string_list(table: dict[str, Any], key: str, where: str) -> tuple[str, ...]:
    value = table[key]
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise GuardcheckError(f"{where}: [tool.guardcheck] {key} must be a string or a list of strings")


def _number(table: dict[str, Any], key: str, where: str, kind: type) -> Any:
    value = table[key]
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise GuardcheckError(f"{where}: [tool.guardcheck] {key} must be a non-negative number")
    return kind(value)


def _count(table: dict[str, Any], key: str, where: str) -> int:
    value = table[key]
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise GuardcheckError(f"{where}: [tool.guardcheck] {key} must be a whole number >= 1")
    return value


def load_settings(root: Path) -> Settings:
    """Read `[tool.guardcheck]` from root/pyproject.toml; defaults when absent."""
    root = root.resolve()
    pyproject = root / "pyproject.toml"
    settings = Settings(root=root)
    if not pyproject.is_file():
        return settings
    where = str(pyproject)
    try:
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise GuardcheckError(f"{where}: not valid TOML: {exc}") from None
    table = data.get("tool", {}).get("guardcheck", {})
    unknown = sorted(set(table) - set(KNOWN_KEYS))
    if unknown:
        known = ", ".join(sorted(KNOWN_KEYS))
        raise GuardcheckError(
            f"{where}: unknown key(s) in [tool.guardcheck]: {', '.join(unknown)}\n"
            f"  fix: use only {known}"
        )
    changes: dict[str, Any] = {}
    if "catalogue" in table:
        changes["catalogue"] = tuple(Path(p) for p in _string_list(table, "catalogue", where))
    for key in ("source", "tests", "pytest_args"):
        if key in table:
            changes[key] = _string_list(table, key, where)
    if "output" in table:
        changes["output"] = Path(_string_list(table, "output", where)[0])
    if "jobs" in table:
        changes["jobs"] = _number(table, "jobs", where, int) or None
    for key in ("timeout_factor", "timeout_constant"):
        if key in table:
            changes[key] = _number(table, key, where, float)
    if "baseline_runs" in table:
        changes["baseline_runs"] = _count(table, "baseline_runs", where)
    return replace(settings, **changes)
