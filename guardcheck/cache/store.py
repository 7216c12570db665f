"""Entries on disk under `<output>/cache/`: atomic writes, checked reads.

Each entry is one JSON file `<kind>/<key>.json` holding the format version,
guardcheck's version, its kind and its key beside the body. A reader believes an entry
only when all four match what it asked for; anything else (truncated, foreign, from
another guardcheck, renamed) is discarded with a warning and counts as a miss, so a bad
file can cost a re-run but never a verdict. Writes go to a temporary file in the same
folder and `os.replace` it into place: a concurrent reader sees the old entry or the new
one, never half of one; two runs writing the same key write the same content.

Eviction: the store remembers every entry this run read or wrote (or, for an entry
another one names, vouched for); `evict_unused` removes the rest, so the cache holds
what the last complete run used and no more.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from guardcheck import __version__
from guardcheck.cache.keys import FORMAT


class Store:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.warnings: list[str] = []
        self.used: set[Path] = set()  # entries this run read or wrote: kept by evict_unused

    def path(self, kind: str, key: str) -> Path:
        # One folder per kind, not per key prefix too: a fresh run's entries would make
        # a folder each (272 for 363 entries), and a folder costs what a file does.
        return self.folder / kind / f"{key}.json"

    def read(self, kind: str, key: str) -> Any | None:
        path = self.path(kind, key)
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError) as exc:
            return self.discard(path, f"unreadable ({exc})")
        try:
            entry = json.loads(text)
        except ValueError as exc:
            return self.discard(path, f"not JSON ({exc})")
        if not isinstance(entry, dict) or "body" not in entry:
            return self.discard(path, "not a guardcheck cache entry")
        expected = {"format": FORMAT, "guardcheck": __version__, "kind": kind, "key": key}
        found = {name: entry.get(name) for name in expected}
        if found != expected:
            return self.discard(path, f"written for {found}, not {expected}")
        self.used.add(path)
        return entry["body"]

    def discard(self, path: Path, why: str) -> None:
        """Warn, remove the entry (best effort: a concurrent run may have replaced it)."""
        message = f"guardcheck: warning: cache entry {path} discarded: {why}"
        self.warnings.append(message)
        print(message, file=sys.stderr)
        with contextlib.suppress(OSError):
            path.unlink()

    def write_many(self, entries: Sequence[tuple[str, str, Any]]) -> None:
        """`write` each (kind, key, body); cache.Saver calls it off the lab's thread."""
        for entry in entries:
            self.write(*entry)

    def write(self, kind: str, key: str, body: Any) -> None:
        path = self.path(kind, key)
        entry = {"format": FORMAT, "guardcheck": __version__, "kind": kind, "key": key}
        text = json.dumps({**entry, "body": body}, ensure_ascii=False, separators=(",", ":"))
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle, temp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(text)
            os.replace(temp, path)
            self.used.add(path)
        except OSError as exc:  # a read-only or full disk loses the cache, not the run
            print(f"guardcheck: warning: cache entry {path} not written: {exc}", file=sys.stderr)
            with contextlib.suppress(OSError, UnboundLocalError):
                os.unlink(temp)

    def evict_unused(self, *, stale_temp_seconds: float = 3600.0) -> int:
        """Remove every entry this run did not use; the number removed.

        A temporary file is removed only once it is old: a young one may be another
        run's write in progress (its output folder differs, its cache folder not).
        """
        removed = 0
        now = time.time()
        # */*/*.json: entries of the layout before this one, never used now.
        for path in [*self.folder.glob("*/*.json"), *self.folder.glob("*/*/*.json")]:
            if path in self.used:
                continue
            if path.name.startswith(".tmp-"):
                with contextlib.suppress(OSError):
                    if now - path.stat().st_mtime < stale_temp_seconds:
                        continue
            with contextlib.suppress(OSError):
                path.unlink()
                removed += 1
        for folder in self.folder.glob("*/*/"):  # emptied folders of that layout
            with contextlib.suppress(OSError):
                folder.rmdir()
        return removed
