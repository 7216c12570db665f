"""The output folder (`.guardcheck/` by default), written as the run goes.

Layout::

    .gitignore         "*": the folder never shows up in `git status`
    baseline.json      the unmutated tests and their durations
    mutants/<id>.diff  written when a mutant starts
    mutants/<id>.log   written when it finishes
    mutants.previous/  the last run's mutants/ while this one runs: unchanged files are
                       moved over rather than written again; removed by finish()
    outcomes.jsonl     one JSON line per finished mutant, appended
    selection-tests.jsonl
                       the ordered test-id lists the outcomes' selections index into,
                       one line `{"index": i, "tests": [...]}` per distinct list, written
                       before the first outcome that uses it
    caught.txt, missed.txt, timeout.txt
                       mutant ids by verdict: appended per mutant, rewritten by finish()
    lock               flock'ed by the running guardcheck (its pid inside)
    tree/, tree.json   the private copy of the project the tests run in, and its manifest
    pyvenv.cfg, conftest.py
                       keep the user's own pytest from collecting tree/ when the project's
                       `norecursedirs` does not skip dot-folders (lab/sandbox/pytestguard.py)

Everything is flushed per mutant, so a killed or interrupted run still leaves evidence
(the idea of cargo-mutants' `mutants.out/`).
"""

from __future__ import annotations

import dataclasses
import fcntl
import hashlib
import json
import os
import re
import shutil
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from guardcheck.model import BaselineTest, Mutant, MutantResult, RunReport, Status
from guardcheck.reports.record import SelectionTables, encode_selection

# The first line of our .gitignore marks the folder as ours: only then do we clear it.
MARKER = "# written by guardcheck: this folder is scratch output, safe to delete"
GITIGNORE = f"{MARKER}\n*\n"

LISTS: dict[str, frozenset[Status]] = {
    "caught.txt": frozenset({Status.CAUGHT}),
    "missed.txt": frozenset(
        {
            Status.SURVIVED,
            Status.NO_COVERAGE,
            Status.CAUGHT_ELSEWHERE,
            Status.WEAKENED,
            Status.GAP_CLOSED,
            Status.ERROR,
        }
    ),
    "timeout.txt": frozenset({Status.TIMEOUT}),
    "known-gaps.txt": frozenset({Status.KNOWN_GAP}),  # accepted, but listed apart
}
# What a previous run may have left; nothing else in the folder is ever touched.
SELECTION_TESTS = "selection-tests.jsonl"
OWN_FILES = ("baseline.json", "outcomes.jsonl", SELECTION_TESTS, "internal-error.txt", *LISTS)
# Also ours, kept between runs: the private copy of the project and its manifest
# (guardcheck/lab/sandbox/projectcopy.py).
MUTANTS_DIR = "mutants"
# The previous run's mutants/ while this run writes its own: a file whose text is
# unchanged is moved over instead of written again (a cached re-run of 1,000 mutants
# would otherwise create 2,000 files); what is left is removed by finish().
PREVIOUS_DIR = "mutants.previous"
LOCK = "lock"  # flock'ed for the whole run; holds the holder's pid


class OutputFolderUnusable(Exception):
    """The output folder cannot be used; the message says why and how to fix it."""


def safe_name(mutant_id: str) -> str:
    """A file name for a mutant id: readable, and unique even after sanitising."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", mutant_id).strip("._-")[:80]
    if safe != mutant_id:
        # Sweep names ("run.py:42:7: replace < with <=") would collide once sanitised.
        safe = f"{safe}-{hashlib.sha1(mutant_id.encode()).hexdigest()[:8]}"
    return safe


def _list_for(status: Status) -> str:
    return next(name for name, statuses in LISTS.items() if status in statuses)


class OutputFolder:
    """Implements the run events by writing evidence to disk; call finish() at the end."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.mutants = self.path / MUTANTS_DIR
        self.previous = self.path / PREVIOUS_DIR
        self._lock = threading.Lock()
        self._tables = SelectionTables()  # guarded by _lock
        self._held: int | None = None  # the lock file's descriptor while this run owns it
        try:
            self._prepare()
        except OSError as exc:
            self.close()
            raise OutputFolderUnusable(
                f"{self.path}: cannot write the output folder: {exc.strerror or exc}\n"
                "  fix: make it a writable folder, or point `output` in [tool.guardcheck] "
                "elsewhere"
            ) from None
        except BaseException:
            self.close()
            raise

    def _prepare(self) -> None:
        gitignore = self.path / ".gitignore"
        if self.path.exists() and not self.path.is_dir():
            raise OutputFolderUnusable(
                f"{self.path}: the output folder is a file, not a folder\n"
                "  fix: remove it, or point `output` in [tool.guardcheck] elsewhere"
            )
        if self.path.exists():
            ours = gitignore.is_file() and gitignore.read_text(encoding="utf-8").startswith(MARKER)
            if not ours and any(self.path.iterdir()):
                raise OutputFolderUnusable(
                    f"{self.path}: output folder exists and was not created by guardcheck\n"
                    "  fix: point `output` in [tool.guardcheck] at a new folder, or empty it"
                )
        self.path.mkdir(parents=True, exist_ok=True)
        gitignore.write_text(GITIGNORE, encoding="utf-8")
        self._take_lock()  # before touching anything another run may be writing
        for name in OWN_FILES:
            (self.path / name).unlink(missing_ok=True)
        shutil.rmtree(self.previous, ignore_errors=True)  # left by a run that was killed
        if self.mutants.is_dir():
            self.mutants.rename(self.previous)
        else:
            shutil.rmtree(self.mutants, ignore_errors=True)
        self.mutants.mkdir()

    def _take_lock(self) -> None:
        """Two runs at once would interleave outcomes.jsonl: the second one is refused.

        flock, not a pid file: the kernel drops it when the holder dies, even by kill -9.
        """
        fd = os.open(self.path / LOCK, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
            os.close(fd)
            raise OutputFolderUnusable(
                f"{self.path}: another guardcheck run (pid {holder}) is using this output "
                "folder\n  fix: wait for it to finish, or give this run another `output`"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._held = fd

    def close(self) -> None:
        """Release the run's lock (the process ending releases it too)."""
        if self._held is not None:
            os.close(self._held)
            self._held = None

    def __enter__(self) -> OutputFolder:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def diff_path(self, mutant: Mutant) -> Path:
        return self.mutants / f"{safe_name(mutant.id)}.diff"

    def log_path(self, mutant: Mutant) -> Path:
        return self.mutants / f"{safe_name(mutant.id)}.log"

    # -- events ------------------------------------------------------------------------

    def run_started(self, mutants: Sequence[Mutant]) -> None:
        pass  # each mutant's diff is written when it starts

    def baseline_started(self) -> None:
        pass  # nothing to record until there is a result

    def baseline_finished(self, tests: list[BaselineTest], seconds: float) -> None:
        data = {
            "seconds": seconds,
            "tests": [{"nodeid": t.nodeid, "duration": t.duration, "path": t.path} for t in tests],
        }
        (self.path / "baseline.json").write_text(json.dumps(data, indent=2) + "\n", "utf-8")

    def mutant_started(self, mutant: Mutant) -> None:
        self._write(self.diff_path(mutant), mutant.diff())

    def mutant_finished(self, result: MutantResult, log: str) -> None:
        mutant = result.mutant
        diff = self.diff_path(mutant)
        if not diff.exists():  # a mutant decided without running (e.g. no coverage)
            self._write(diff, mutant.diff())
        self._write(self.log_path(mutant), log)
        outcome = self._outcome(result)
        with self._lock:
            index, added = self._tables.list_index(result.selection)
            if added:
                tests = {"index": index, "tests": self._tables.lists[index]}
                self._append(SELECTION_TESTS, json.dumps(tests, ensure_ascii=False))
            outcome["selection"] = encode_selection(result.selection, index)
            self._append("outcomes.jsonl", json.dumps(outcome, ensure_ascii=False))
            self._append(_list_for(result.status), mutant.id)

    def finish(self, report: RunReport) -> None:
        """Rewrite the verdict lists from the final report, in its order."""
        with self._lock:
            for name, statuses in LISTS.items():
                ids = [r.mutant.id for r in report.results if r.status in statuses]
                (self.path / name).write_text("".join(f"{i}\n" for i in ids), encoding="utf-8")
        shutil.rmtree(self.previous, ignore_errors=True)

    # -- helpers -----------------------------------------------------------------------

    def _write(self, path: Path, text: str) -> None:
        """Write `text` to `path`, moving the previous run's file over when it is the same."""
        old = self.previous / path.name
        try:
            if old.read_text(encoding="utf-8") == text:
                old.rename(path)
                return
        except (OSError, UnicodeDecodeError):
            pass  # no such file, or unreadable: write it anew
        path.write_text(text, encoding="utf-8")

    def _append(self, name: str, line: str) -> None:
        # One open/write/close per line: the line reaches the OS even if we are killed next.
        with (self.path / name).open("a", encoding="utf-8") as handle:
            handle.write(line + "\n")

    def _outcome(self, result: MutantResult) -> dict[str, Any]:
        mutant = result.mutant
        return {
            "id": mutant.id,
            "status": result.status.value,
            "reason": result.reason,
            "summary": mutant.summary,
            "files": [change.path for change in mutant.changes],
            "where": str(mutant.span),
            "path": result.path,
            "duration": result.duration,
            "killers": list(result.killers),
            "expected_killers": list(mutant.killed_by),
            "expected_killers_any": list(mutant.killed_by_any),
            "expect": mutant.expect,
            "tests": [
                {
                    "nodeid": t.nodeid,
                    "outcome": t.outcome.value,
                    "duration": t.duration,
                    "message": t.message,
                }
                for t in result.tests
            ],
            "outcome": dataclasses.asdict(result.outcome) if result.outcome else None,
            # Filled in under the lock: {"tests": index into selection-tests.jsonl, "default":
            # the mutant's most common row, "except": [[position, selected, reason], ...]}.
            "selection": None,
            "diff": self.diff_path(mutant).relative_to(self.path).as_posix(),
            "log": self.log_path(mutant).relative_to(self.path).as_posix(),
        }
