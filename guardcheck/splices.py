"""Text splices: the one record of what a mutation changed in a file.

The engine returns the splices it made; the unified diff, the changed lines
(for test selection), the report's location and replacement are all derived
from them here, in time linear in the size of what changed plus a binary
search for line numbers, never by diffing whole files. The text they are
offsets into is the file as `read_source` decodes it.
"""

from __future__ import annotations

import bisect
import functools
import io
import re
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

CONTEXT = 3  # lines of context around each hunk, as `diff -u`


@dataclass(frozen=True)
class Splice:
    """`original[start:end]` becomes `replacement` (character offsets into the original)."""

    start: int
    end: int
    replacement: str


def apply_splices(original: str, splices: Sequence[Splice]) -> str:
    """The text after every splice (sorted, non-overlapping, in original coordinates)."""
    parts: list[str] = []
    at = 0
    for splice in splices:
        parts += [original[at : splice.start], splice.replacement]
        at = splice.end
    parts.append(original[at:])
    return "".join(parts)


def whole_text_splice(original: str, mutated: str) -> Splice:
    """One splice covering everything between the common prefix and suffix (linear time).

    For changes whose exact splices are unknown (a transform rewrote the module).
    """
    limit = min(len(original), len(mutated))
    prefix = 0
    while prefix < limit and original[prefix] == mutated[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and original[-1 - suffix] == mutated[-1 - suffix]:
        suffix += 1
    return Splice(prefix, len(original) - suffix, mutated[prefix : len(mutated) - suffix])


def compose(original: str, earlier: Sequence[Splice], later: Splice) -> tuple[Splice, ...]:
    """Splices against `original` once `later`, given against the spliced text, is applied too.

    Chained edits to one file each splice the previous edit's output; composing
    keeps one record against the original file. Where `later` touches earlier
    replacements, they merge into one splice.
    """
    placed: list[tuple[int, int]] = []  # each earlier splice's span in the spliced text
    shift = 0
    for splice in earlier:
        begin = splice.start + shift
        placed.append((begin, begin + len(splice.replacement)))
        shift += len(splice.replacement) - (splice.end - splice.start)
    touching = [
        i for i, (begin, stop) in enumerate(placed) if begin <= later.end and stop >= later.start
    ]
    if not touching:
        moved = sum(
            len(s.replacement) - (s.end - s.start)
            for s, (_, stop) in zip(earlier, placed, strict=True)
            if stop <= later.start
        )
        mapped = Splice(later.start - moved, later.end - moved, later.replacement)
        return tuple(sorted([*earlier, mapped], key=lambda s: (s.start, s.end)))
    first, last = touching[0], touching[-1]
    low = min(later.start, placed[first][0])
    high = max(later.end, placed[last][1])
    # Between `low` and the first touched splice nothing else was spliced, so one shift maps it.
    original_low = low - (placed[first][0] - earlier[first].start)
    original_high = high - (placed[last][1] - earlier[last].end)
    spliced = apply_splices(original, earlier)[low:high]
    replacement = spliced[: later.start - low] + later.replacement + spliced[later.end - low :]
    merged = Splice(original_low, original_high, replacement)
    return (*earlier[:first], merged, *earlier[last + 1 :])


@functools.lru_cache(maxsize=16)
def _line_starts(text: str) -> tuple[int, ...]:
    # Every mutant of a file indexes the same original: scan it once, not per mutant.
    return (0, *(match.end() for match in re.finditer("\n", text)))


class LineIndex:
    """Line numbers of character offsets in one text (1-based), by binary search."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = _line_starts(text)

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.starts, offset)

    def column_of(self, offset: int) -> int:
        """1-based column of `offset`."""
        return offset - self.starts[self.line_of(offset) - 1] + 1

    def line_start(self, line: int) -> int:
        return self.starts[line - 1]

    def line_end(self, line: int) -> int:
        """Offset just past line `line`'s newline (or the end of the text)."""
        return self.starts[line] if line < len(self.starts) else len(self.text)

    @property
    def lines(self) -> int:
        """How many lines `splitlines` would give."""
        count = len(self.starts)
        return count - 1 if self.text.endswith("\n") or not self.text else count

    @property
    def kept_lines(self) -> tuple[str, ...]:
        """The text's lines with their line endings (`splitlines(keepends=True)`)."""
        return _kept_lines(self.text)


@functools.lru_cache(maxsize=16)
def _kept_lines(text: str) -> tuple[str, ...]:
    # Like the line starts: a diff per mutant must not split the whole file each time.
    return tuple(text.splitlines(keepends=True))


@dataclass(frozen=True)
class Location:
    """Where a splice sits in the original, 1-based and end-exclusive, and its new text."""

    start: tuple[int, int]  # (line, column)
    end: tuple[int, int]
    replacement: str


def location(index: LineIndex, splice: Splice) -> Location:
    """The splice with the indentation and newline it shares with its replacement trimmed.

    Statement splices run from a line's indentation to its newline; a report
    should point at the code, not at the white space around it.
    """
    start, end, text = splice.start, splice.end, splice.replacement
    old = index.text
    while start < end and text and old[start] == text[0] and old[start].isspace():
        start, text = start + 1, text[1:]
    while start < end and text and old[end - 1] == text[-1] and old[end - 1].isspace():
        end, text = end - 1, text[:-1]
    return Location(
        (index.line_of(start), index.column_of(start)),
        (index.line_of(end), index.column_of(end)),
        text,
    )


def changed_lines(index: LineIndex, splices: Sequence[Splice]) -> frozenset[int]:
    """Original lines a splice removes or rewrites, and both lines around a pure insertion.

    An insertion between two statements changes what runs after the line
    before it and before the line after it; tests executing either may notice.
    """
    lines: set[int] = set()
    for splice in splices:
        first = index.line_of(splice.start)
        if splice.end > splice.start:
            lines.update(range(first, index.line_of(splice.end - 1) + 1))
            continue
        lines.add(first)
        if splice.start == index.line_start(first) and first > 1:
            lines.add(first - 1)
    last = max(index.lines, 1)
    return frozenset(min(line, last) for line in lines)


def _hunk_range(start: int, length: int) -> str:
    """`diff -u`'s range: 1-based start, omitted length when 1, start-1 when empty."""
    if length == 1:
        return str(start)
    return f"{start - 1 if length == 0 else start},{length}"


def _stop_line(index: LineIndex, splice: Splice, first: int) -> int:
    """One past the last original line a splice rewrites.

    A splice ending at a line start leaves that line alone, unless what comes
    before it on the rewritten line does not end with a newline: then the two
    join, and the next line is rewritten too.
    """
    text = index.text
    end = splice.end
    if end > 0 and text[end - 1] != "\n":
        return index.line_of(end) + 1
    head = text[index.line_start(first) : splice.start] + splice.replacement
    joins = head != "" and not head.endswith("\n") and end < len(text)
    return index.line_of(end) + (1 if joins else 0)


def _line_changes(index: LineIndex, splices: Sequence[Splice]) -> list[tuple[int, int, str]]:
    """The splices as whole lines: original lines [first, stop) become `text`.

    Splices that share a line merge into one change; a pure insertion at the
    start of a line replaces no line (first == stop).
    """
    changes: list[tuple[int, int, list[Splice]]] = []
    for splice in splices:
        if splice.start == splice.end and not splice.replacement:
            continue  # changes nothing
        first = index.line_of(splice.start)
        stop = _stop_line(index, splice, first)
        if changes and first < changes[-1][1]:
            previous_first, previous_stop, group = changes.pop()
            changes.append((previous_first, max(stop, previous_stop), [*group, splice]))
        else:
            changes.append((first, stop, [splice]))
    lines: list[tuple[int, int, str]] = []
    for first, stop, group in changes:
        begin = index.line_start(first)
        finish = index.line_end(stop - 1) if stop > first else begin
        local = [Splice(s.start - begin, s.end - begin, s.replacement) for s in group]
        lines.append((first, stop, apply_splices(index.text[begin:finish], local)))
    return lines


def _diff_lines(prefix: str, lines: Sequence[str]) -> list[str]:
    out = []
    for line in lines:
        out.append(prefix + line)
        if not line.endswith("\n"):
            out[-1] += "\n\\ No newline at end of file\n"
    return out


def unified_diff(path: str, original: str, splices: Sequence[Splice]) -> str:
    """`diff -u a/path b/path` of the splices (three lines of context), from the splices alone."""
    if not splices:
        return ""
    index = LineIndex(original)
    old = index.kept_lines
    changes = _line_changes(index, splices)
    # Changes whose context would touch share one hunk.
    hunks: list[list[tuple[int, int, str]]] = []
    for change in changes:
        if hunks and change[0] - hunks[-1][-1][1] <= 2 * CONTEXT:
            hunks[-1].append(change)
        else:
            hunks.append([change])
    out = [f"--- a/{path}\n", f"+++ b/{path}\n"]
    delta = 0  # mutated line number minus original line number, before the current hunk
    for hunk in hunks:
        low = max(1, hunk[0][0] - CONTEXT)
        high = min(len(old) + 1, hunk[-1][1] + CONTEXT)
        body: list[str] = []
        at, added = low, 0
        for first, stop, text in hunk:
            new = text.splitlines(keepends=True)
            body += _diff_lines(" ", old[at - 1 : first - 1])
            body += _diff_lines("-", old[first - 1 : stop - 1])
            body += _diff_lines("+", new)
            added += len(new) - (stop - first)
            at = stop
        body += _diff_lines(" ", old[at - 1 : high - 1])
        old_count = high - low
        new_count = old_count + added
        new_start = low + delta
        out.append(f"@@ -{_hunk_range(low, old_count)} +{_hunk_range(new_start, new_count)} @@\n")
        out += body
        delta += added
    return "".join(out)


# --- source text ----------------------------------------------------------------------------

# A UTF-8 byte order mark decodes to this character. The texts guardcheck keeps (and
# the splices' offsets) include it, so a mutant is written back with it; libcst and
# the compiler are given the text after it.
BOM = "\ufeff"


class SourceEncodingError(ValueError):
    """Source bytes Python itself would refuse to decode: what is wrong, and the fix."""

    def __init__(self, message: str, fix: str) -> None:
        super().__init__(message)
        self.fix = fix


def read_source(path: Path) -> str:
    """A Python file's text as the interpreter decodes it, with every byte of it kept.

    Bytes, not `read_text()`: universal newlines would turn CRLF files into LF, and
    the splices would no longer fit the file. The encoding is the one Python reads
    the file with (PEP 263 and 3120: a coding cookie on line 1 or 2, else UTF-8);
    a UTF-8 BOM stays in the text as `BOM`. OSError when the file cannot be read,
    SourceEncodingError when Python could not decode it either.
    """
    return decode_source(path.read_bytes())


def decode_source(data: bytes) -> str:
    """`data` decoded as `read_source` decodes a file's bytes."""
    encoding = _codec(_declared_encoding(data))
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        byte = data[exc.start : exc.start + 1].hex()
        declared = _declared(data)
        if declared is None:
            raise SourceEncodingError(
                f"line {line} is not UTF-8 (byte 0x{byte}), and the file declares no encoding",
                "save the file as UTF-8, or declare its encoding with a coding cookie on "
                "line 1 or 2 (`# -*- coding: latin-1 -*-`)",
            ) from None
        raise SourceEncodingError(
            f"line {line} is not valid {declared} (byte 0x{byte}), the encoding its coding "
            "cookie declares",
            f"save the file as {declared}, or fix the coding cookie to the file's encoding",
        ) from None


def encode_source(text: str) -> bytes:
    """The bytes of `text` (as `read_source` gives it) in the encoding it declares itself.

    UnicodeEncodeError when the text holds a character that encoding lacks.
    """
    head = "".join(text.splitlines(keepends=True)[:2]).encode("utf-8", "surrogatepass")
    return text.encode(_codec(_declared_encoding(head)))


def _declared_encoding(data: bytes) -> str:
    """tokenize's answer for these bytes: "utf-8-sig" after a BOM, a cookie's codec, or utf-8."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:  # an unknown codec, a BOM with another cookie, or not UTF-8
        declared = _declared(data)
        if declared is not None and data.startswith(BOM.encode("utf-8")):
            raise SourceEncodingError(
                f"it starts with a UTF-8 byte order mark but its coding cookie declares {declared}",
                "remove the byte order mark, or make the cookie say utf-8",
            ) from None
        if declared is not None:
            raise SourceEncodingError(
                f"its coding cookie declares {declared}, an encoding Python does not know",
                "name a codec Python knows in the cookie (`# -*- coding: latin-1 -*-`), "
                "or save the file as UTF-8 and remove the cookie",
            ) from None
        return "utf-8"  # no cookie, and bytes that are not UTF-8: decoding says where
    return encoding


def _codec(encoding: str) -> str:
    # utf-8-sig would drop the BOM from the text; it is kept there as a character.
    return "utf-8" if encoding == "utf-8-sig" else encoding


_COOKIE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")


def _declared(data: bytes) -> str | None:
    """The encoding named by a coding cookie on line 1 or 2 (PEP 263's pattern), as written."""
    for line in data.removeprefix(BOM.encode("utf-8")).splitlines()[:2]:
        found = _COOKIE.match(line)
        if found:
            return found.group(1).decode("ascii", "replace")
        if line.strip() and not line.lstrip().startswith(b"#"):
            return None  # code on line 1: a cookie on line 2 does not count
    return None
