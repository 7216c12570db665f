"""Stable, readable sweep mutant ids: `path:line:col: replace <code> with <code>`.

An id is a function of the mutant and of the other mutants in its own file
only, so it does not change with the order files are given in, with filters
(ids are assigned before filtering) or with edits to other files. Two
mutants of one file that would read the same get a short hash suffix.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Sequence

from guardcheck.splices import Splice

WIDTH = 40  # of each code snippet in an id


def snippet(code: str, width: int = WIDTH) -> str:
    """Code on one line (runs of white space become one space), cut to `width` with `...`."""
    text = " ".join(code.split())
    return text if len(text) <= width else text[: width - 3] + "..."


def describe(original: str, replacement: str, width: int = WIDTH, quote: str = "") -> str:
    """`replace <original> with <replacement>`, or `delete <original>` when nothing replaces it."""
    old = f"{quote}{snippet(original, width)}{quote}"
    if not replacement.strip():
        return f"delete {old}"
    return f"replace {old} with {quote}{snippet(replacement, width)}{quote}"


def readable_id(path: str, line: int, column: int, original: str, replacement: str) -> str:
    return f"{path}:{line}:{column}: {describe(original, replacement)}"


def unique_ids(
    path: str, readable: Sequence[str], splices: Sequence[Splice], operators: Sequence[str]
) -> list[str]:
    """Each mutant's readable id, with a hash of what it does appended when ids collide.

    The hash covers the exact splice and operator; mutants identical even in
    those (mutmut yields `f(a)` twice for `f(a, a)`) are told apart by their
    rank among their twins, in source order.
    """
    groups: dict[str, list[int]] = defaultdict(list)
    for index, text in enumerate(readable):
        groups[text].append(index)
    ids = list(readable)
    for text, members in groups.items():
        if len(members) == 1:
            continue
        seen: dict[tuple[int, int, str, str], int] = defaultdict(int)
        for index in sorted(members, key=lambda i: _what(splices[i], operators[i])):
            what = _what(splices[index], operators[index])
            twin = seen[what]
            seen[what] += 1
            digest = hashlib.sha256(repr((path, *what, twin)).encode()).hexdigest()[:6]
            ids[index] = f"{text} #{digest}"
    return ids


def _what(splice: Splice, operator: str) -> tuple[int, int, str, str]:
    return (splice.start, splice.end, splice.replacement, operator)
