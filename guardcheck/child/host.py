"""The long-lived pytest process: collects once, then forks a child per job.

Started by the lab as `python -m pytest -p guardcheck.child.host ...` in the
project root, so the user's conftest.py, addopts, markers and plugins are in
force. After collection its `pytest_runtestloop` takes over: it forks one
child for the baseline (under coverage.py, per-test contexts), then, when the
lab asks for more than one baseline run, one plain child per further run, one
after the other; then one child per "mutant" message from the lab. It never
runs a test itself, so caches a test warms (lru_cache, memo dicts) never reach
later children, and each baseline run starts as cold as the first. This module is
the plugin and the fork server (the event loop; children forked, watched, reaped,
killed and reported); what a child runs once forked is in child/jobs.py.

Lifetime: the host stops when its control socket closes (the lab finished or
died) or on SIGTERM (the lab stopping it, or PR_SET_PDEATHSIG); either way it
SIGKILLs every child's process group first. Children die with the host
through their own PR_SET_PDEATHSIG.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import json
import os
import selectors
import shlex
import signal
import socket
import time
import traceback
from collections.abc import Generator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from guardcheck import messages
from guardcheck.child import baselineparts, workdirs
from guardcheck.child.bootstrap import write_bootstrap
from guardcheck.child.bytecode import keep_bytecode
from guardcheck.child.codeswap import (
    ActivationError,
    LiveFunctions,
    NeedsFileOnDisk,
    activate,
    install_marker,
)
from guardcheck.child.hashseed import restore_user_hash_seed
from guardcheck.child.importwatch import ImportWatch
from guardcheck.child.itemrun import (
    OneLineReports,
    Recorder,
    SlotCapture,
    every_item,
    items_by_nodeid,
    new_capture,
)
from guardcheck.child.jobs import MAX_LOG, JobMain, Jobs
from guardcheck.child.librarycaches import warm_freezegun
from guardcheck.child.origins import foreign_modules
from guardcheck.child.procs import (
    children_of,
    describe_exit,
    kill_descendants,
    kill_group,
    set_pdeathsig,
    set_subreaper,
)
from guardcheck.child.randomseed import seed_in_force
from guardcheck.child.syspath import drop_repeated_entries
from guardcheck.model import TestResult

_POLL = 0.05  # seconds: how often a child that died without closing its pipe is noticed

_collect_errors: list[str] = []
_host: Host | None = None


def _notes(config: pytest.Config) -> list[str]:
    """What the user should hear once about how we run their pytest."""
    asked = [
        *config.getini("addopts"),
        *shlex.split(os.environ.get("PYTEST_ADDOPTS", "")),
        *config.invocation_params.args,
    ]
    notes = []
    if asks_for_workers(asked):
        notes.append(
            "pytest-xdist's -n is turned off in guardcheck's pytest runs (given -n 0): "
            "guardcheck runs its own workers (--jobs)"
        )
    seed = seed_in_force(config)
    if seed:
        notes.append(
            f"pytest-randomly: every guardcheck pytest run uses --randomly-seed={seed} "
            "(the report's randomlySeed); run a mutant's tests by hand with it to see "
            "the same order and random values"
        )
    return notes


def asks_for_workers(args: list[str]) -> bool:
    """Whether `args` ask pytest-xdist for workers (`-n 0`, the lab's own, does not)."""
    tokens = iter(args)
    for token in tokens:
        if token in ("-n", "--numprocesses"):
            value = next(tokens, "0")
        elif token.startswith("--numprocesses="):
            value = token.partition("=")[2]
        elif token.startswith("-n") and not token.startswith("--"):
            value = token[2:]
        else:
            continue
        if value != "0":
            return True
    return False


def _settings() -> messages.HostConfig | None:
    raw = os.environ.get(messages.HOST_ENV)
    return messages.HostConfig(**json.loads(raw)) if raw else None


def _watch_imports() -> ImportWatch | None:
    """Started as this plugin is imported: before conftest.py and the test modules load."""
    settings = _settings()
    if settings is None:
        return None
    watch = ImportWatch(settings.root, settings.source)
    watch.start()
    return watch


_import_watch = _watch_imports()
keep_bytecode()
restore_user_hash_seed()
drop_repeated_entries()


def _on_sigterm(signum: int, frame: object) -> None:
    # Runs between bytecodes of whatever the host is doing, collection included.
    if _host is not None:
        _host.kill_children()
        _host.cleanup_if_orphaned()
    else:
        kill_descendants(os.getpid())
        settings = _settings()
        if settings and os.getppid() != settings.parent:
            workdirs.remove(Path(settings.scratch))
    os._exit(128 + signum)


def pytest_configure(config: pytest.Config) -> None:
    if _settings() is not None:
        signal.signal(signal.SIGTERM, _on_sigterm)


def pytest_collectreport(report: pytest.CollectReport) -> None:
    if report.failed:
        text = report.longreprtext.strip().splitlines()
        _collect_errors.append(f"{report.nodeid or '<session>'}: " + "\n".join(text[-15:]))


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Generator[None, object, None]:
    """Each test file's collection is watched on its own (child/importwatch.py)."""
    watched = _import_watch is not None and isinstance(collector, pytest.File | pytest.Class)
    if watched:
        assert _import_watch is not None
        _import_watch.enter(collector.nodeid.split("::")[0], str(collector.path))
    try:
        yield
    finally:
        if watched:
            assert _import_watch is not None
            _import_watch.leave()


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> bool | None:
    global _host
    settings = _settings()
    if settings is None:
        return None  # loaded outside guardcheck: behave like plain pytest
    set_subreaper()  # the tests' orphans come back to us, to be killed (kill_children)
    ran = _import_watch.stop() if _import_watch is not None else None
    lines = _import_watch.lines if _import_watch is not None else None
    _host = Host(session, settings, ran, lines)
    try:
        _host.serve()
    finally:
        _host.kill_children()
        _host.cleanup_unless_stopped()
    return True


@dataclass
class Child:
    key: int  # the lab's job key; -n for baseline run n (1-based)
    pid: int
    fd: int  # read end of the child's pipe
    deadline: float | None
    timeout: float | None
    slot: workdirs.Slot  # its working directory and basetemp, pooled
    buffer: messages.LineBuffer = field(default_factory=messages.LineBuffer)
    current: str | None = None  # the test it said it started last
    finished: list[TestResult] = field(default_factory=list)  # what it said as it went
    evidence: bool = False  # the last TestFinished said the mutated code had run
    result: messages.ChildReport | None = None
    eof: bool = False
    forking: float = 0.0  # perf_counter when the host began forking it (GUARDCHECK_TIMING)


class Host:
    """The fork server: serves the lab's control socket, forks a child per job (the bodies
    in `jobs`), watches their pipes and deadlines, reaps them and reports how each ended."""

    def __init__(
        self,
        session: pytest.Session,
        settings: messages.HostConfig,
        ran_before_tests: list[messages.RanFunction] | None = None,
        ran_lines: dict[str, list[int]] | None = None,
    ) -> None:
        self.session = session
        self.ran_before_tests = ran_before_tests
        self.ran_lines = ran_lines
        self.config = session.config
        # A test is a node id. Several items may share one (a conftest's collector that
        # names every case of a data file alike): `pytest NODEID` runs them all, so do we.
        self.items = items_by_nodeid(session.items)
        self.control = socket.socket(fileno=settings.fd)
        self.parent_pid = settings.parent
        self.scratch = Path(settings.scratch)
        self.source = settings.source
        self.root = settings.root
        self.origin = settings.origin
        self.baseline_runs = settings.baseline_runs
        self.baseline_timeout = settings.baseline_timeout
        self.baseline_due = 0  # the baseline run to fork next, once the previous one reported
        self.baseline_workers = max(1, settings.baseline_workers)
        self.parts: list[messages.ChildEnded] = []  # run 1's parts that reported so far
        self.parts_expected = 0
        self.baseline_whole = False  # run 1 again in one child, once its parts are retired
        self.sandbox = workdirs.Sandbox(Path(settings.root), self.scratch / "slots")
        self.selector = selectors.DefaultSelector()
        self.children: dict[int, Child] = {}  # by pid; running, or dead but not yet reported
        self.exiting: list[Child] = []  # reported, killed, not yet reaped
        self.inbox = messages.LineBuffer()
        self.live: LiveFunctions | None = None
        self.captures: dict[Path, SlotCapture | None] = {}  # per sandbox slot
        self.recorder = Recorder()
        self.stopping = False
        self.lab_said_stop = False  # the lab stops us on purpose, and cleans up itself
        self.pid = os.getpid()
        self.boot = self.scratch / "boot"  # the followed processes' sitecustomize (_prepare)
        self.spawners: frozenset[str] = frozenset()  # tests that started processes (baseline)
        self.jobs = Jobs(session, self.items, self.recorder, self.captures, settings, self.boot)

    # -- the lab's side --------------------------------------------------------

    def send(self, message: messages.Message) -> None:
        try:
            self.control.sendall(messages.encode(message))
        except OSError:
            self.stopping = True  # the lab is gone

    def serve(self) -> None:
        if self.session.testsfailed or _collect_errors:
            self.send(messages.CollectFailed(_collect_errors or ["collection failed"]))
            return
        self.send(
            messages.Collected(
                tests=[messages.CollectedTest(n, str(i[0].path)) for n, i in self.items.items()],
                rootdir=str(self.config.rootpath),
                inifile=str(self.config.inipath) if self.config.inipath else None,
                ran_before_tests=self.ran_before_tests,
                ran_lines=self.ran_lines,
                foreign=foreign_modules(self.origin, self.root, self.source),
                notes=_notes(self.config),
                randomly_seed=seed_in_force(self.config),
            )
        )
        self._prepare()
        self._start_baseline(self.baseline_workers)
        self._warm_items()  # while the baseline runs: the host is idle until it reports
        warm_freezegun()
        self.selector.register(self.control, selectors.EVENT_READ, None)
        while not self.stopping:
            self._step()

    def _prepare(self) -> None:
        """Once, before the first fork: everything children would otherwise each redo."""
        plugins = self.config.pluginmanager
        reporter = plugins.get_plugin("terminalreporter")
        if reporter is not None:
            # Children print nothing (the lab reports), but plugins may still reach for the
            # reporter: pytest-timeout's handler calls config.get_terminal_writer().
            plugins.unregister(reporter)
            plugins.register(SilentReporter(reporter), "terminalreporter")
        plugins.register(OneLineReports(), "guardcheck-one-line-reports")
        plugins.register(self.recorder, "guardcheck-recorder")
        write_bootstrap(self.boot)

    def _warm_items(self) -> None:
        """Compute each item's `location` (a cached property) once, here: otherwise every
        child computes it afresh for each test it runs (source lookups, path relativising),
        which profiled at a tenth of a forked mutant's test time."""
        for item in every_item(self.items):
            with contextlib.suppress(Exception):  # a child raises it again, as pytest would
                item.location  # noqa: B018

    def _on_control(self) -> None:
        try:
            data = self.control.recv(1 << 20)
        except OSError:
            data = b""
        if not data:
            self.stopping = True
            return
        for message in self.inbox.feed(data):
            if isinstance(message, messages.RunMutant):
                self._start_mutant(message)
            elif isinstance(message, messages.Stop):
                self.lab_said_stop = self.stopping = True

    # -- children ----------------------------------------------------------------

    def _fork(self, key: int, main: JobMain, timeout: float | None) -> None:
        forking = time.perf_counter()
        read, write = os.pipe()
        slot = self.sandbox.take()
        if slot.tmp not in self.captures:
            self.captures[slot.tmp] = new_capture(self.config)
        deadline = time.monotonic() + timeout if timeout is not None else None
        pid = os.fork()
        if pid == 0:
            try:
                os.close(read)
                self._become_child()
                main(write, slot)
            except BaseException as exc:  # report, never unwind into the host's code
                crash = f"{type(exc).__name__}: {exc}".strip()
                with contextlib.suppress(OSError):
                    messages.send(write, messages.ChildReport(crash=crash, log=_trace()))
            finally:
                os._exit(0)
        os.close(write)
        with contextlib.suppress(OSError):  # the child does it too: whoever runs first wins
            os.setpgid(pid, pid)
        child = Child(key, pid, read, deadline, timeout, slot, forking=forking)
        self.children[pid] = child
        self.selector.register(read, selectors.EVENT_READ, child)

    def _become_child(self) -> None:
        os.setpgid(0, 0)  # its own group: a timeout kills the tests' subprocesses too
        set_pdeathsig(signal.SIGKILL)
        if os.getppid() != self.pid:  # the host died before prctl took effect
            os._exit(1)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        # The lab must see EOF when the host dies, not when its last child does.
        self.control.close()
        for other in [*self.children.values(), *self.exiting]:
            os.close(other.fd)

    def _start_baseline(self, workers: int) -> None:
        """Run 1, under coverage: whole test files split over `workers` children."""
        items = every_item(self.items)
        groups = baselineparts.split_by_file(items, [str(i.path) for i in items], workers)
        self.parts = []
        self.parts_expected = len(groups)
        for group in groups:
            main = functools.partial(self.jobs.baseline, items=group)
            self._fork(-1, main, self.baseline_timeout)

    def _start_mutant(self, message: messages.RunMutant) -> None:
        """Activate in the host, fork (the child inherits the mutant), undo in the host."""
        assert self.live is not None
        seen = install_marker()
        try:
            applied = activate(message.files, self.live)
        except (ActivationError, ValueError, OSError) as exc:
            error = f"could not activate the mutant: {exc}"
            on_disk = str(exc) if isinstance(exc, NeedsFileOnDisk) else ""
            self.send(messages.ActivationFailed(message.key, error, _trace(), on_disk))
            return
        try:
            main = self.jobs.mutant(message, seen, applied.notes, applied.reexecuted, self.spawners)
            self._fork(message.key, main, message.timeout)
        finally:
            applied.undo()

    def _step(self) -> None:
        for key, _ in self.selector.select(self._wait()):
            if key.data is None:
                self._on_control()
            else:
                self._on_output(key.data)
        now = time.monotonic()
        for child in list(self.children.values()):
            if child.result is not None:
                self._report(child)
                self._retire(child)
            elif child.deadline is not None and now > child.deadline:
                self._retire(child)
                self._report(child, timed_out=True)
            else:
                self._reap_if_dead(child)
        self._reap_exiting()
        if self.baseline_whole:
            self.baseline_whole = False
            self._start_baseline(workers=1)
        if self.baseline_due:
            run, self.baseline_due = self.baseline_due, 0
            self._fork(-run, self.jobs.rerun, self.baseline_timeout)

    def _wait(self) -> float:
        if self.exiting:
            return 0.001  # reap soon, but let the next fork go first
        deadlines = [c.deadline for c in self.children.values() if c.deadline is not None]
        wait = min(deadlines, default=time.monotonic() + _POLL) - time.monotonic()
        return max(0.0, min(wait, _POLL if self.children else 3600.0))

    def _on_output(self, child: Child) -> None:
        try:
            data = os.read(child.fd, 1 << 16)
        except OSError:
            data = b""
        if not data:
            self.selector.unregister(child.fd)
            child.eof = True
            return
        for message in child.buffer.feed(data):
            if isinstance(message, messages.TestStarted):
                child.current = message.nodeid
            elif isinstance(message, messages.TestFinished):
                child.finished.append(message.result)
                child.evidence = child.evidence or message.evidence
            elif isinstance(message, messages.ChildReport):
                message.timing.update(fork=child.forking, got=time.perf_counter())
                child.result = message
                if child.key == -1:  # the baseline under coverage: who starts processes
                    self.spawners |= frozenset(message.spawners)

    def _drain(self, child: Child) -> None:
        """Read whatever a dead child left in its pipe (its result may be there)."""
        while not child.eof and child.result is None:
            ready = selectors.DefaultSelector()
            ready.register(child.fd, selectors.EVENT_READ)
            events = ready.select(0)
            ready.close()
            if not events:
                return
            self._on_output(child)

    def _reap_if_dead(self, child: Child) -> None:
        pid, status = os.waitpid(child.pid, os.WNOHANG)
        if pid == 0:
            return
        self._drain(child)
        kill_group(child.pid)  # whatever its tests left running in its group
        self._report(child, status=status)
        self._release(child)

    def _retire(self, child: Child) -> None:
        """Kill the child's whole group (it may linger after reporting); reap it later."""
        kill_group(child.pid)
        self.exiting.append(child)

    def _reap_exiting(self) -> None:
        for child in list(self.exiting):
            pid, _ = os.waitpid(child.pid, os.WNOHANG)
            if pid == 0:
                continue
            self.exiting.remove(child)
            self._release(child)

    def _release(self, child: Child) -> None:
        if not child.eof:
            self.selector.unregister(child.fd)
        os.close(child.fd)
        self._kill_orphans()
        self.sandbox.give_back(child.slot)

    def _kill_orphans(self) -> None:
        """Processes a dead child's tests left (outside its group) are now ours: kill them.

        Every running child is spared with its subtree: its tests may still need them.
        """
        spare = frozenset(c.pid for c in [*self.children.values(), *self.exiting])
        direct = children_of(self.pid)
        if direct is None or direct - spare:  # one small read when there are none
            kill_descendants(self.pid, spare=spare)

    def _report(self, child: Child, *, timed_out: bool = False, status: int | None = None) -> None:
        """Tell the lab how the child ended, as soon as that is known."""
        del self.children[child.pid]
        if child.result is not None:
            child.result.timing["sent"] = time.perf_counter()
        baseline = child.key < 0
        report = child.result
        if report is None and timed_out and child.finished:
            # Timed out: what it reported test by test still stands (a kill before the hang).
            report = messages.ChildReport(
                tests=child.finished, evidence=["(reported per test)"] if child.evidence else []
            )
        message = messages.ChildEnded(
            baseline=baseline,
            key=-child.key if baseline else child.key,
            report=report,
            current=child.current,
            timed_out=child.timeout if timed_out else None,
            exit=None if child.result or status is None else describe_exit(status),
            clean_exit=not child.result
            and status is not None
            and os.waitstatus_to_exitcode(status) == 0,
        )
        if baseline and -child.key == 1 and self.parts_expected > 1:
            self.parts.append(message)
            if len(self.parts) < self.parts_expected:
                return
            if not baselineparts.clean(self.parts):
                # Maybe tests that need another file's, or collide when run at once:
                # the whole suite again in one child, whose verdict stands alone.
                self.baseline_whole = True
                return
            order = {nodeid: n for n, nodeid in enumerate(self.items)}
            message = baselineparts.merge(self.parts, order)
        if baseline:
            self._baseline_reported(-child.key)
        self.send(message)

    def _baseline_reported(self, run: int) -> None:
        if run < self.baseline_runs:
            self.baseline_due = run + 1  # forked by _step, once this child is retired
            return
        # Every function the collected tests can reach now exists; children share it.
        self.live = LiveFunctions()
        gc.freeze()  # fewer copy-on-write page faults in each child

    # -- shutdown ----------------------------------------------------------------

    def kill_children(self) -> None:
        for child in [*self.children.values(), *self.exiting]:
            kill_group(child.pid)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(child.pid, 0)
        self.children.clear()
        self.exiting.clear()
        kill_descendants(self.pid)  # whatever escaped the groups (start_new_session=True)

    def cleanup_if_orphaned(self) -> None:
        """The lab normally removes its scratch folder; if it was killed, the host does.

        On SIGTERM the parent pid tells: PR_SET_PDEATHSIG fires after the kernel
        reparented us. A closed control socket cannot use it, since a killed
        lab's sockets close before that reparenting; the lab says "stop" first
        when it means to, so a socket closing without it means the lab died.
        """
        if os.getppid() != self.parent_pid:
            workdirs.remove(self.scratch)

    def cleanup_unless_stopped(self) -> None:
        if not self.lab_said_stop:
            workdirs.remove(self.scratch)
        else:
            self.cleanup_if_orphaned()


class SilentReporter:
    """Stands in for pytest's terminal reporter in the host and its children.

    The real reporter is unregistered, so none of its hooks run (no per-test
    output, no cost); attribute access still reaches it, so a plugin asking
    for it (pytest-timeout dumps stacks to config.get_terminal_writer() before
    failing the test) finds a working one. Its output goes to the host's log.
    """

    def __init__(self, reporter: object) -> None:
        self._reporter = reporter

    def __getattr__(self, name: str) -> Any:
        if name.startswith("pytest_"):  # never a hook, whoever looks
            raise AttributeError(name)
        return getattr(self._reporter, name)


def _trace() -> str:
    return traceback.format_exc()[-MAX_LOG:]
