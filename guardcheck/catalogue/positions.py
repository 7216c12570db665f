"""Line numbers for TOML tables and keys, which tomllib does not report.

A small scanner over the TOML text: it skips strings (including multi-line
ones, where catalogue entries keep their Python snippets) and comments, and
records every table header and every key that starts a line. It does not
validate anything; tomllib has already accepted the text when this runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_HEADER = re.compile(r"\[(\[)?\s*(?P<name>[^\]\n]*?)\s*\](\])?")
_KEY = re.compile(r"""(?P<key>[A-Za-z0-9_-]+|"[^"\n]*"|'[^'\n]*')\s*[.=]""")


@dataclass
class TableLines:
    """One table header (or the root table) and the lines its keys start on."""

    name: str  # dotted, normalised: "mutation", "mutation.edit"; "" for the root table
    is_array: bool  # [[name]] rather than [name]
    line: int  # 1-based line of the header (1 for the root table)
    keys: dict[str, int] = field(default_factory=dict)


def _normalise(name: str) -> str:
    parts = (part.strip().strip("\"'") for part in name.split("."))
    return ".".join(parts)


def _skip_string(text: str, start: int) -> int:
    """Index just past the string literal that starts at `start`."""
    for quote in ('"""', "'''"):
        if text.startswith(quote, start):
            index = start + 3
            while True:
                found = text.find(quote, index)
                if found < 0:
                    return len(text)
                if quote == '"""' and _escaped(text, found):
                    index = found + 1
                    continue
                # Up to two quotes may sit right before the closing delimiter.
                end = found + 3
                while end < len(text) and text[end] == quote[0] and end - found < 5:
                    end += 1
                return end
    quote = text[start]
    index = start + 1
    while index < len(text) and text[index] != "\n":
        if text[index] == "\\" and quote == '"':
            index += 2
            continue
        if text[index] == quote:
            return index + 1
        index += 1
    return index


def _escaped(text: str, index: int) -> bool:
    backslashes = 0
    while index - backslashes - 1 >= 0 and text[index - backslashes - 1] == "\\":
        backslashes += 1
    return backslashes % 2 == 1


def scan_tables(text: str) -> list[TableLines]:
    """Every table in document order, the root table first."""
    tables = [TableLines(name="", is_array=False, line=1)]
    index, line, at_line_start = 0, 1, True
    while index < len(text):
        char = text[index]
        if char == "\n":
            line, at_line_start, index = line + 1, True, index + 1
            continue
        if char in " \t\r":
            index += 1
            continue
        if at_line_start:
            at_line_start = False
            header = _HEADER.match(text, index) if char == "[" else None
            if header is not None:
                is_array = header.group(1) is not None
                name = _normalise(header.group("name"))
                tables.append(TableLines(name=name, is_array=is_array, line=line))
                index = header.end()
                continue
            key = _KEY.match(text, index)
            if key is not None:
                tables[-1].keys.setdefault(key.group("key").strip("\"'"), line)
        if char == "#":
            end = text.find("\n", index)
            index = len(text) if end < 0 else end
        elif char in "\"'":
            end = _skip_string(text, index)
            line += text.count("\n", index, end)
            index = end
        else:
            index += 1
    return tables
