"""`run_lab`: baseline, plan, then every mutant in isolation; the engine behind `guardcheck run`.

Phases: classify each mutant (activation.py: code swap in a fork, or a fresh
interpreter); start the pytest host, which collects once and runs the
baseline under coverage in a forked child (then `baseline_runs - 1` more
times without coverage, each in a fresh fork, to expose flaky tests); plan
each mutant (plan.py); run
up to `jobs` mutants at a time, forked by the host or as fresh interpreters;
turn what each child reported into a verdict (verdict.py).

Interruption: Ctrl-C (KeyboardInterrupt) or SIGTERM while running returns the
RunReport gathered so far with `interrupted=True`, after every child process
is dead; the caller maps that to exit 130. The scratch folder (system temp
dir) is removed in every case; the working tree is never written to.

Errors: BaselineFailed (exit 3) for collection errors, failing, crashing or
flaky baseline tests (a test whose outcome differs between baseline runs);
workers.HostDied (a GuardcheckError, exit 2) when pytest itself cannot start
(bad pytest_args) or the host is killed mid-run.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import selectors
import signal
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from guardcheck.child import workdirs
from guardcheck.errors import GuardcheckError
from guardcheck.exitcodes import ExitCode
from guardcheck.lab.classify import FORK, SUBPROCESS, Activation, Unviable, classify
from guardcheck.lab.plan import CoverageMap, MutantPlan, plan_mutant
from guardcheck.lab.processes import FreshProcess, HostInfo, HostProcess, outcome_of
from guardcheck.lab.verdict import ChildOutcome, decide
from guardcheck.model import (
    BaselineTest,
    Mutant,
    MutantResult,
    RunReport,
    Status,
    TestOutcome,
    TestResult,
)
from guardcheck.options import Settings

KEEP_SCRATCH = "GUARDCHECK_KEEP_SCRATCH"  # debugging: keep host.log and fresh runs' logs
TIMING = "GUARDCHECK_TIMING"  # debugging: a per-mutant timing line in each log
FRESH_STARTUP_FLOOR = 10.0  # seconds a fresh interpreter may take to start, at least
_IDLE_POLL = 0.02  # seconds, only when a fresh process cannot be waited on by descriptor


@dataclass(frozen=True)
class LabOptions:
    jobs: int | None = None  # None -> os.cpu_count()
    matrix: bool = False  # run every selected test instead of stopping at the first failure
    timeout_factor: float = 2.0
    timeout_constant: float = 5.0
    baseline_runs: int = 1  # > 1: rerun the baseline to expose flaky tests (exit 3)


class LabEvents(Protocol):
    def baseline_started(self) -> None: ...
    def baseline_finished(self, tests: list[BaselineTest], seconds: float) -> None: ...
    def mutant_started(self, mutant: Mutant) -> None: ...
    def mutant_finished(self, result: MutantResult, log: str) -> None: ...


class BaselineFailed(GuardcheckError):
    def __init__(self, message: str) -> None:
        super().__init__(message, ExitCode.BASELINE_FAILED)


@dataclass
class _Job:
    index: int  # position in the caller's mutant list: results keep that order
    plan: MutantPlan
    activation: Activation
    started: float = 0.0
    fresh: FreshProcess | None = None


def run_lab(
    settings: Settings,
    mutants: list[Mutant],
    options: LabOptions,
    events: LabEvents,
    on_collected: Callable[[tuple[str, ...]], None] | None = None,
) -> RunReport:
    """Run `mutants` against the project's suite; raises BaselineFailed on a red baseline.

    `on_collected` sees the collected test ids before any test runs; whatever
    it raises (e.g. CatalogueInvalid for an unknown `killed_by`) ends the run
    there, with the host stopped.
    """
    started = time.perf_counter()
    report = RunReport(root=str(settings.root), matrix=options.matrix)
    results: dict[int, MutantResult] = {}
    activations = {i: _classify(m, settings) for i, m in enumerate(mutants)}
    scratch = Path(tempfile.mkdtemp(prefix="guardcheck-lab-"))
    host: HostProcess | None = None
    lab: _Lab | None = None
    try:
        with _sigterm_as_interrupt():
            launched = time.perf_counter()
            host = HostProcess(
                settings, scratch, _source(settings, mutants), baseline_runs=options.baseline_runs
            )
            info = _wait_collected(host, launched)
            if on_collected is not None:
                on_collected(tuple(info.paths))
            events.baseline_started()
            baseline, coverage = _wait_baseline(host, settings, info, options.baseline_runs)
            report.baseline = baseline
            # Wall time: starting pytest, collecting, the tests under coverage (and reruns).
            report.baseline_seconds = time.perf_counter() - launched
            events.baseline_finished(baseline, report.baseline_seconds)
            lab = _Lab(settings, options, events, host, info, scratch, results)
            for index, mutant in enumerate(mutants):
                lab.add(index, mutant, activations[index], baseline, coverage)
            lab.run()
    except KeyboardInterrupt:
        report.interrupted = True
    finally:
        if lab is not None:
            lab.kill_fresh()
        if host is not None:
            host.stop(urgent=report.interrupted)
        if os.environ.get(KEEP_SCRATCH):
            print(f"guardcheck: scratch folder kept: {scratch}", file=sys.stderr)
        else:
            workdirs.remove(scratch)
    report.results = [results[i] for i in sorted(results)]
    report.wall_seconds = time.perf_counter() - started
    return report


@contextlib.contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM takes the Ctrl-C route: children are stopped before anything returns."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _classify(mutant: Mutant, settings: Settings) -> Activation | str:
    try:
        return classify(mutant, settings.root)
    except Unviable as exc:
        return str(exc)


def _source(settings: Settings, mutants: list[Mutant]) -> list[str]:
    """Folders coverage measures: [tool.guardcheck] source, else the mutants' folders."""
    if settings.source:
        return [str(settings.resolve(Path(s))) for s in settings.source]
    folders = {str((settings.root / c.path).parent) for m in mutants for c in m.changes}
    return sorted(folders) or [str(settings.root)]


def _wait_for(host: HostProcess, kinds: set[str]) -> dict[str, Any]:
    selector = selectors.DefaultSelector()
    selector.register(host.fileno(), selectors.EVENT_READ)
    try:
        while True:
            while host.inbox:
                message = host.inbox.popleft()
                if message["t"] in kinds:
                    return message
            selector.select()
            host.receive()
    finally:
        selector.close()


def _wait_collected(host: HostProcess, launched: float) -> HostInfo:
    message = _wait_for(host, {"collected", "collect_failed"})
    startup = time.perf_counter() - launched
    if message["t"] == "collect_failed":
        errors = "\n".join(f"  {e}" for e in message["errors"])
        raise BaselineFailed(f"pytest could not collect the tests:\n{errors}")
    paths = {t["nodeid"]: t["path"] for t in message["tests"]}
    return HostInfo(Path(message["rootdir"]), message["inifile"], paths, startup)


def _relative(filename: str, settings: Settings) -> str:
    real = Path(os.path.realpath(filename))
    try:
        return real.relative_to(os.path.realpath(settings.root)).as_posix()
    except ValueError:
        return real.as_posix()


def _wait_baseline(
    host: HostProcess, settings: Settings, info: HostInfo, runs: int
) -> tuple[list[BaselineTest], CoverageMap]:
    """Every baseline run's results; the first carries coverage. Raises BaselineFailed."""
    messages = []
    for run in range(1, runs + 1):
        message = _wait_for(host, {"baseline"})
        _check_crash(message, run, runs)
        messages.append(message)
    outcomes = [outcome_of(m) for m in messages]
    _check_red_or_flaky(outcomes)
    first = outcomes[0]
    tests = [t.nodeid for t in first.tests]
    # The slowest run's time per test: a timeout budget that covers every run seen.
    durations = {t.nodeid: t.duration for t in first.tests}
    for outcome in outcomes[1:]:
        for t in outcome.tests:
            durations[t.nodeid] = max(durations.get(t.nodeid, 0.0), t.duration)
    baseline = [BaselineTest(n, durations[n], _relative(info.paths[n], settings)) for n in tests]
    return baseline, _coverage_map(messages[0], tests, settings)


def _check_crash(message: dict[str, Any], run: int, runs: int) -> None:
    outcome = outcome_of(message)
    if outcome.crash or outcome.error or outcome.timed_out:
        where = f" during {message.get('current')}" if message.get("current") else ""
        what = outcome.crash or outcome.error
        which = f"run {run} of {runs}" if runs > 1 else "run"
        raise BaselineFailed(f"the baseline {which} crashed ({what}){where}")


_RED = (TestOutcome.FAILED, TestOutcome.ERROR)


def _check_red_or_flaky(outcomes: list[ChildOutcome]) -> None:
    """Red: fails in every run. Flaky: its outcome differs between runs."""
    runs = [{t.nodeid: t for t in o.tests} for o in outcomes]
    nodeids = list(dict.fromkeys(n for run in runs for n in run))
    red: list[str] = []
    flaky: list[str] = []
    for nodeid in nodeids:
        results = [run.get(nodeid) for run in runs]
        kinds = {r.outcome if r else None for r in results}
        if len(kinds) > 1:
            flaky.append(_flaky_line(nodeid, results))
        elif results[0] is not None and results[0].outcome in _RED:
            first = results[0]
            red.append(f"  {nodeid} ({first.outcome}): {first.message}")
    sections = []
    if red:
        sections.append(
            f"baseline failed: {len(red)} test(s) fail without any mutation:\n" + "\n".join(red)
        )
    if flaky:
        sections.append(
            f"baseline is flaky: {len(flaky)} test(s) changed outcome between "
            f"{len(runs)} runs:\n" + "\n".join(flaky)
        )
    if sections:
        raise BaselineFailed("\n".join(sections))


def _flaky_line(nodeid: str, results: list[TestResult | None]) -> str:
    """`  flaky: ID passed in run 1, failed in run 2: <the first failure's message>`."""
    per_run = ", ".join(
        f"{r.outcome.value if r else 'did not run'} in run {n}"
        for n, r in enumerate(results, start=1)
    )
    failure = next((r for r in results if r is not None and r.outcome in _RED), None)
    message = f": {failure.message}" if failure is not None and failure.message else ""
    return f"  flaky: {nodeid} {per_run}{message}"


def _coverage_map(message: dict[str, Any], tests: list[str], settings: Settings) -> CoverageMap:
    coverage: dict[str, dict[int, frozenset[str]]] = {}
    for filename, by_line in message.get("coverage", {}).items():
        lines = coverage.setdefault(_relative(filename, settings), {})
        for line, indices in by_line.items():
            nodeids = {tests[i] for i in indices if i < len(tests)}
            lines[int(line)] = lines.get(int(line), frozenset()) | nodeids
    return coverage


class _Lab:
    """Runs planned mutants, at most `jobs` at a time, forked by the host or fresh."""

    def __init__(
        self,
        settings: Settings,
        options: LabOptions,
        events: LabEvents,
        host: HostProcess,
        info: HostInfo,
        scratch: Path,
        results: dict[int, MutantResult],
    ) -> None:
        self.settings = settings
        self.options = options
        self.events = events
        self.host = host
        self.info = info
        self.scratch = scratch
        self.results = results
        self.jobs = max(1, options.jobs or os.cpu_count() or 1)
        self.pending: deque[_Job] = deque()
        self.running: dict[int, _Job] = {}
        self._subprocess_jobs = 0  # queued at the front, in input order

    def add(
        self,
        index: int,
        mutant: Mutant,
        activation: Activation | str,
        baseline: list[BaselineTest],
        coverage: CoverageMap,
    ) -> None:
        if isinstance(activation, str):  # unviable: the mutated text does not compile
            self.events.mutant_started(mutant)
            self._record(index, MutantResult(mutant, Status.ERROR, activation), "")
            return
        plan = plan_mutant(
            mutant,
            baseline,
            coverage,
            whole_file=activation.mode == SUBPROCESS,
            timeout_factor=self.options.timeout_factor,
            timeout_constant=self.options.timeout_constant,
        )
        if plan.no_coverage:
            result = MutantResult(
                mutant,
                Status.NO_COVERAGE,
                plan.no_coverage,
                selection=plan.selection,
                path=activation.mode,
            )
            self.events.mutant_started(mutant)
            self._record(index, result, "")
            return
        job = _Job(index, plan, activation)
        if activation.mode == SUBPROCESS:
            # A fresh interpreter costs ~1 s of startup: start those first so the
            # cheap forks fill the other slots instead of trailing behind them.
            self.pending.insert(self._subprocess_jobs, job)
            self._subprocess_jobs += 1
        else:
            self.pending.append(job)

    def run(self) -> None:
        while self.pending or self.running:
            while self.pending and len(self.running) < self.jobs:
                self._start(self.pending.popleft())
            self._wait()

    def _start(self, job: _Job) -> None:
        mutant, plan = job.plan.mutant, job.plan
        self.events.mutant_started(mutant)
        job.started = time.perf_counter()
        self.running[job.index] = job
        if job.activation.mode == FORK:
            files = [f.to_wire() for f in job.activation.files]
            self.host.queue(
                {
                    "t": "mutant",
                    "key": job.index,
                    "files": files,
                    "tests": list(plan.tests),
                    "matrix": self.options.matrix,
                    "timeout": plan.timeout,
                }
            )
            return
        files = [
            {"filename": str(self.settings.root / c.path), "mutated": c.mutated}
            for c in mutant.changes
        ]
        job.fresh = FreshProcess(
            self.settings,
            self.info,
            self.scratch / f"fresh-{job.index}",
            files,
            plan.tests,
            matrix=self.options.matrix,
            # A fresh interpreter starts pytest and collects again: allow for that too,
            # generously, since start-up time swings with machine load far more than tests do.
            timeout=plan.timeout + max(FRESH_STARTUP_FLOOR, 3 * self.info.startup),
        )

    def _wait(self) -> None:
        selector = selectors.DefaultSelector()
        events = selectors.EVENT_READ | (selectors.EVENT_WRITE if self.host.wants_write else 0)
        selector.register(self.host.fileno(), events, None)
        timeout: float | None = None
        for job in self.running.values():
            if job.fresh is None:
                continue
            fd = job.fresh.fileno()
            if fd is None:
                timeout = _IDLE_POLL
            else:
                selector.register(fd, selectors.EVENT_READ, job)
            left = max(0.0, job.fresh.deadline - time.monotonic())
            timeout = left if timeout is None else min(timeout, left)
        try:
            ready = selector.select(timeout)
        finally:
            selector.close()
        for key, mask in ready:
            if key.data is None:
                if mask & selectors.EVENT_WRITE:
                    self.host.flush()
                if mask & selectors.EVENT_READ:
                    self.host.receive()
        while self.host.inbox:
            self._on_host(self.host.inbox.popleft())
        for job in list(self.running.values()):
            if job.fresh is not None and (done := job.fresh.poll()) is not None:
                self._finish(job, *done)
                workdirs.remove(job.fresh.folder)

    def _on_host(self, message: dict[str, Any]) -> None:
        if message["t"] != "done" or message["key"] not in self.running:
            return
        log = message.get("log", "")
        if os.environ.get(TIMING):
            log += "\n" + _timing_line(self.running[message["key"]].started, message["timing"])
        self._finish(self.running[message["key"]], outcome_of(message), log)

    def _finish(self, job: _Job, outcome: ChildOutcome, child_log: str) -> None:
        del self.running[job.index]
        mutant = job.plan.mutant
        status, reason = decide(mutant, outcome)
        result = MutantResult(
            mutant,
            status,
            reason,
            tests=_ran(outcome),
            selection=job.plan.selection,
            path=job.activation.mode,
            duration=time.perf_counter() - job.started,
        )
        log = [
            f"mutant {mutant.id} ({job.activation.mode}"
            + (f": {job.activation.why})" if job.activation.why else ")"),
            "selected: " + ", ".join(job.plan.tests),
            *(
                f"{t.outcome.value:8} {t.nodeid} ({t.duration:.3f}s) {t.message}"
                for t in result.tests
            ),
            child_log,
            f"verdict: {status.value}: {reason}",
        ]
        self._record(job.index, result, "\n".join(line for line in log if line))

    def _record(self, index: int, result: MutantResult, log: str) -> None:
        self.results[index] = result
        self.events.mutant_finished(result, log)

    def kill_fresh(self) -> None:
        for job in self.running.values():
            if job.fresh is not None:
                job.fresh.kill()


def _ran(outcome: ChildOutcome) -> tuple[TestResult, ...]:
    """What ran, with the test a crash or timeout interrupted recorded as its killer."""
    tests = outcome.tests
    interrupted = outcome.crash or outcome.timed_out is not None
    if interrupted and outcome.current and outcome.current not in {t.nodeid for t in tests}:
        what = "timeout" if outcome.timed_out is not None else f"crash: {outcome.crash}"
        tests = (*tests, TestResult(outcome.current, TestOutcome.ERROR, 0.0, what))
    return tests


def _timing_line(dispatched: float, timing: dict[str, float]) -> str:
    """Milliseconds between the steps of one forked mutant (all perf_counter, one clock)."""
    steps = ["fork", "child", "ready", "tested", "got", "sent"]
    marks = [("dispatched", dispatched)] + [(s, timing[s]) for s in steps if s in timing]
    marks.append(("handled", time.perf_counter()))
    parts = [f"{b[0]} +{1000 * (b[1] - a[1]):.1f}" for a, b in itertools.pairwise(marks)]
    return "timing ms: " + ", ".join(parts)
