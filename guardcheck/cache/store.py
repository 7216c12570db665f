"""Entries on disk under `<output>/cache/`: packs of checked entries.

A run appends every entry it writes to a pack of its own, `packs/<name>.jsonl`, one
line per entry: `<kind> <key> <json>`, the JSON holding the format version,
guardcheck's version, its kind, its key, the inputs the key was computed from and a seal
(`Seals`) beside the body. A reader believes an entry only when the first four match what
it asked for, the seal matches, and (when the reader gives them) the inputs are its own;
anything else (truncated, foreign, from another guardcheck, edited, moved under another
key) is discarded with a warning and counts as a miss, so a bad line can cost a re-run
but never a verdict. Each line goes out in one write(2) to a
file opened for appending, and a reader ignores a last line without its newline (a
writer still at work, or killed mid-line): a concurrent reader sees whole entries.

Why packs: a fresh sweep stores two entries per mutant, and as one file each they were
half of the files a run created; on a filesystem where creating a file is slow (this
project's benchmark machine: ext4 without a journal, which scans the inodes deleted in
the last minutes on every create) that was a visible part of a short sweep
(bench/README.md).

Eviction: the store remembers every entry this run read or wrote (or, for an entry
another one names, vouched for); after a complete run `evict_unused` writes those into
one new pack (a temporary file renamed into place) and removes the packs it had read,
so the cache holds what the last complete run used and no more. A pack that another
run started meanwhile is left alone. Entries of the earlier layouts, one file each
(`<kind>/<key>.json`, `<kind>/<key[:2]>/<key>.json`), are never read and so removed.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import sys
import tempfile
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from guardcheck import __version__
from guardcheck.cache.keys import FORMAT

PACKS = "packs"
SECRET_VARIABLE = "GUARDCHECK_CACHE_SECRET"
UNSEALED = "-"  # the seal's value while the seal is computed
Entry = tuple[str, str]  # kind, key


class Store:
    def __init__(self, folder: Path, secret: bytes | None = None) -> None:
        """`secret`: seal entries with HMAC under it (see Seals); None: a plain checksum."""
        self.folder = folder
        self._seals = Seals(secret)
        self.packs = folder / PACKS
        self.warnings: list[str] = []
        self.used: set[Entry] = set()  # entries this run read or wrote: kept by evict_unused
        self._index: dict[Entry, str] | None = None  # each entry's JSON text, read lazily
        self._loaded: list[Path] = []  # the packs the index was read from
        self._own: tuple[int, Path] | None = None  # this run's pack, open for appending
        self._lock = threading.Lock()  # cache.Saver writes from its thread

    def read(self, kind: str, key: str, inputs: Mapping[str, str] | None = None) -> Any | None:
        """The body stored under (kind, key), when its entry is whole, of this format and
        version, sealed as this store seals, and (given `inputs`) computed from them."""
        with self._lock:
            text = self._entries().get((kind, key))
        if text is None:
            return None
        try:
            entry = json.loads(text)
        except ValueError as exc:
            return self.discard(kind, key, f"not JSON ({exc})")
        if not isinstance(entry, dict) or "body" not in entry:
            return self.discard(kind, key, "not a guardcheck cache entry")
        expected = {"format": FORMAT, "guardcheck": __version__, "kind": kind, "key": key}
        found = {name: entry.get(name) for name in expected}
        if found != expected:
            return self.discard(kind, key, f"written for {found}, not {expected}")
        recorded, body = entry.get("inputs"), entry["body"]
        unsealed = self._seals.check(text, entry.get("seal"))
        if unsealed:
            return self.discard(kind, key, unsealed)
        if inputs is not None and recorded != inputs:
            differ = sorted(
                n for n in {*inputs, *(recorded or {})} if (recorded or {}).get(n) != inputs.get(n)
            )
            return self.discard(
                kind, key, f"computed from other inputs ({', '.join(differ)}) than this run's"
            )
        self.used.add((kind, key))
        return body

    def has(self, kind: str, key: str) -> bool:
        """Is there an entry (not read, so not checked: `read` does that)?"""
        with self._lock:
            return (kind, key) in self._entries()

    def keep(self, kind: str, key: str) -> None:
        """Keep an entry from eviction without reading it (another entry names it)."""
        self.used.add((kind, key))

    def discard(self, kind: str, key: str, why: str) -> None:
        """Warn, and forget the entry: the next eviction leaves it out."""
        where = f"cache entry {kind} {key} in {self.folder}"
        self._warn(f"guardcheck: warning: {where} discarded: {why}")
        with self._lock:
            self._entries().pop((kind, key), None)
        self.used.discard((kind, key))

    def write_many(self, entries: Sequence[tuple[Any, ...]]) -> None:
        """`write` each (kind, key, body[, inputs]); cache.Saver calls it off the lab's thread."""
        for entry in entries:
            self.write(*entry)

    def write(
        self, kind: str, key: str, body: Any, inputs: Mapping[str, str] | None = None
    ) -> None:
        """Append the entry, with the inputs its key was computed from and its seal."""
        recorded = dict(inputs) if inputs is not None else None
        entry = {"format": FORMAT, "guardcheck": __version__, "kind": kind, "key": key}
        entry |= {"inputs": recorded, "seal": UNSEALED, "body": body}
        text = self._seals.sealed(json.dumps(entry, ensure_ascii=False, separators=(",", ":")))
        line = f"{kind} {key} {text}\n".encode()
        try:
            with self._lock:
                if self._entries().get((kind, key)) == text:  # stored already, unchanged
                    self.used.add((kind, key))
                    return
                fd = self._own_pack()
                if os.write(fd, line) != len(line):  # a full disk: the line is not whole
                    raise OSError("short write (disk full?)")
                self._entries()[(kind, key)] = text
                self.used.add((kind, key))
        except OSError as exc:  # a read-only or full disk loses the cache, not the run
            print(
                f"guardcheck: warning: cache entry {kind} {key} in {self.folder} not written: "
                f"{exc}",
                file=sys.stderr,
            )

    def entries(self) -> list[Entry]:
        """Every entry on disk, by kind and key (for tests and tools)."""
        with self._lock:
            return sorted(self._entries())

    def evict_unused(self, *, stale_temp_seconds: float = 3600.0) -> int:
        """Drop every entry this run did not use, and the earlier layouts' files; how many.

        A temporary file is removed only once it is old: a young one may be another
        run's eviction in progress.
        """
        with self._lock:
            index = self._entries()
            kept = {entry: index[entry] for entry in self.used if entry in index}
            dropped = len(index) - len(kept)
            packs = [*self._loaded, *([self._own[1]] if self._own else [])]
            if dropped or len(packs) > 1:
                self._repack(kept, packs)
        return dropped + self._remove_leftovers(stale_temp_seconds)

    # -- helpers -----------------------------------------------------------------------

    def _entries(self) -> dict[Entry, str]:
        """The index of every pack, read once (newer packs win); call with the lock held."""
        if self._index is not None:
            return self._index
        index: dict[Entry, str] = {}
        with contextlib.suppress(OSError):
            found = sorted(self.packs.glob("*.jsonl"), key=lambda p: p.stat().st_mtime_ns)
            for path in found:
                try:
                    lines = path.read_bytes().split(b"\n")[:-1]  # the last one is unfinished
                except OSError as exc:
                    self._warn(f"guardcheck: warning: cache pack {path} unreadable ({exc})")
                    continue
                self._loaded.append(path)
                for line in lines:
                    with contextlib.suppress(UnicodeDecodeError, ValueError):
                        kind, key, text = line.decode("utf-8").split(" ", 2)
                        index[(kind, key)] = text  # a line of another shape: dropped
        self._index = index
        return index

    def _own_pack(self) -> int:
        if self._own is None:
            self.packs.mkdir(parents=True, exist_ok=True)
            path = self.packs / _unique("run")
            flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | os.O_CLOEXEC
            self._own = os.open(path, flags, 0o644), path
        return self._own[0]

    def _repack(self, kept: dict[Entry, str], packs: list[Path]) -> None:
        """`kept` into one new pack; `packs` (read or written by this run) removed."""
        text = "".join(f"{kind} {key} {data}\n" for (kind, key), data in sorted(kept.items()))
        name = self.packs / _unique("kept")
        try:
            handle, temp = tempfile.mkstemp(dir=self.packs, prefix=".tmp-", suffix=".part")
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(text)
            os.replace(temp, name)
        except OSError as exc:
            self._warn(f"guardcheck: warning: cache in {self.folder} not compacted: {exc}")
            with contextlib.suppress(OSError, UnboundLocalError):
                os.unlink(temp)
            return
        if self._own is not None:
            os.close(self._own[0])
            self._own = None
        for path in packs:
            with contextlib.suppress(OSError):
                path.unlink()
        self._index, self._loaded = dict(kept), [name]

    def _remove_leftovers(self, stale_temp_seconds: float) -> int:
        removed = 0
        now = time.time()
        # Entries of the one-file-per-entry layouts, never read now.
        for path in [*self.folder.glob("*/*.json"), *self.folder.glob("*/*/*.json")]:
            with contextlib.suppress(OSError):
                path.unlink()
                removed += 1
        for folder in [*self.folder.glob("*/*/"), *self.folder.glob("*/")]:
            if folder.name != PACKS:
                with contextlib.suppress(OSError):
                    folder.rmdir()  # only when emptied
        for temp in self.packs.glob(".tmp-*"):
            with contextlib.suppress(OSError):
                if now - temp.stat().st_mtime >= stale_temp_seconds:
                    temp.unlink()
        return removed

    def _warn(self, message: str) -> None:
        self.warnings.append(message)
        print(message, file=sys.stderr)


class Seals:
    """An entry's seal: a digest of its whole JSON text, written with the seal's value
    blanked (UNSEALED) and then filled in. Hashing the text as stored costs a reader one
    string replace and one hash, not a second serialisation of every body. (Within JSON
    text `"seal":"` can only be a key, and bodies have no such key.)

    Without a secret it is a plain sha256, which anyone can recompute: it catches an
    entry edited by hand or by a tool that does not reseal (a survivor rewritten to
    "caught"), not a forger who runs this code. With `GUARDCHECK_CACHE_SECRET` it is an
    HMAC under that secret, and an entry sealed by anyone without it is refused: a run
    with a secret believes only HMAC seals it can check, and a run without one refuses
    HMAC seals (it cannot check them). docs/ci.md says who can forge what.
    """

    def __init__(self, secret: bytes | None) -> None:
        self._secret = secret or None
        self.scheme = "hmac-sha256" if self._secret else "sha256"

    def sealed(self, unsealed: str) -> str:
        """`unsealed` (entry text whose seal is UNSEALED) with its seal filled in."""
        return unsealed.replace(_field(UNSEALED), _field(self._digest(unsealed)), 1)

    def check(self, text: str, found: object) -> str | None:
        """Why the seal `found` does not vouch for `text`, or None when it does."""
        scheme = found.split(":", 1)[0] if isinstance(found, str) else None
        if scheme != self.scheme or not isinstance(found, str):
            if self._secret is not None:
                return f"not sealed with {SECRET_VARIABLE} (sealed {scheme or 'not at all'})"
            if scheme == "hmac-sha256":
                return f"sealed with a {SECRET_VARIABLE} this run does not have"
            return "not sealed"
        unsealed = text.replace(_field(found), _field(UNSEALED), 1)
        if not hmac.compare_digest(found, self._digest(unsealed)):
            return "its seal does not match its content (changed after it was written)"
        return None

    def _digest(self, unsealed: str) -> str:
        data = unsealed.encode("utf-8", "surrogatepass")
        if self._secret is None:
            return f"{self.scheme}:{hashlib.sha256(data).hexdigest()}"
        return f"{self.scheme}:{hmac.new(self._secret, data, hashlib.sha256).hexdigest()}"


def _field(seal: str) -> str:
    return f'"seal":{json.dumps(seal)}'


def cache_secret() -> bytes | None:
    """GUARDCHECK_CACHE_SECRET from the environment, if set and not empty."""
    value = os.environ.get(SECRET_VARIABLE, "")
    return value.encode("utf-8") if value else None


def _unique(prefix: str) -> str:
    """A pack name no other run picks: pid and clock, as two runs may share the folder."""
    return f"{prefix}-{os.getpid()}-{time.time_ns()}.jsonl"
