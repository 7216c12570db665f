"""The lab's checkpoints: pytest sessions paused before a test file, forked per run.

A mutant whose changed code ran only while pytest collected some test files
(lab/prepare/classify.py's `collected_in`) needs pytest to collect those files again
with the mutant in place, which a fresh interpreter does from its very start. A
checkpoint (child/checkpoint.py) is the same session paused just before the first of
them, so a run pays for the rest of the collection only. One per such file, started
from the warm interpreter (child/zygote.py) the first time a mutant needs it; until it
is listening, and whenever it cannot serve, mutants run in fresh interpreters as before.

One more, the start, pauses before the first conftest.py: every other fresh run whose
mutated files nothing before that pause imported or read resumes there, skipping
pytest's start-up and its plugins' imports.
"""

from __future__ import annotations

import dataclasses
import json
import os
import secrets
import socket
import time
from collections.abc import Collection, Sequence
from pathlib import Path

from guardcheck import messages
from guardcheck.child.procs import kill_group
from guardcheck.lab.execute.processes import (
    ForkedRun,
    HostInfo,
    Zygote,
    child_env,
    quiet_plugins,
    request_fork,
)
from guardcheck.options import RunOptions

NO_CHECKPOINTS = "GUARDCHECK_NO_CHECKPOINTS"  # benchmarks, debugging: fresh runs only
MAX_CHECKPOINTS = 4  # paused sessions alive at once (each a collected suite); more run fresh
START = ""  # the checkpoint before the first conftest.py, as a key among the test files
ANSWER_TIMEOUT = 10.0  # seconds: a checkpoint answers at once once it listens
_POLL = 0.005  # seconds between looks for a checkpoint that is still collecting


class Checkpoint:
    """One paused session: `fork` runs a mutant from it once it listens."""

    def __init__(
        self, run: ForkedRun, address: str, file: str, log: Path, before: Path | None = None
    ) -> None:
        self.run = run
        self.address = address
        self.file = file  # "": the start
        self.log = log
        self.socket: socket.socket | None = None
        self.failed = False
        self._stopped = False
        self._before = before
        # Real paths of the files imported or read before the pause (once it listens).
        self.before_pause: frozenset[str] = frozenset()

    def ready(self) -> bool:
        """Listening now (connected on the first call that finds it so)."""
        if self.socket is not None:
            return True
        if self.failed or self.run.poll() is not None:
            self.failed = True
            return False
        server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            server.connect("\0" + self.address)
        except OSError:  # not listening yet
            server.close()
            return False
        server.settimeout(ANSWER_TIMEOUT)
        if self._before is not None:
            try:  # written before it listened
                self.before_pause = frozenset(json.loads(self._before.read_text("utf-8")))
            except (OSError, ValueError) as exc:
                self._note(f"the checkpoint's list of files read before it paused: {exc}")
                server.close()
                self.stop()
                return False
        self.socket = server
        return True

    def fork(self, run: messages.ForkRun) -> ForkedRun | None:
        if self.socket is None:
            return None
        forked = request_fork(self.socket, run)
        if isinstance(forked, str):
            self._note(f"the checkpoint before {self.file} {forked}; its mutants run fresh")
            self.stop()
            return None
        return forked

    def _note(self, text: str) -> None:
        with open(self.log, "a", encoding="utf-8") as log:
            log.write(f"guardcheck: {text}\n")

    def stop(self) -> None:
        """Closing the socket ends the server; its group is killed all the same. Once:
        the pidfd is closed after the first call."""
        self.failed = True  # it serves no further run
        if self.socket is not None:
            self.socket.close()
            self.socket = None
        if self._stopped:
            return
        self._stopped = True
        kill_group(self.run.pid)
        self.run.wait()
        os.close(self.run.pidfd)


class Checkpoints:
    """Checkpoints by test file (root-relative, as in node ids)."""

    def __init__(
        self,
        settings: RunOptions,
        info: HostInfo,
        zygote: Zygote,
        scratch: Path,
        roots: Sequence[str],
    ) -> None:
        self.settings = settings
        self.info = info
        self.zygote = zygote
        self.scratch = scratch
        self.roots = roots
        self._by_file: dict[str, Checkpoint | None] = {}
        self._start_deadline = 0.0  # monotonic: the start checkpoint's patience ends
        # Test files (as in node ids) -> their paths, in the order the host collected them.
        self.paths: dict[str, str] = {}
        for nodeid, path in info.paths.items():
            self.paths.setdefault(nodeid.split("::")[0], path)
        self.order = {file: index for index, file in enumerate(self.paths)}

    def prepare(self, files: Sequence[str]) -> str | None:
        """Start the checkpoint before the first of `files`, if there is none yet: it
        collects while earlier mutants run. That first file (None: not all collected)."""
        file = self._first(files)
        if file is not None:
            self._open(file)
        return file

    def before(self, files: Sequence[str], patience: float) -> Checkpoint | None:
        """The checkpoint before the first of `files` collected, once it serves (waiting
        up to `patience` seconds for it to get there); None: run fresh instead."""
        file = self.prepare(files)
        checkpoint = self._by_file.get(file) if file is not None else None
        if checkpoint is None:
            return None
        deadline = time.monotonic() + patience
        while not checkpoint.ready():
            if checkpoint.failed or time.monotonic() > deadline:
                checkpoint.stop()
                self._by_file[checkpoint.file] = None
                return None
            time.sleep(_POLL)
        return checkpoint

    def start(self, patience: float) -> None:
        """Start the checkpoint at the start, if there is none yet; it may take up to
        `patience` seconds to reach its pause."""
        if self._open(START):
            self._start_deadline = time.monotonic() + patience

    def starting(self) -> bool:
        """The checkpoint at the start is on its way to its pause (given up on once its
        patience runs out)."""
        checkpoint = self._by_file.get(START)
        if checkpoint is None or checkpoint.ready() or checkpoint.failed:
            return False
        if time.monotonic() < self._start_deadline:
            return True
        checkpoint.stop()
        self._by_file[START] = None
        return False

    def at_start(self, files: Collection[str]) -> Checkpoint | None:
        """The checkpoint at the start, if it listens and nothing before its pause
        imported or read any of `files` (real paths); None: a fresh interpreter."""
        checkpoint = self._by_file.get(START)
        if checkpoint is None or not checkpoint.ready():
            return None
        return None if checkpoint.before_pause.intersection(files) else checkpoint

    def _open(self, file: str) -> bool:
        """Start the checkpoint before `file` unless one was (True: started now, or found
        no room: at most MAX_CHECKPOINTS alive)."""
        if file in self._by_file:
            return False
        alive = sum(c is not None for c in self._by_file.values())
        self._by_file[file] = self._start(file) if alive < MAX_CHECKPOINTS else None
        return True

    def _first(self, files: Sequence[str]) -> str | None:
        if not files or any(f not in self.order for f in files):
            return None
        return min(files, key=self.order.__getitem__)

    def _start(self, file: str) -> Checkpoint | None:
        folder = self.scratch / f"checkpoint-{len(self._by_file)}"
        folder.mkdir()
        (folder / "tmp").mkdir()
        address = f"guardcheck-{os.getpid()}-{secrets.token_hex(8)}"
        # Only the start's runs ask what was imported or read before the pause; a
        # later checkpoint's runs swap code into modules imported there anyway.
        before = folder / "before-pause.json" if file == START else None
        path = self.paths[file] if file != START else ""
        spec = messages.CheckpointSpec(path, address, str(before or ""))
        env = {messages.CHECKPOINT_ENV: json.dumps(dataclasses.asdict(spec))}
        # The host's command line, so the session collects what the host collected,
        # in its order: where the host saw which file's collection ran what.
        args = [
            "-p",
            "guardcheck.child.checkpoint",
            *self.settings.tests,
            *self.settings.pytest_args,
            *quiet_plugins(self.settings),
            "-p",
            "no:cacheprovider",
            f"--basetemp={folder / 'tmp'}",
        ]
        request = messages.ForkRun(
            args,
            str(self.settings.root),
            child_env(self.settings, env, self.roots),
            str(folder / "pytest.log"),
            str(folder / "exit-status"),
            self.settings.memory_limit_mb,
        )
        run = self.zygote.fork(request)
        return Checkpoint(run, address, file, folder / "pytest.log", before) if run else None

    def stop(self) -> None:
        for checkpoint in self._by_file.values():
            if checkpoint is not None:
                checkpoint.stop()
        self._by_file.clear()
