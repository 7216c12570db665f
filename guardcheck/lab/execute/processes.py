"""The lab's handles on the processes it drives: the pytest host and fresh interpreters.

Both run in their own session (process group) with PR_SET_PDEATHSIG, so a
Ctrl-C in the terminal reaches only the lab, which then stops them in order,
and a `kill -9` of the lab still takes them down.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import importlib.util
import json
import os
import random
import select
import signal
import socket
import subprocess
import sys
import time
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from guardcheck import messages
from guardcheck.child import workdirs
from guardcheck.child.procs import (
    describe_returncode,
    kill_group,
    limit_address_space,
    set_pdeathsig,
)
from guardcheck.errors import GuardcheckError
from guardcheck.exitcodes import ExitCode
from guardcheck.lab.sandbox.importroots import import_roots, with_roots_first
from guardcheck.lab.sandbox.projectcopy import pycache_dir
from guardcheck.lab.verdict import unfollowed_error
from guardcheck.model import ChildOutcome, TestOutcome
from guardcheck.options import RunOptions

# Set inside a git hook, these would point the tests' git at the user's repository
# instead of the private copy's.
_GIT_REDIRECTS = ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_COMMON_DIR")

# One string-hash seed for every interpreter of this invocation (hosts, baseline parts,
# the zygote and its runs), as one `python -m pytest` has one: set iteration order
# follows it, so with a seed per process a line the baseline saw a test run could go
# unrun in the mutant's process. The report records it (a verdict can depend on it:
# dep-logic's range.py:217 mutant survives by hand under 1 seed in 40).
SESSION_HASH_SEED = str(random.SystemRandom().randrange(1, 2**32))


def child_env(settings: RunOptions, extra: dict[str, str], roots: Sequence[str]) -> dict[str, str]:
    """The children's environment: no git redirects, no .pyc next to any source, and
    the copy's import roots first on PYTHONPATH (lab/sandbox/importroots.py).

    The host and fresh runs keep the project's bytecode in our output folder
    instead, once pytest has started (child/bytecode.py).
    """
    inherited = {k: v for k, v in os.environ.items() if k not in _GIT_REDIRECTS}
    return {
        **inherited,
        **with_roots_first(roots, inherited),
        "PYTHONDONTWRITEBYTECODE": "1",
        messages.PYCACHE_ENV: str(pycache_dir(settings)),
        **one_hash_seed(inherited),
        **one_randomly_seed(),
        **extra,
    }


def hash_seed() -> str:
    """The PYTHONHASHSEED every test process of this invocation runs under."""
    return _fixed_seed(os.environ) or SESSION_HASH_SEED


def _fixed_seed(environ: Mapping[str, str]) -> str | None:
    """The user's own seed, when it fixes one (unset, empty and `random` do not)."""
    own = environ.get("PYTHONHASHSEED")
    return None if own in (None, "", "random") else own


def one_hash_seed(inherited: dict[str, str]) -> dict[str, str]:
    """PYTHONHASHSEED for our interpreters, unless the user fixed one themselves.

    Python reads it only as an interpreter starts; the children put the user's own
    value back before any test runs, so the tests and the processes they start see
    what they would under plain pytest.
    """
    if _fixed_seed(inherited) is not None:
        return {}
    own = inherited.get("PYTHONHASHSEED")
    return {
        "PYTHONHASHSEED": SESSION_HASH_SEED,
        messages.HASHSEED_ENV: "" if own is None else f"={own}",
    }


@functools.cache
def _installed(module: str) -> bool:
    """Whether the user's pytest plugin `module` is there to tame (looked up once: every
    fresh run's command line and environment ask)."""
    return importlib.util.find_spec(module) is not None


def one_randomly_seed() -> dict[str, str]:
    """The pytest-randomly seed of every session of this invocation: the hash seed's
    number, so one figure from the report reproduces both by hand."""
    return {messages.RANDOMLY_SEED_ENV: hash_seed()} if _installed("pytest_randomly") else {}


# Fresh runs go through this wrapper: it kills what their tests leave running, even
# when the lab itself was killed with -9 (guardcheck/child/reaper.py).
REAPER = (sys.executable, "-m", "guardcheck.child.reaper")


def quiet_plugins(settings: RunOptions) -> list[str]:
    """Flags that keep the user's coverage plugin out of our pytest runs, and xdist and
    pytest-randomly in line with them.

    guardcheck measures coverage itself; pytest-cov from `addopts` would leave a
    `.coverage` file behind and slow every child. `--no-cov`, not `-p no:cov`:
    with the plugin blocked, a `--cov` in addopts is an unknown option.
    """
    flags = []
    if _installed("pytest_cov") and "no:cov" not in settings.pytest_args:
        flags.append("--no-cov")
    # pytest-xdist's `-n` (often in addopts) would hand our host's tests to xdist's own
    # workers: the lab runs its own. `-n 0`, given last, wins over any earlier `-n`.
    if _installed("xdist") and "no:xdist" not in settings.pytest_args:
        flags += ["-n", "0"]
    # pytest-randomly would draw a seed per session: ours share one (child/randomseed.py).
    if _installed("pytest_randomly"):
        flags += ["-p", "guardcheck.child.randomseed"]
    return flags


def _tail(path: Path, lines: int = 30) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(text.strip().splitlines()[-lines:])


def outcome_of(ended: messages.ChildEnded, *, control: bool = False) -> ChildOutcome:
    """What the host said of a child that ended, as the facts a verdict is judged from.

    A `control` run has no mutant: a process its tests started unfollowed ran what a
    checkout holds, so its pass stands."""
    report = ended.report or messages.ChildReport()
    crash = report.crash or ended.exit
    if report.collect_errors and not report.tests:
        crash = f"collection aborted: {report.collect_errors[0]}"
    interrupted = crash or ended.timed_out is not None
    failed = any(t.outcome in (TestOutcome.FAILED, TestOutcome.ERROR) for t in report.tests)
    unsure = report.unfollowed and not (ended.baseline or control or interrupted or failed)
    error = unfollowed_error(report.unfollowed) if unsure else None
    only_disk = bool(unsure) and set(report.unfollowed) <= set(report.from_disk)
    from_disk = tuple(sorted(report.unfollowed)) if only_disk else ()
    if ended.clean_exit and not ended.baseline:
        during = f" during {ended.current}" if ended.current else ""
        error = (
            f"the test process exited with status 0{during} before its tests were over: "
            "plain pytest would end the same way, with status 0, so nothing caught the "
            "mutant; nor can guardcheck say it survived"
        )
        from_disk = ()
    return ChildOutcome(
        tests=tuple(report.tests),
        evidence=bool(report.evidence),
        timed_out=ended.timed_out,
        crash=crash,
        current=ended.current if interrupted else None,
        # A kill stands (its control run confirms it); a pass may not be the mutant's.
        error=error,
        reached=any(name.endswith(messages.REACHED) for name in report.evidence),
        from_disk=from_disk,
    )


def before_in_place(ended: messages.ChildEnded, outcome: ChildOutcome) -> ChildOutcome:
    """The outcome of a run forked at a checkpoint that never said its mutant was in
    place: an end without a report is no crash of the mutant's, so no kill either."""
    if ended.report is not None or ended.timed_out is not None:
        return outcome
    why = f"a run forked at a checkpoint ended before its mutant was in place: {ended.exit}"
    return dataclasses.replace(outcome, crash=None, error=why)


class HostDied(GuardcheckError):
    def __init__(self, log: Path) -> None:
        tail = _tail(log)
        conftest = _conftest_error(tail)
        if conftest is not None:
            # The project's own code does not import: a baseline problem, as plain pytest
            # would fail on it too, not a usage error of guardcheck.
            super().__init__(conftest, ExitCode.BASELINE_FAILED)
            return
        super().__init__(
            "pytest (the guardcheck host) stopped unexpectedly; the end of its output:\n" + tail,
            ExitCode.USAGE,
        )


def without_session_header(text: str) -> str:
    """pytest's output without its session header (platform, rootdir, plugins, collected):
    the same for every mutant, it pushed what the mutant's tests did down the log."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if "test session starts" in line), None)
    if start is None:
        return text
    end = next(
        (i for i in range(start, len(lines)) if lines[i].startswith(("collected ", "collecting"))),
        None,
    )
    if end is None:
        return text
    return "\n".join([*lines[:start], *lines[end + 1 :]]).strip("\n")


def _conftest_error(tail: str) -> str | None:
    """pytest's own account of a conftest.py that failed to load, if that is what ended it."""
    lines = tail.splitlines()
    start = next((i for i, line in enumerate(lines) if "while loading conftest" in line), None)
    if start is None:
        return None
    shown = "\n".join(f"  {line}" for line in lines[start:])
    return (
        f"pytest could not load a conftest.py, so no test can run:\n{shown}\n"
        "  fix: make the conftest.py import under plain `python -m pytest` first"
    )


def _launch(
    command: list[str],
    settings: RunOptions,
    log_path: Path,
    extra_env: dict[str, str],
    theirs: socket.socket,
    roots: Sequence[str],
) -> subprocess.Popen[bytes]:
    """`command` in the project root, in its own session, with `theirs` (then closed here)."""
    with open(log_path, "ab") as log:
        process = subprocess.Popen(
            command,
            cwd=settings.root,
            env=child_env(settings, extra_env, roots),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            pass_fds=[theirs.fileno()],
            start_new_session=True,
            preexec_fn=lambda: set_pdeathsig(signal.SIGTERM),
        )
    theirs.close()
    return process


def _end(process: subprocess.Popen[bytes]) -> None:
    """Wait for a process that was asked to end; SIGTERM, then SIGKILL, its group insist."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if _exited_within(process, 3.0):
            return
        kill_group(process.pid, sig)
    process.wait()


def _exited_within(process: subprocess.Popen[bytes], seconds: float) -> bool:
    """Whether `process` ended (and is reaped) within `seconds`.

    Waits on its pidfd where there is one: Popen.wait(timeout) polls with sleeps of up
    to 50 ms, which every run paid twice (host and zygote) on its way out.
    """
    fd = _pidfd(process.pid) if process.returncode is None else None
    if fd is not None:
        try:
            select.select([fd], [], [], seconds)
        finally:
            os.close(fd)
        return process.poll() is not None
    try:
        process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        return False
    return True


class HostProcess:
    """`python -m pytest -p guardcheck.child.host ...` in the project root, over a socketpair."""

    def __init__(
        self, settings: RunOptions, scratch: Path, source: Sequence[str], *, baseline_runs: int = 1
    ) -> None:
        ours, theirs = socket.socketpair()
        self.log = scratch / "host.log"
        self.roots = import_roots(source)
        config = messages.HostConfig(
            fd=theirs.fileno(),
            parent=os.getpid(),
            scratch=str(scratch),
            root=str(settings.root),
            source=list(source),
            baseline_runs=baseline_runs,
            baseline_timeout=settings.baseline_timeout,
            baseline_workers=settings.workers,
            memory_limit_mb=settings.memory_limit_mb,
            origin=str(settings.origin or ""),
        )
        command = [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "guardcheck.child.host",
            *settings.tests,
            *settings.pytest_args,
            *quiet_plugins(settings),
            "-p",
            "no:cacheprovider",
            f"--basetemp={scratch / 'basetemp'}",
        ]
        env = {messages.HOST_ENV: json.dumps(dataclasses.asdict(config))}
        self.process = _launch(command, settings, self.log, env, theirs, self.roots)
        ours.setblocking(False)
        self.socket = ours
        self._buffer = messages.LineBuffer()
        self._outbox = bytearray()
        self.inbox: deque[messages.Message] = deque()  # received, not yet handled

    def fileno(self) -> int:
        return self.socket.fileno()

    def queue(self, message: messages.Message) -> None:
        self._outbox += messages.encode(message)
        self.flush()

    @property
    def wants_write(self) -> bool:
        return bool(self._outbox)

    def flush(self) -> None:
        """Non-blocking: the host may be busy writing to us; never deadlock on a full socket."""
        try:
            sent = self.socket.send(self._outbox)
        except BlockingIOError:
            return
        except OSError as exc:
            raise HostDied(self.log) from exc
        del self._outbox[:sent]

    def receive(self) -> None:
        """Move whatever the host sent into `inbox` (raises HostDied on EOF)."""
        try:
            data = self.socket.recv(1 << 20)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=5)  # so its last words are in the log
            raise HostDied(self.log)
        self.inbox.extend(self._buffer.feed(data))

    def stop(self, *, urgent: bool) -> None:
        """Closing the socket asks the host to kill its children and exit; SIGTERM insists.

        "stop" first tells the host this is on purpose (we remove the scratch
        folder ourselves); a socket that closes without it means we died.
        """
        self.ask_to_stop(urgent=urgent)
        _end(self.process)

    def ask_to_stop(self, *, urgent: bool) -> None:
        """`stop` without the wait (so the zygote can end meanwhile); idempotent."""
        if self.socket.fileno() != -1:
            with contextlib.suppress(OSError):
                self.socket.sendall(messages.encode(messages.Stop()))
            self.socket.close()
        if urgent:
            kill_group(self.process.pid, signal.SIGTERM)


@dataclass(frozen=True)
class HostInfo:
    rootdir: Path
    inifile: str | None
    paths: dict[str, str]  # node id -> absolute path of its test file
    startup: float  # seconds from launching pytest to collected: what a fresh run pays again
    randomly_seed: str = ""  # pytest-randomly's seed in every session; "" if not active


class ForkServer(Protocol):
    """Forks runs: the warm interpreter, or a checkpoint (lab/execute/checkpoints.py)."""

    def fork(self, run: messages.ForkRun) -> ForkedRun | None: ...


class FreshProcess:
    """One mutant in a fresh interpreter: `python -m pytest -p guardcheck.child.freshrun`.

    Or resumed from a checkpoint (`swaps` given): the mutant's code swapped into a
    session paused before the test files whose collection ran it.
    """

    def __init__(
        self,
        settings: RunOptions,
        info: HostInfo,
        folder: Path,
        slot: workdirs.Slot,
        files: list[messages.ServedFile],
        tests: Sequence[str],
        *,
        matrix: bool,
        timeout: float,
        hold: Sequence[str] = (),
        zygote: ForkServer | None = None,
        roots: Sequence[str] = (),
        on_disk: bool = False,
        swaps: Sequence[messages.SwapFile] = (),
        checkpoint: bool = False,
        control: bool = False,
    ) -> None:
        self.control = control  # a control run: no mutant (outcome_of)
        self.folder = folder
        folder.mkdir()
        self.log = folder / "pytest.log"
        # Mutated files the run found imported before it could serve them (preloaded.py).
        self.preloaded: list[str] = []

        def spec_env(name: str) -> tuple[dict[str, str], Path]:
            """A run's environment, its spec naming `name`.jsonl for results; that file.
            "warm" is the zygote's fork; any other name, a new interpreter."""
            results = folder / f"{name}.jsonl"
            spec = messages.FreshSpec(
                files,
                list(tests),
                matrix,
                str(results),
                list(hold),
                on_disk=on_disk,
                swaps=list(swaps),
                basetemp=str(slot.tmp),
                new_interpreter=name != "warm",
            )
            path = folder / f"{name}.spec.json"
            path.write_text(json.dumps(dataclasses.asdict(spec)), encoding="utf-8")
            return child_env(settings, {messages.FRESH_ENV: str(path)}, roots), results

        self.slot = slot
        # Absolute test files: rootdir and ini come from them (and the flags), not the cwd.
        paths = dict.fromkeys(str(info.rootdir / t.split("::")[0]) for t in tests)
        ini = ["-c", info.inifile] if info.inifile else []
        pytest_args = [
            "-p",
            "guardcheck.child.freshrun",
            *ini,
            f"--rootdir={info.rootdir}",
            *paths,
            *settings.pytest_args,
            *quiet_plugins(settings),
            "-p",
            "no:cacheprovider",
            f"--basetemp={slot.tmp}",
        ]
        self.timeout = timeout
        self.deadline = time.monotonic() + timeout
        self.process: subprocess.Popen[bytes] | ForkedRun
        forked = None
        if zygote is not None:
            env, self.results = spec_env("warm")
            run = messages.ForkRun(
                pytest_args,
                str(slot.cwd),
                env,
                str(self.log),
                str(folder / "exit-status"),
                settings.memory_limit_mb,
            )
            forked = zygote.fork(run)
        # A run forked at a checkpoint that ends before it said the mutant was in place
        # ended of something else: no crash of it is the mutant's.
        self.resumed = checkpoint and forked is not None
        if forked is not None:
            self.process = forked
            self._pidfd: int | None = forked.pidfd
            return
        # Its own results file: a zygote that gave no answer may still have forked a run.
        env, self.results = spec_env("results")
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                [*REAPER, sys.executable, "-m", "pytest", *pytest_args],
                cwd=slot.cwd,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=lambda: _fresh_child(settings.memory_limit_mb),
            )
        self._pidfd = _pidfd(self.process.pid)

    def fileno(self) -> int | None:
        return self._pidfd

    def poll(self) -> tuple[ChildOutcome, str] | None:
        """The outcome and log once the process is over (timing it out when due)."""
        timed_out = False
        if self.process.poll() is None:
            if time.monotonic() < self.deadline:
                return None
            timed_out = True
        kill_group(self.process.pid)  # the interpreter and anything its tests spawned
        self.process.wait()
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None
        report: messages.ChildReport | None = None
        current = None
        in_place = False  # a resumed run says so before pytest collects on ("" started)
        finished: list[messages.TestFinished] = []
        if self.results.exists():
            for line in messages.LineBuffer().feed(self.results.read_bytes() + b"\n"):
                if isinstance(line, messages.TestStarted):
                    in_place = True
                    current = line.nodeid or None
                elif isinstance(line, messages.TestFinished):
                    finished.append(line)
                elif isinstance(line, messages.ChildReport):
                    report = line
                    self.preloaded = line.preloaded
        if timed_out:  # only what ran before the timeout stands
            evidence = ["(reported per test)"] if any(f.evidence for f in finished) else []
            tests = [f.result for f in finished]
            report = messages.ChildReport(tests=tests, evidence=evidence) if tests else None
        ended = messages.ChildEnded(
            baseline=False,
            key=0,
            report=report,
            current=current,
            timed_out=self.timeout if timed_out else None,
            exit=_describe(self.process.returncode) if report is None and not timed_out else None,
            clean_exit=report is None and not timed_out and self.process.returncode == 0,
        )
        own_log = report.log if report is not None and not timed_out else ""
        log = "\n".join(filter(None, [own_log, without_session_header(_tail(self.log, 60))]))
        outcome = outcome_of(ended, control=self.control)
        if self.resumed and not in_place:
            outcome = before_in_place(ended, outcome)
        return outcome, log

    def kill(self) -> None:
        kill_group(self.process.pid)
        self.process.wait()
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None


class Zygote:
    """The warm interpreter fresh runs are forked from (`python -m guardcheck.child.zygote`).

    Started once a session knows it has fresh-interpreter mutants, so its imports
    overlap the baseline. Whatever goes wrong with it (it died, it answered
    nonsense, no pidfd on this kernel), `fork` returns None and the run starts
    as a new interpreter instead, with a note in the zygote's log.
    """

    ANSWER_TIMEOUT = 30.0  # seconds: the first answer waits for its imports

    def __init__(self, settings: RunOptions, scratch: Path, roots: Sequence[str] = ()) -> None:
        ours, theirs = socket.socketpair()
        self.log = scratch / "zygote.log"
        command = [sys.executable, "-m", "guardcheck.child.zygote"]
        env = {messages.ZYGOTE_ENV: str(theirs.fileno())}
        self.process = _launch(command, settings, self.log, env, theirs, roots)
        ours.settimeout(self.ANSWER_TIMEOUT)
        self.socket: socket.socket | None = ours

    def fork(self, run: messages.ForkRun) -> ForkedRun | None:
        """The run started from the warm interpreter, or None when it cannot be."""
        if self.socket is None or getattr(os, "pidfd_open", None) is None:
            return None
        forked = request_fork(self.socket, run)
        if isinstance(forked, str):
            self._give_up(f"the warm interpreter {forked}")
            return None
        return forked

    def _give_up(self, why: str) -> None:
        with contextlib.suppress(OSError), open(self.log, "a", encoding="utf-8") as log:
            log.write(f"guardcheck: {why}; fresh runs start new interpreters from now on\n")
        self.stop()

    def stop(self) -> None:
        """Closing the socket ends the zygote; SIGTERM, then SIGKILL, insist."""
        self.ask_to_stop()
        _end(self.process)

    def ask_to_stop(self) -> None:
        """`stop` without the wait; idempotent."""
        if self.socket is not None:
            self.socket.close()
            self.socket = None


def request_fork(server: socket.socket, run: messages.ForkRun) -> ForkedRun | str:
    """Ask a fork server (the zygote, a checkpoint) for `run`: its handle, or what failed."""
    try:
        server.sendall(messages.encode(run))
        data, fds, _flags, _address = socket.recv_fds(server, 1 << 12, 1)
        answer = messages.decode(data)
    except (OSError, ValueError) as exc:
        return f"gave no answer: {exc}"
    if not isinstance(answer, messages.Forked) or answer.pid <= 0 or len(fds) != 1:
        for fd in fds:
            os.close(fd)
        return f"could not fork: {answer}"
    return ForkedRun(answer.pid, fds[0], Path(run.status))


class ForkedRun:
    """A fresh run forked by the zygote: the part of Popen that FreshProcess uses.

    Not our child, so its exit status comes from the file its supervisor writes
    as it ends; a supervisor that died without writing it was killed (by our
    timeout, or by the kernel), and is reported as SIGKILL.
    """

    def __init__(self, pid: int, pidfd: int, status: Path) -> None:
        self.pid = pid
        self.pidfd = pidfd
        self.status = status
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None and self._ended(0):
            self.returncode = _read_status(self.status)
        return self.returncode

    def wait(self) -> int:
        self._ended(None)
        returncode = self.poll()
        assert returncode is not None
        return returncode

    def _ended(self, timeout_ms: int | None) -> bool:
        """The pidfd is readable once the supervisor has ended (poll: any fd number)."""
        poller = select.poll()
        poller.register(self.pidfd, select.POLLIN)
        return bool(poller.poll(timeout_ms))


def _read_status(path: Path) -> int:
    try:
        kind, _, number = path.read_text(encoding="ascii").partition(" ")
        return -int(number) if kind == "signal" else int(number)
    except (OSError, ValueError):
        return -signal.SIGKILL


def _fresh_child(memory_limit_mb: int) -> None:
    set_pdeathsig(signal.SIGKILL)
    limit_address_space(memory_limit_mb)


def _describe(returncode: int) -> str:
    if returncode < 0:
        return describe_returncode(returncode)
    return f"pytest exited with code {returncode} without reporting"


def _pidfd(pid: int) -> int | None:
    """A descriptor that becomes readable when `pid` exits (Linux >= 5.3), else None."""
    opener = getattr(os, "pidfd_open", None)
    if opener is None:
        return None
    try:
        return opener(pid)
    except OSError:
        return None
