"""Lines changed since a git revision, for `generate(changed_lines=...)` (a `--since REV` sweep).

The working tree is compared with REV (committed, staged and unstaged edits
alike), and files git does not track yet count as wholly changed. Paths are
posix and relative to `root`, like sweep mutants' paths.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from guardcheck import git
from guardcheck.errors import GuardcheckError

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


def changed_lines_since(root: Path, rev: str, paths: Sequence[str]) -> dict[str, set[int]]:
    """path -> line numbers (in today's file) added or rewritten since `rev`.

    A pure deletion changes no line of today's file; the lines on both sides
    of it count as changed, since the code around a removal is what now
    behaves differently.
    """
    pathspec = ["--", *paths] if paths else []
    diff = _git(
        root,
        ["diff", "--relative", "--unified=0", "--no-color", "--no-ext-diff", rev, *pathspec],
    )
    changed = _parse_diff(diff)
    untracked = _git(root, ["ls-files", "--others", "--exclude-standard", "-z", *pathspec])
    for path in filter(None, untracked.split("\0")):
        lines = _line_count(root / path)
        changed[path] = set(range(1, lines + 1))
    return {path: lines for path, lines in changed.items() if lines}


def _parse_diff(diff: str) -> dict[str, set[int]]:
    changed: dict[str, set[int]] = {}
    current: set[int] | None = None
    for line in diff.splitlines():
        if line.startswith("+++ "):
            target = line[4:]
            # /dev/null: the file was deleted, nothing of it is left to mutate.
            current = None if target == "/dev/null" else changed.setdefault(_unquote(target), set())
            continue
        match = _HUNK.match(line)
        if match is None or current is None:
            continue
        start = int(match.group(1))
        count = 1 if match.group(2) is None else int(match.group(2))
        if count:
            current.update(range(start, start + count))
        else:  # deleted lines sat between `start` and `start + 1`
            current.update(n for n in (start, start + 1) if n >= 1)
    return changed


_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13}


def _unquote(target: str) -> str:
    """`b/path` as git prints it: C-quoted, octal bytes of UTF-8, when a name needs it."""
    if target.startswith('"') and target.endswith('"'):
        body, raw, at = target[1:-1], bytearray(), 0
        while at < len(body):
            char = body[at]
            if char != "\\" or at + 1 == len(body):
                raw += char.encode()
                at += 1
            elif body[at + 1] in "01234567":
                raw.append(int(body[at + 1 : at + 4], 8))
                at += 4
            else:
                raw.append(_ESCAPES.get(body[at + 1], ord(body[at + 1])))
                at += 2
        target = raw.decode("utf-8", "replace")
    return target.removeprefix("b/")


def _line_count(path: Path) -> int:
    try:
        return len(path.read_bytes().splitlines())
    except OSError:
        return 0


def _git(root: Path, args: list[str]) -> str:
    done = git.run(
        root,
        "-c",
        "core.quotepath=off",
        *args,
        missing="`--since` needs git, which is not on PATH",
        errors="replace",
    )
    if done.returncode != 0:
        message = done.stderr.strip().splitlines()
        raise GuardcheckError(
            f"git {' '.join(args[:1])} failed: {message[-1] if message else 'no output'}\n"
            "  fix: give a revision git knows (a branch, tag or commit) in a git work tree"
        )
    return done.stdout
