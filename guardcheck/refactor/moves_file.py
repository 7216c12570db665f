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
_HEADER = re.compile(r"^\s*\[\[\s*move\s*\]\]")


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


def is_file_entry(entry: str) -> bool:
    return "/" in entry or entry.endswith(".py")


class _Lines:
    """Line numbers of each [[move]] header and of the keys below it (tomllib has none)."""

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()
        self.headers = [i + 1 for i, line in enumerate(self.lines) if _HEADER.match(line)]

    def of(self, index: int, key: str | None = None) -> int:
        if index >= len(self.headers):
            return 1
        start = self.headers[index]
        if key is None:
            return start
        end = self.headers[index + 1] if index + 1 < len(self.headers) else len(self.lines) + 1
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


def load_moves(path: Path, root: Path) -> list[Move]:
    """Every [[move]] of `path`; raises GuardcheckError (exit 2) with every problem found."""
    shown = path.as_posix()
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise GuardcheckError(
            f"--moves {shown}: no such file\n  fix: pass the path of your "
            "moves.toml (relative to the current folder)"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise GuardcheckError(f"--moves {shown}: cannot be read: {exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise GuardcheckError(
            f"{shown}: not valid TOML: {exc}\n  fix: correct the syntax at that line"
        ) from None
    lines = _Lines(text)
    problems = [
        f"{shown}:1: unknown top-level key `{key}`\n  fix: declare moves as [[move]] tables"
        for key in data
        if key != "move"
    ]
    tables = data.get("move", [])
    if not isinstance(tables, list) or not tables:
        problems.append(
            f"{shown}:1: no [[move]] entries\n  fix: add at least one [[move]] "
            'table with old = "..." and allowed_in = [...]'
        )
        tables = []
    moves = []
    for index, table in enumerate(tables):
        read = _read_move(table, index, lines, root, shown)
        if isinstance(read, list):
            problems.extend(read)
        else:
            moves.append(read)
    if problems:
        raise GuardcheckError("\n".join(problems))
    return moves
