"""Catalogue files: where they are, and how their `[[mutation]]` tables become Entry values.

Loading never raises for bad catalogue content: every malformed file, unknown
key, missing key and wrong type becomes a Problem, so `guardcheck check` can
report them all at once. Only an unusable configuration (a catalogue path that
does not exist) raises, because then there is nothing to report on.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from guardcheck.catalogue.positions import TableLines, scan_tables
from guardcheck.errors import GuardcheckError, Problem
from guardcheck.model import EXPECT_SURVIVES, Edit, Entry, Where
from guardcheck.options import RunOptions

# Keys of one edit: the entry's own top-level edit, or a `[[mutation.edit]]` sub-table.
EDIT_KEYS = ("file", "scope", "find", "replace", "occurrence", "transform")
ENTRY_KEYS = (
    "id",
    "summary",
    *EDIT_KEYS,
    "edit",
    "killed_by",
    "killed_by_any",
    "tags",
    "expect",
    "reason",
)
EXPECT_VALUES = (EXPECT_SURVIVES,)
TOP_LEVEL_KEYS = ("mutation",)

_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*\Z")
_SCOPE = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*\Z")
_TRANSFORM = re.compile(r"[A-Za-z_][\w.]*:[A-Za-z_]\w*\Z")
_TOML_POSITION = re.compile(r"\s*\(at line (\d+), column (\d+)\)\s*$|\s*\(at end of document\)\s*$")


@dataclass(frozen=True)
class Catalogue:
    """Everything read from the catalogue files, well-formed or not."""

    files: tuple[Path, ...]
    entries: tuple[Entry, ...]  # only the well-formed ones, in catalogue order
    problems: tuple[Problem, ...]  # malformed TOML, unknown/missing keys, wrong types
    declared: tuple[tuple[str, Where], ...]  # (id, where) of every table with a string id
    tables: int  # how many [[mutation]] tables were found, well-formed or not


def catalogue_files(settings: RunOptions) -> list[Path]:
    """Every catalogue file under the configured paths: each folder's *.toml, sorted."""
    files: list[Path] = []
    for configured in settings.catalogue:
        path = settings.resolve(configured)
        if path.is_dir():
            found = sorted(path.rglob("*.toml"), key=lambda p: p.relative_to(path).as_posix())
        elif path.is_file():
            found = [path]
        else:
            raise GuardcheckError(
                f"catalogue path {settings.display(path)} does not exist\n"
                "  fix: create it, or point `--catalogue` / [tool.guardcheck] catalogue "
                "at your catalogue files or folders"
            )
        files.extend(f for f in found if f not in files)
    return files


def load_catalogue(settings: RunOptions) -> Catalogue:
    files = catalogue_files(settings)
    entries: list[Entry] = []
    problems: list[Problem] = []
    declared: list[tuple[str, Where]] = []
    tables = 0
    for path in files:
        parsed = parse_catalogue_file(path, settings.display(path))
        entries.extend(parsed.entries)
        problems.extend(parsed.problems)
        declared.extend(parsed.declared)
        tables += parsed.tables
    return Catalogue(tuple(files), tuple(entries), tuple(problems), tuple(declared), tables)


def parse_catalogue_file(path: Path, shown_as: str) -> Catalogue:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        problem = Problem(
            kind="toml",
            message=f"cannot read the file: {exc}",
            fix="make it a readable UTF-8 TOML file",
            where=Where(shown_as, 1),
        )
        return Catalogue((path,), (), (problem,), (), 0)
    return parse_catalogue_text(text, shown_as, path)


def parse_catalogue_text(text: str, shown_as: str, path: Path | None = None) -> Catalogue:
    files = (path,) if path is not None else ()
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        return Catalogue(files, (), (_toml_problem(exc, text, shown_as),), (), 0)
    reader = _FileReader(text, shown_as)
    reader.read(data)
    return Catalogue(
        files, tuple(reader.entries), tuple(reader.problems), tuple(reader.declared), reader.tables
    )


def _toml_problem(exc: tomllib.TOMLDecodeError, text: str, shown_as: str) -> Problem:
    message = str(exc)
    position = _TOML_POSITION.search(message)
    line, column = text.count("\n") + 1, 1
    if position is not None:
        if position.group(1):
            line, column = int(position.group(1)), int(position.group(2))
        message = message[: position.start()]
    return Problem(
        kind="toml",
        message=f"not valid TOML: {message} (column {column})",
        fix="fix the TOML syntax on that line; put multi-line Python in '''...''' strings",
        where=Where(shown_as, line, column),
    )


def is_valid_id(text: str) -> bool:
    return bool(_ID.match(text))


def did_you_mean(word: str, choices: list[str] | tuple[str, ...]) -> str | None:
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return close[0] if close else None


def kebab_case(text: str) -> str:
    return "-".join(part for part in re.split(r"[^a-z0-9]+", text.lower()) if part)


class _FileReader:
    """Turns one parsed catalogue file into entries and problems."""

    def __init__(self, text: str, shown_as: str) -> None:
        self.shown_as = shown_as
        self.layout = scan_tables(text)
        self.entries: list[Entry] = []
        self.problems: list[Problem] = []
        self.declared: list[tuple[str, Where]] = []
        self.tables = 0

    def read(self, data: dict[str, Any]) -> None:
        root = self.layout[0]
        for key in data:
            if key not in TOP_LEVEL_KEYS:
                self._unknown_key(key, TOP_LEVEL_KEYS, None, self._top_level_line(key), "the file")
        mutations = data.get("mutation", [])
        if not isinstance(mutations, list) or not all(isinstance(m, dict) for m in mutations):
            self.problems.append(
                Problem(
                    kind="type",
                    message="`mutation` must be an array of tables",
                    fix="start each entry with a `[[mutation]]` header (double brackets)",
                    where=Where(self.shown_as, self._top_level_line("mutation")),
                )
            )
            return
        headers = self._entry_layouts()
        for index, table in enumerate(mutations):
            self.tables += 1
            layout = headers[index] if index < len(headers) else [root]
            entry = _EntryReader(self, table, layout).read()
            if entry is not None:
                self.entries.append(entry)

    def _entry_layouts(self) -> list[list[TableLines]]:
        """Per `[[mutation]]` header: its own table, then the sub-tables that follow it."""
        groups: list[list[TableLines]] = []
        for table in self.layout[1:]:
            if table.name == "mutation" and table.is_array:
                groups.append([table])
            elif groups and table.name.startswith("mutation."):
                groups[-1].append(table)
        return groups

    def _top_level_line(self, key: str) -> int:
        root = self.layout[0]
        if key in root.keys:
            return root.keys[key]
        for table in self.layout[1:]:
            if table.name == key or table.name.startswith(f"{key}."):
                return table.line
        return 1

    def where(self, line: int) -> Where:
        return Where(self.shown_as, line)

    def _unknown_key(
        self, key: str, known: tuple[str, ...], entry_id: str | None, line: int, place: str
    ) -> None:
        suggestion = did_you_mean(key, known)
        fix = (
            f"rename `{key}` to `{suggestion}`"
            if suggestion
            else f"remove it; {place} may only hold {', '.join(f'`{k}`' for k in known)}"
        )
        message = f"unknown key `{key}` in {place}"
        if suggestion:
            message += f" (did you mean `{suggestion}`?)"
        self.problems.append(
            Problem(kind="key", message=message, fix=fix, entry_id=entry_id, where=self.where(line))
        )


class _EntryReader:
    """Checks one `[[mutation]]` table and builds its Entry when it is well-formed."""

    def __init__(self, file: _FileReader, table: dict[str, Any], layout: list[TableLines]) -> None:
        self.file = file
        self.table = table
        self.layout = layout
        self.header_line = layout[0].line
        self.problem_count = len(file.problems)
        raw_id = table.get("id")
        self.entry_id = raw_id if isinstance(raw_id, str) and raw_id else None

    def read(self) -> Entry | None:
        for key in self.table:
            if key not in ENTRY_KEYS:
                self.file._unknown_key(
                    key, ENTRY_KEYS, self.entry_id, self.key_line(key), "a [[mutation]] table"
                )
        entry_id = self._id()
        summary = self._string(
            "summary", required=True, fix='add summary = "<the bug it restores>"'
        )
        killed_by = self._string_list("killed_by")
        killed_by_any = self._string_list("killed_by_any")
        tags = self._string_list("tags")
        expect, reason = self._expect()
        edits = self._edits()
        if len(self.file.problems) > self.problem_count or entry_id is None:
            return None
        assert summary is not None  # a missing summary was reported above
        return Entry(
            id=entry_id,
            summary=summary,
            edits=tuple(edits),
            where=self.file.where(self.header_line),
            killed_by=killed_by,
            tags=tags,
            killed_by_any=killed_by_any,
            expect=expect,
            reason=reason,
        )

    def _expect(self) -> tuple[str | None, str]:
        """`expect = "survives"` with its `reason`: a known gap must say why it is accepted."""
        expect = self._string("expect", fix='write expect = "survives"')
        reason = self._string("reason", fix='write reason = "<why this gap is accepted>"')
        if expect is not None and expect not in EXPECT_VALUES:
            self.problem(
                "type",
                f"unknown `expect` value `{expect}`: the only one is `{EXPECT_SURVIVES}`",
                f'write expect = "{EXPECT_SURVIVES}", or remove `expect`',
                self.key_line("expect"),
            )
            return None, ""
        if expect is not None and reason is None and "reason" not in self.table:
            self.problem(
                "missing",
                '`expect = "survives"` needs a `reason`: a known gap must say why it is accepted',
                'add reason = "<why this gap is accepted>"',
                self.key_line("expect"),
            )
        if expect is None and reason is not None:
            self.problem(
                "missing",
                "`reason` without `expect`: it only explains a known gap",
                f'add expect = "{EXPECT_SURVIVES}", or remove `reason`',
                self.key_line("reason"),
            )
        return expect, reason or ""

    # -- positions and problems ---------------------------------------------------------------

    def key_line(self, key: str, table_index: int = 0) -> int:
        own = self.layout[table_index] if table_index < len(self.layout) else self.layout[0]
        if key in own.keys:
            return own.keys[key]
        for sub in self.layout[1:]:
            if sub.name == f"mutation.{key}":
                return sub.line
        return own.line

    def problem(self, kind: str, message: str, fix: str, line: int | None = None) -> None:
        self.file.problems.append(
            Problem(
                kind=kind,
                message=message,
                fix=fix,
                entry_id=self.entry_id,
                where=self.file.where(line or self.header_line),
            )
        )

    # -- fields -------------------------------------------------------------------------------

    def _id(self) -> str | None:
        if "id" not in self.table:
            self.problem("missing", "the entry has no `id`", 'add id = "<kebab-case-name>"')
            return None
        value = self.table["id"]
        if not isinstance(value, str) or not is_valid_id(value):
            shown = value if isinstance(value, str) else repr(value)
            suggestion = kebab_case(value) if isinstance(value, str) else ""
            fix = (
                f'use id = "{suggestion}"'
                if suggestion
                else 'use lowercase words joined by hyphens, e.g. id = "flat-cooldown"'
            )
            self.problem(
                "id",
                f"invalid id `{shown}`: ids are kebab-case (lowercase letters, digits, hyphens)",
                fix,
                self.key_line("id"),
            )
            return None
        self.file.declared.append((value, self.file.where(self.header_line)))
        return value

    def _string(
        self,
        key: str,
        *,
        table: dict[str, Any] | None = None,
        table_index: int = 0,
        required: bool = False,
        fix: str = "",
        allow_empty: bool = False,
    ) -> str | None:
        source = self.table if table is None else table
        if key not in source:
            if required:
                self.problem(
                    "missing", f"missing required key `{key}`", fix, self._line(table_index)
                )
            return None
        value = source[key]
        if not isinstance(value, str) or (not allow_empty and not value.strip()):
            what = "a non-empty string" if not allow_empty else "a string"
            self.problem(
                "type",
                f"`{key}` must be {what}, not {_describe(value)}",
                fix or f'write {key} = "..."',
                self.key_line(key, table_index),
            )
            return None
        return value

    def _line(self, table_index: int) -> int:
        return self.layout[table_index].line if table_index < len(self.layout) else self.header_line

    def _string_list(self, key: str) -> tuple[str, ...]:
        if key not in self.table:
            return ()
        value = self.table[key]
        if isinstance(value, list) and all(isinstance(v, str) and v.strip() for v in value):
            return tuple(value)
        example = '"tests/test_x.py::test_y"' if key.startswith("killed_by") else '"ladder"'
        self.problem(
            "type",
            f"`{key}` must be a list of non-empty strings, not {_describe(value)}",
            f"write {key} = [{example}]",
            self.key_line(key),
        )
        return ()

    def _edits(self) -> list[Edit]:
        edits: list[Edit] = []
        own_keys = {"find", "replace", "transform", "scope", "occurrence"} & set(self.table)
        # A top-level `file` is also the default for the `[[mutation.edit]]` sub-tables.
        # Its type is reported once: by the entry's own edit, or here when it has none.
        default_file = self._string("file") if not own_keys else None
        if own_keys and isinstance(self.table.get("file"), str):
            default_file = self.table["file"]
        if own_keys:
            edit = self._edit(self.table, 0, default_file=None)
            if edit is not None:
                edits.append(edit)
        subtables = self.table.get("edit", [])
        if not isinstance(subtables, list) or not all(isinstance(t, dict) for t in subtables):
            self.problem(
                "type",
                "`edit` must be an array of tables",
                "declare each extra edit under its own `[[mutation.edit]]` header",
                self.key_line("edit"),
            )
            subtables = []
        edit_layouts = [i for i, t in enumerate(self.layout) if t.name == "mutation.edit"]
        for number, sub in enumerate(subtables):
            index = edit_layouts[number] if number < len(edit_layouts) else 0
            for key in sub:
                if key not in EDIT_KEYS:
                    self.file._unknown_key(
                        key,
                        EDIT_KEYS,
                        self.entry_id,
                        self.key_line(key, index),
                        "a [[mutation.edit]] table",
                    )
            edit = self._edit(sub, index, default_file=default_file)
            if edit is not None:
                edits.append(edit)
        if not own_keys and not subtables:
            self.problem(
                "missing",
                "the entry has nothing to apply: no `find` and no `[[mutation.edit]]`",
                'add file = "...", find = "..." and replace = "..."'
                ' (or transform = "module:Class")',
            )
        return edits

    def _edit(self, table: dict[str, Any], index: int, default_file: str | None) -> Edit | None:
        before = len(self.file.problems)
        where_line = self._line(index)
        place = "" if index == 0 else f" in the [[mutation.edit]] at line {where_line}"
        file = self._string("file", table=table, table_index=index)
        if file is None and "file" not in table:
            file = default_file
            if file is None:
                self.problem(
                    "missing",
                    f"missing required key `file`{place}",
                    'add file = "<path relative to the project root>"',
                    where_line,
                )
        if file is not None and (Path(file).is_absolute() or "\\" in file):
            self.problem(
                "type",
                f"`file` must be a posix path relative to the project root, not {file!r}",
                "write it relative to the project root, with forward slashes",
                self.key_line("file", index),
            )
        find = self._string("find", table=table, table_index=index)
        replace = self._string("replace", table=table, table_index=index, allow_empty=True)
        transform = self._string("transform", table=table, table_index=index)
        scope = self._string("scope", table=table, table_index=index)
        occurrence = self._occurrence(table, index)
        self._check_shape(table, index, place, scope, transform)
        if len(self.file.problems) > before or file is None:
            return None
        return Edit(
            file=file,
            find=find or "",
            replace=replace or "",
            scope=scope,
            occurrence=occurrence,
            transform=transform,
            where=self.file.where(where_line),
        )

    def _occurrence(self, table: dict[str, Any], index: int) -> int | None:
        if "occurrence" not in table:
            return None
        value = table["occurrence"]
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            self.problem(
                "type",
                f"`occurrence` must be a whole number from 1, not {_describe(value)}",
                "write occurrence = 1 for the first match in scope, 2 for the second, ...",
                self.key_line("occurrence", index),
            )
            return None
        return value

    def _check_shape(
        self,
        table: dict[str, Any],
        index: int,
        place: str,
        scope: str | None,
        transform: str | None,
    ) -> None:
        where_line = self._line(index)
        if scope is not None and not _SCOPE.match(scope):
            self.problem(
                "type",
                f"`scope` must be a dotted qualified name, not {scope!r}",
                'write scope = "function", "Class.method" or "outer.inner"',
                self.key_line("scope", index),
            )
        if transform is not None and not _TRANSFORM.match(transform):
            self.problem(
                "type",
                f'`transform` must look like "module.path:ClassName", not {transform!r}',
                'write transform = "mypackage.mutations:SwapArguments"',
                self.key_line("transform", index),
            )
        if "transform" in table:
            clashing = [k for k in ("find", "replace", "occurrence") if k in table]
            if clashing:
                self.problem(
                    "conflict",
                    f"`transform` cannot be combined with {', '.join(f'`{k}`' for k in clashing)}"
                    f"{place}",
                    "keep either find/replace or transform",
                    self.key_line("transform", index),
                )
            return
        if "find" not in table:
            self.problem(
                "missing",
                f"missing required key `find`{place}",
                'add find = "<the code as it is today>" (or transform = "module:Class")',
                where_line,
            )
        elif "replace" not in table:
            self.problem(
                "missing",
                f"missing required key `replace`{place}",
                'add replace = "<the buggy code>"; replace = "" deletes the match',
                self.key_line("find", index),
            )


def _describe(value: object) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return "an empty string" if not value.strip() else "a string"
    if isinstance(value, list):
        return "a list with a non-string item" if value else "an empty list"
    if isinstance(value, dict):
        return "a table"
    return type(value).__name__
