"""One `RunOptions` per invocation: the command line over `[tool.guardcheck]` over defaults.

`load_options` finds the project root, reads `[tool.guardcheck]` from its
pyproject.toml (rejecting unknown keys with a "did you mean", and values of
the wrong type), then applies the command line's overrides. Every phase reads
this one frozen value; nothing else reads configuration.
"""

from __future__ import annotations

import difflib
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from guardcheck.errors import GuardcheckError
from guardcheck.model import Gate

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
    "baseline_timeout": "seconds the baseline (collection, then each run) may take (default: 600)",
    "memory_limit_mb": "address-space limit of each mutant's process, 0 for none (default: 4096)",
    "exclude": "sweep: path globs and qualified names never mutated (default: [])",
    "mutate_arid": "sweep: arid-code rules to turn off, e.g. ['logging'] (default: [])",
}


@dataclass(frozen=True)
class RunOptions:
    """Everything one guardcheck invocation was asked to do.

    Precedence, per field: the command line, then `[tool.guardcheck]` in the
    root's pyproject.toml, then the defaults below. Paths are as configured
    (relative to `root` unless absolute); `resolve` makes them absolute.
    """

    root: Path
    catalogue: tuple[Path, ...] = (Path("mutations"),)
    source: tuple[str, ...] = ()
    tests: tuple[str, ...] = ()
    pytest_args: tuple[str, ...] = ()
    output: Path = Path(".guardcheck")
    jobs: int | None = None  # None: one per CPU
    timeout_factor: float = 2.0
    timeout_constant: float = 5.0
    baseline_runs: int = 1
    baseline_timeout: float = 600.0  # a hung test must not hang the run (exit 3)
    memory_limit_mb: int = 4096  # RLIMIT_AS of mutant children: a runaway allocation dies fast
    exclude: tuple[str, ...] = ()  # sweep: globs over paths and qualified names
    mutate_arid: tuple[str, ...] = ()  # sweep: arid rules turned off (their code is mutated)
    # Command line only:
    matrix: bool = False  # run every selected test against every mutant
    only: tuple[str, ...] = ()  # globs over mutation ids and tags
    gate: Gate = field(default_factory=Gate)
    shard: tuple[int, int] | None = None  # (K, N): run only shard K of N (guardcheck/shard/)
    shard_times: Path | None = None  # a JSON report whose test times balance the shards
    cache: bool = True  # reuse and store results under <output>/cache/ (guardcheck/cache/)
    # Set by the API, never configured: the user's project root when `root` is the lab's
    # private copy (the host checks no project module was imported from it).
    origin: Path | None = None

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

    def with_overrides(self, **overrides: Any) -> RunOptions:
        """These options with every override that is not None applied (the command line)."""
        known = {f.name for f in fields(self)}
        unknown = set(overrides) - known
        if unknown:  # a programming error in a command, not a user's
            raise TypeError(f"unknown RunOptions field(s): {', '.join(sorted(unknown))}")
        return replace(self, **{k: v for k, v in overrides.items() if v is not None})


def find_root(start: Path) -> Path | None:
    """The nearest folder at or above `start` holding a pyproject.toml."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if (folder / "pyproject.toml").is_file():
            return folder
    return None


def load_options(
    root: Path | None = None, *, cwd: Path | None = None, **overrides: Any
) -> RunOptions:
    """Read `[tool.guardcheck]` from root/pyproject.toml (found from `cwd` when not given).

    Raises GuardcheckError (exit 2) for a missing project, an unreadable or
    invalid pyproject.toml, unknown keys and wrong values.
    """
    if root is None:
        here = (cwd or Path.cwd()).resolve()
        root = find_root(here)
        if root is None:
            raise GuardcheckError(
                f"no pyproject.toml in {here} or any folder above it, so there is no project "
                "to check\n  fix: run guardcheck inside your project, or pass --root PATH"
            )
    root = root.resolve()
    options = RunOptions(root=root).with_overrides(**_project_table(root))
    return options.with_overrides(**overrides)


def _project_table(root: Path) -> dict[str, Any]:
    pyproject = root / "pyproject.toml"
    if not pyproject.is_file():
        return {}
    where = str(pyproject)
    try:
        text = pyproject.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise GuardcheckError(
            f"{where}: not UTF-8 ({exc.reason} at byte {exc.start})\n"
            "  fix: save pyproject.toml as UTF-8"
        ) from None
    except OSError as exc:
        raise GuardcheckError(
            f"{where}: cannot be read: {exc.strerror}\n  fix: check its permissions"
        ) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise GuardcheckError(f"{where}: not valid TOML: {exc}") from None
    table = data.get("tool", {}).get("guardcheck", {})
    if not isinstance(table, dict):
        raise GuardcheckError(f"{where}: [tool.guardcheck] must be a table")
    problems = [_unknown_key(key, where) for key in table if key not in KNOWN_KEYS]
    if problems:
        raise GuardcheckError("\n".join(problems))
    return {key: _READERS[key](table[key], f"{where}: [tool.guardcheck] {key}") for key in table}


def _unknown_key(key: str, where: str) -> str:
    close = difflib.get_close_matches(key, list(KNOWN_KEYS), n=1, cutoff=0.6)
    hint = f"did you mean `{close[0]}`?" if close else f"use one of {', '.join(sorted(KNOWN_KEYS))}"
    return f"{where}: unknown key `{key}` in [tool.guardcheck]\n  fix: {hint}"


def _strings(value: Any, what: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise GuardcheckError(f"{what} must be a string or a list of strings")


def _number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise GuardcheckError(f"{what} must be a non-negative number")
    return float(value)


def _positive(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise GuardcheckError(f"{what} must be a number > 0 (seconds)")
    return float(value)


def _megabytes(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise GuardcheckError(f"{what} must be a whole number of megabytes (0: no limit)")
    return value


def _count(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise GuardcheckError(f"{what} must be a whole number >= 1")
    return value


def _one_path(value: Any, what: str) -> Path:
    if not isinstance(value, str) or not value:
        raise GuardcheckError(f"{what} must be a path (a non-empty string)")
    return Path(value)


_READERS: dict[str, Callable[[Any, str], Any]] = {
    "catalogue": lambda value, what: tuple(Path(p) for p in _strings(value, what)),
    "source": _strings,
    "tests": _strings,
    "pytest_args": _strings,
    "output": _one_path,
    "jobs": _count,
    "timeout_factor": _number,
    "timeout_constant": _number,
    "baseline_runs": _count,
    "baseline_timeout": _positive,
    "memory_limit_mb": _megabytes,
    "exclude": _strings,
    "mutate_arid": _strings,
}
