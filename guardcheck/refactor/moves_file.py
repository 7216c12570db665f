"""`moves.toml`: the migration table, read and checked with file:line for every problem.

[[move]]
old = "GatewayRunner._running_agents"      # the old name (Class.attr, func, module.name)
new = "SessionState.turn.agent"            # its new home (informational)
allowed_in = ["target_app/gateway/session_state.py", "GatewayRunner._running_agents"]
view = "tests.views:running_agents"        # optional: a zero-argument factory ...
reference = "builtins:dict"                # ... proved to behave like this (default dict)
strategy = "tests.views:agent_values"      # optional, as `equiv --strategy`
methods = ["__getitem__", "__setitem__"]   # optional, as `equiv --methods`
examples = 500                             # optional: call sequences

[[accept]]
test = "tests/test_runner.py::test_table"  # a base test that may fail on today's source
reason = "the table gained the SessionState fields on purpose"   # required
"""

from __future__ import annotations

import difflib
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from guardcheck.errors import GuardcheckError

KEYS = ("old", "new", "allowed_in", "view", "reference", "strategy", "methods", "examples")
_DOTTED = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$")
_TARGET = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")
_HEADER = re.compile(r"^\s*\[\[\s*(move|accept)\s*\]\]")
TABLES = ("move", "accept")
ACCEPT_KEYS = ("test", "reason")


@dataclass(frozen=True)
class Move:
    old: str
    new: str | None
    allowed_in: tuple[str, ...]
    view: str | None
    reference: str
    strategy: str | None
    methods: tuple[str, ...] | None
    examples: int | None
    line: int  # of its [[move]] header

    @property
    def allowed_files(self) -> tuple[str, ...]:
        return tuple(a for a in self.allowed_in if is_file_entry(a))

    @property
    def allowed_names(self) -> tuple[str, ...]:
        return tuple(a for a in self.allowed_in if not is_file_entry(a))


@dataclass(frozen=True)
class Accept:
    """An intended change: this base test may fail on today's source, for this reason."""

    test: str
    reason: str
    line: int  # of its [[accept]] header


@dataclass(frozen=True)
class MovesFile:
    moves: tuple[Move, ...]
    accepts: tuple[Accept, ...]


def is_file_entry(entry: str) -> bool:
    return "/" in entry or entry.endswith(".py")


class _Lines:
    """Line numbers of each table header and of the keys below it (tomllib has none)."""

    def __init__(self, text: str, table: str) -> None:
        self.lines = text.splitlines()
        found = [(i + 1, m[1]) for i, line in enumerate(self.lines) if (m := _HEADER.match(line))]
        self.headers = [number for number, kind in found if kind == table]
        self.every_header = [number for number, _ in found]

    def of(self, index: int, key: str | None = None) -> int:
        if index >= len(self.headers):
            return 1
        start = self.headers[index]
        if key is None:
            return start
        end = next((h for h in self.every_header if h > start), len(self.lines) + 1)
        pattern = re.compile(rf"^\s*{re.escape(key)}\s*=")
        for number in range(start + 1, end):
            if pattern.match(self.lines[number - 1]):
                return number
        return start


def _string(table: dict[str, Any], key: str, check: re.Pattern[str] | None) -> str | None:
    value = table.get(key)
    if value is None:
        return None
    if not isinstance(value, str) or not value or (check and not check.match(value)):
        raise ValueError(key)
    return value


def _strings(table: dict[str, Any], key: str) -> tuple[str, ...] | None:
    value = table.get(key)
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ValueError(key)
    return tuple(value)


_FIXES = {
    "old": 'the old name, dotted: old = "GatewayRunner._running_agents"',
    "new": 'where it lives now, as text: new = "SessionState.turn.agent"',
    "allowed_in": 'a list of files and qualified names: allowed_in = ["pkg/state.py", "C.attr"]',
    "view": 'a zero-argument factory as module:function: view = "tests.views:make_view"',
    "reference": 'what the view replaced, as module:qualname: reference = "builtins:dict"',
    "strategy": 'a function returning {"keys": ..., "values": ...} strategies, as module:function',
    "methods": 'a list of method names: methods = ["__getitem__", "__setitem__"]',
    "examples": "a whole number of call sequences >= 1: examples = 500",
}


def _read_move(table: Any, index: int, lines: _Lines, root: Path, shown: str) -> Move | list[str]:
    here = lines.of(index)
    if not isinstance(table, dict):
        return [f"{shown}:{here}: a [[move]] entry must be a table\n  fix: use [[move]] headers"]
    problems = []
    for key in table:
        if key not in KEYS:
            close = difflib.get_close_matches(key, KEYS, n=1, cutoff=0.6)
            hint = f"did you mean `{close[0]}`?" if close else f"use one of {', '.join(KEYS)}"
            problems.append(
                f"{shown}:{lines.of(index, key)}: unknown key `{key}` in [[move]]\n  fix: {hint}"
            )
    if "old" not in table:
        problems.append(f"{shown}:{here}: [[move]] has no `old`\n  fix: {_FIXES['old']}")
    values: dict[str, Any] = {}
    readers = {
        "old": lambda k: _string(table, k, _DOTTED),
        "new": lambda k: _string(table, k, None),
        "view": lambda k: _string(table, k, _TARGET),
        "reference": lambda k: _string(table, k, _TARGET),
        "strategy": lambda k: _string(table, k, _TARGET),
        "allowed_in": lambda k: _strings(table, k),
        "methods": lambda k: _strings(table, k),
    }
    for key, read in readers.items():
        try:
            values[key] = read(key)
        except ValueError:
            problems.append(
                f"{shown}:{lines.of(index, key)}: `{key}` = {table[key]!r} is not "
                f"valid\n  fix: {_FIXES[key]}"
            )
    examples = table.get("examples")
    if examples is not None and (
        isinstance(examples, bool) or not isinstance(examples, int) or examples < 1
    ):
        problems.append(
            f"{shown}:{lines.of(index, 'examples')}: `examples` = {examples!r} is "
            f"not valid\n  fix: {_FIXES['examples']}"
        )
    if values.get("view") is None:
        for key in ("reference", "strategy", "methods", "examples"):
            if key in table:
                problems.append(
                    f"{shown}:{lines.of(index, key)}: `{key}` needs a `view` to "
                    f'compare\n  fix: add view = "module:factory", or drop `{key}`'
                )
    for entry in values.get("allowed_in") or ():
        if is_file_entry(entry) and not (root / entry).exists():
            problems.append(
                f"{shown}:{lines.of(index, 'allowed_in')}: allowed_in names "
                f"`{entry}`, which does not exist under {root}\n"
                "  fix: use a path relative to the project root"
            )
    if problems:
        return problems
    return Move(
        old=values["old"],
        new=values["new"],
        allowed_in=values["allowed_in"] or (),
        view=values["view"],
        reference=values["reference"] or "builtins:dict",
        strategy=values["strategy"],
        methods=values["methods"],
        examples=examples,
        line=here,
    )


def _read_accept(table: Any, index: int, lines: _Lines, shown: str) -> Accept | list[str]:
    here = lines.of(index)
    if not isinstance(table, dict):
        return [f"{shown}:{here}: an [[accept]] entry must be a table\n  fix: use [[accept]]"]
    problems = [
        f"{shown}:{lines.of(index, key)}: unknown key `{key}` in [[accept]]\n"
        f"  fix: an [[accept]] table takes only {' and '.join(ACCEPT_KEYS)}"
        for key in table
        if key not in ACCEPT_KEYS
    ]
    test, reason = table.get("test"), table.get("reason")
    if not isinstance(test, str) or "::" not in test:
        problems.append(
            f"{shown}:{lines.of(index, 'test')}: [[accept]] needs `test`, a pytest node id of "
            f"a base test (got {test!r})\n"
            '  fix: test = "tests/test_runner.py::test_table_lists_every_field"'
        )
    if not isinstance(reason, str) or not reason.strip():
        problems.append(
            f"{shown}:{lines.of(index, 'reason')}: [[accept]] needs a non-empty `reason`: why "
            "this base test may fail on today's source\n"
            '  fix: reason = "the table gained the SessionState fields on purpose"'
        )
    if problems:
        return problems
    return Accept(test=str(test), reason=str(reason).strip(), line=here)


def _tables(data: dict[str, Any], name: str, shown: str) -> tuple[list[Any], list[str]]:
    tables = data.get(name, [])
    if isinstance(tables, list):
        return tables, []
    return [], [f"{shown}:1: `{name}` must be [[{name}]] tables\n  fix: write [[{name}]] headers"]


def _text(path: Path) -> str:
    shown = path.as_posix()
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise GuardcheckError(
            f"--moves {shown}: no such file\n  fix: pass the path of your "
            "moves.toml (relative to the current folder)"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise GuardcheckError(
            f"--moves {shown}: cannot be read: {exc}\n  fix: pass a readable UTF-8 TOML file"
        ) from None


def load_moves(path: Path, root: Path) -> MovesFile:
    """Every [[move]] and [[accept]] of `path`; raises GuardcheckError (exit 2) with every
    problem found."""
    shown = path.as_posix()
    text = _text(path)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise GuardcheckError(
            f"{shown}: not valid TOML: {exc}\n  fix: correct the syntax at that line"
        ) from None
    problems = [
        f"{shown}:1: unknown top-level key `{key}`\n  fix: declare [[move]] and [[accept]] tables"
        for key in data
        if key not in TABLES
    ]
    move_tables, bad = _tables(data, "move", shown)
    accept_tables, bad_accepts = _tables(data, "accept", shown)
    problems += bad + bad_accepts
    if not move_tables and not accept_tables and not problems:
        problems.append(
            f"{shown}:1: no [[move]] or [[accept]] entries\n  fix: add a [[move]] table with "
            'old = "..." and allowed_in = [...], or an [[accept]] table with test and reason'
        )
    moves: list[Move] = []
    move_lines = _Lines(text, "move")
    for index, table in enumerate(move_tables):
        read = _read_move(table, index, move_lines, root, shown)
        if isinstance(read, list):
            problems.extend(read)
        else:
            moves.append(read)
    accepts: list[Accept] = []
    accept_lines = _Lines(text, "accept")
    for index, table in enumerate(accept_tables):
        accepted = _read_accept(table, index, accept_lines, shown)
        if isinstance(accepted, list):
            problems.extend(accepted)
        else:
            accepts.append(accepted)
    if problems:
        raise GuardcheckError("\n".join(problems))
    return MovesFile(tuple(moves), tuple(accepts))
