"""One `RunOptions` per invocation: the command line over `[tool.guardcheck]` over defaults.

Each field describes itself (`Setting`, in its dataclass metadata): its help text,
the reader of its `[tool.guardcheck]` value (none: command line only, or set by the
API), and what it can change (`Effect`). The known keys, their readers, the cache
key's fields (`cache/keys.KEYED_FIELDS`) and the provenance's (`provenance.
VERDICT_FIELDS`) are all derived from that one description, so a new field cannot
be left out of one list: `SETTINGS` refuses a field without it at import.

`load_options` finds the project root, reads `[tool.guardcheck]` from its
pyproject.toml (rejecting unknown keys with a "did you mean", and values of
the wrong type), then applies the command line's overrides. Every phase reads
this one frozen value; nothing else reads configuration.
"""

from __future__ import annotations

import difflib
import enum
import os
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from guardcheck.errors import GuardcheckError
from guardcheck.model import Gate

Reader = Callable[[Any, str], object]  # ([tool.guardcheck] value, where it is) -> field value


class Effect(enum.Enum):
    """What a setting can change, which decides where a run records it."""

    VERDICT = "verdict"  # a mutant's verdict: in the cache key and the provenance
    SELECTION = "selection"  # which mutants a run covers, not a verdict: in the provenance
    NONE = "none"  # how a run goes, not what it finds: in neither


@dataclass(frozen=True)
class Setting:
    """How one RunOptions field is configured, described and recorded."""

    help: str
    effect: Effect
    reader: Reader | None = None  # None: not a [tool.guardcheck] key
    default_text: str | None = None  # the default as help shows it, when its value is unclear


def setting(
    help: str, effect: Effect, reader: Reader | None = None, default_text: str | None = None
) -> dict[str, Setting]:
    """A field's metadata: `field(default=..., metadata=setting(...))`."""
    return {_SETTING: Setting(help, effect, reader, default_text)}


_SETTING = "guardcheck.setting"


def _strings(value: Any, what: str) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    raise GuardcheckError(f"{what} must be a string or a list of strings")


def _paths(value: Any, what: str) -> tuple[Path, ...]:
    return tuple(Path(p) for p in _strings(value, what))


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
    return int(value)


def _count(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise GuardcheckError(f"{what} must be a whole number >= 1")
    return int(value)


def _one_path(value: Any, what: str) -> Path:
    if not isinstance(value, str) or not value:
        raise GuardcheckError(f"{what} must be a path (a non-empty string)")
    return Path(value)


@dataclass(frozen=True)
class RunOptions:
    """Everything one guardcheck invocation was asked to do.

    Precedence, per field: the command line, then `[tool.guardcheck]` in the
    root's pyproject.toml, then the defaults below. Paths are as configured
    (relative to `root` unless absolute); `resolve` makes them absolute.
    """

    # Not keyed: it differs per machine, and the project's files are keyed by content.
    root: Path = field(
        metadata=setting(
            "project root", Effect.NONE, default_text="the nearest folder with a pyproject.toml"
        )
    )
    # Recorded by content (provenance); the cache keys each mutant by what it is.
    catalogue: tuple[Path, ...] = field(
        default=(Path("mutations"),),
        metadata=setting("folders or files of catalogue TOML", Effect.SELECTION, _paths),
    )
    source: tuple[str, ...] = field(
        default=(),
        metadata=setting(
            "folders or files measured for coverage",
            Effect.VERDICT,
            _strings,
            "the catalogue targets",
        ),
    )
    tests: tuple[str, ...] = field(
        default=(),
        metadata=setting(
            "test paths handed to pytest", Effect.VERDICT, _strings, "pytest's own testpaths"
        ),
    )
    pytest_args: tuple[str, ...] = field(
        default=(),
        metadata=setting("extra arguments for every pytest run", Effect.VERDICT, _strings),
    )
    output: Path = field(
        default=Path(".guardcheck"),
        metadata=setting("output folder for logs, diffs and reports", Effect.NONE, _one_path),
    )
    jobs: int | None = field(  # `workers` resolves None
        default=None,
        metadata=setting("parallel mutant workers", Effect.NONE, _count, "number of CPUs"),
    )
    timeout_factor: float = field(
        default=2.0,
        metadata=setting(
            "a mutant may take this many times its selected tests' baseline time",
            Effect.VERDICT,
            _number,
        ),
    )
    timeout_constant: float = field(
        default=5.0,
        metadata=setting(
            "seconds a mutant may take on top of its timeout_factor share", Effect.VERDICT, _number
        ),
    )
    baseline_runs: int = field(
        default=1,
        metadata=setting(
            "runs of the baseline; a test whose outcome changes between them is flaky (exit 3)",
            Effect.VERDICT,
            _count,
        ),
    )
    # A hung test must not hang the run. Exceeding it stops the run (exit 3): no verdict.
    baseline_timeout: float = field(
        default=600.0,
        metadata=setting(
            "seconds collection, and each baseline run, may take; then exit 3",
            Effect.NONE,
            _positive,
        ),
    )
    # RLIMIT_AS of mutant children: a runaway allocation dies fast, and is caught.
    memory_limit_mb: int = field(
        default=4096,
        metadata=setting(
            "address-space limit of each mutant's process in MB, 0 for none",
            Effect.VERDICT,
            _megabytes,
        ),
    )
    exclude: tuple[str, ...] = field(
        default=(),
        metadata=setting(
            "sweep: path globs and qualified names never mutated", Effect.SELECTION, _strings
        ),
    )
    mutate_arid: tuple[str, ...] = field(  # their code is mutated
        default=(),
        metadata=setting(
            "sweep: arid-code rules to turn off, e.g. ['logging']", Effect.SELECTION, _strings
        ),
    )
    # Command line only:
    matrix: bool = field(
        default=False,
        metadata=setting(
            "run every selected test against every mutant: the full kill matrix", Effect.VERDICT
        ),
    )
    only: tuple[str, ...] = field(
        default=(),
        metadata=setting("run only mutations whose id or tag matches a glob", Effect.SELECTION),
    )
    # Judges the run, not a verdict; the provenance records it apart and merge checks it.
    gate: Gate = field(
        default_factory=Gate, metadata=setting("what the run must reach to pass", Effect.NONE)
    )
    # (K, N), guardcheck/shard/; the provenance records it apart: it differs per shard.
    shard: tuple[int, int] | None = field(
        default=None,
        metadata=setting(
            "run only shard K of N (1-based); `guardcheck merge` combines the shards' --json",
            Effect.NONE,
        ),
    )
    # The split depends on it: the provenance records its content when sharded.
    shard_times: Path | None = field(
        default=None,
        metadata=setting(
            "balance --shard by the test times of this earlier --json report (give every "
            "shard the same file; docs/ci.md)",
            Effect.SELECTION,
        ),
    )
    cache: bool = field(  # guardcheck/cache/
        default=True, metadata=setting("reuse and store results under <output>/cache/", Effect.NONE)
    )
    # Set by the API, never configured: the user's project root when `root` is the lab's
    # private copy (the host checks no project module was imported from it).
    origin: Path | None = field(
        default=None,
        metadata=setting("the user's project root when root is a private copy", Effect.NONE),
    )

    def resolve(self, path: Path) -> Path:
        return path if path.is_absolute() else self.root / path

    @property
    def output_dir(self) -> Path:
        return self.resolve(self.output)

    @property
    def workers(self) -> int:
        """`jobs`, or one per CPU when not given: the one place None is resolved."""
        return max(1, self.jobs or os.cpu_count() or 1)

    def display(self, path: Path) -> str:
        """A path as the user should read it: relative to the root when inside it."""
        try:
            return path.resolve().relative_to(self.root).as_posix()
        except ValueError:
            return str(path)

    def with_overrides(self, **overrides: Any) -> RunOptions:
        """These options with every override that is not None applied (the command line)."""
        unknown = set(overrides) - set(SETTINGS)
        if unknown:  # a programming error in a command, not a user's
            raise TypeError(f"unknown RunOptions field(s): {', '.join(sorted(unknown))}")
        return replace(self, **{k: v for k, v in overrides.items() if v is not None})

    @classmethod
    def help_for(cls, name: str) -> str:
        """A flag's help: the field's help text with its default, as a sentence."""
        text = help_text(name)
        return text[0].upper() + text[1:] + "."


def settings_of(cls: type) -> dict[str, Setting]:
    """Each dataclass field's Setting; TypeError naming every field that has none."""
    found = {f.name: f.metadata.get(_SETTING) for f in fields(cls)}
    missing = [name for name, described in found.items() if not isinstance(described, Setting)]
    if missing:
        raise TypeError(
            f"{cls.__name__} field(s) without a Setting: {', '.join(missing)}; give each "
            "`metadata=setting(help, effect, reader)` (guardcheck/options.py)"
        )
    return {name: described for name, described in found.items() if isinstance(described, Setting)}


def help_text(name: str) -> str:
    """A setting's help with its default: "plus this many seconds (default: 5.0)"."""
    described = SETTINGS[name]
    default = next(f.default for f in fields(RunOptions) if f.name == name)
    shown = described.default_text or _shown(default)
    return f"{described.help} (default: {shown})" if shown else described.help


def _shown(value: object) -> str | None:
    if value is MISSING or value is None or isinstance(value, bool):  # a flag, or no default
        return None
    if isinstance(value, tuple):
        return repr([str(v) for v in value])
    return repr(str(value)) if isinstance(value, Path) else repr(value)


def as_json(value: object) -> object:
    """A setting's value as JSON holds it, the same on every run: tuples become lists."""
    return list(value) if isinstance(value, tuple) else value


def fields_with(*effects: Effect) -> tuple[str, ...]:
    """The names of the fields whose effect is one of `effects`, in declaration order."""
    return tuple(name for name, described in SETTINGS.items() if described.effect in effects)


SETTINGS: Mapping[str, Setting] = settings_of(RunOptions)
# The [tool.guardcheck] keys: the fields with a reader.
READERS: Mapping[str, Reader] = {
    name: described.reader for name, described in SETTINGS.items() if described.reader
}


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
    problems = [_unknown_key(key, where) for key in table if key not in READERS]
    if problems:
        raise GuardcheckError("\n".join(problems))
    return {key: READERS[key](table[key], f"{where}: [tool.guardcheck] {key}") for key in table}


def _unknown_key(key: str, where: str) -> str:
    close = difflib.get_close_matches(key, list(READERS), n=1, cutoff=0.6)
    hint = f"did you mean `{close[0]}`?" if close else f"use one of {', '.join(sorted(READERS))}"
    return f"{where}: unknown key `{key}` in [tool.guardcheck]\n  fix: {hint}"
