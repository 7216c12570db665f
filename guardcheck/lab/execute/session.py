"""A lab session: the pytest host's lifetime, collection, the baseline, then every mutant.

    with LabSession(options, mutants) as lab:
        collected = lab.collect()     # node ids, before any test runs
        ...                           # the caller checks killed_by against them
        report = lab.run(events)      # baseline, plan, execute

The host starts when the session opens, and the mutants are classified
(code swap in a fork, or a fresh interpreter) while it collects. A session
may open before its mutants exist (`LabSession(options)`, then `add`), so that
making them (a sweep's generator) overlaps pytest's start-up and the baseline;
that needs `options.source`, the folders coverage measures. Leaving the
session stops every child process and removes the scratch folder, whatever
happened; the working tree is never written to.

Errors: BaselineFailed (exit 3) for collection errors and crashed, red or
flaky baselines; HostDied (exit 2) when pytest cannot start. Once the
baseline is under way, the host dying or an internal error does not raise:
`run` returns the results so far with `RunReport.incomplete` saying why.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import sys
import threading
import time
import traceback
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import Protocol

from guardcheck import messages
from guardcheck.child import procs, workdirs
from guardcheck.lab.execute.baseline import (
    BaselineFailed,
    copy_writers,
    judge_baseline,
    linecache_readers,
    source_readers,
    unfollowed_tests,
    unmeasured_warning,
)
from guardcheck.lab.execute.processes import HostDied, HostInfo, HostProcess, Zygote, hash_seed
from guardcheck.lab.execute.scheduler import LabEvents, Scheduler, equivalent, unviable
from guardcheck.lab.plan import CoverageMap, EarlyResult, plan_mutant
from guardcheck.lab.prepare.classify import Activation, Unviable, after_collection, classify
from guardcheck.lab.sandbox import scratchdir
from guardcheck.lab.sandbox.importroots import foreign_message
from guardcheck.model import (
    BaselineTest,
    ExecutionPath,
    Mutant,
    MutantResult,
    RunReport,
    Selection,
)
from guardcheck.options import RunOptions

KEEP_SCRATCH = "GUARDCHECK_KEEP_SCRATCH"  # debugging: keep host.log and fresh runs' logs
NO_ZYGOTE = "GUARDCHECK_NO_ZYGOTE"  # debugging: fresh runs start new interpreters


class Restorer(Protocol):
    """Verdicts kept from an earlier run (guardcheck/cache/): asked once per planned mutant."""

    def restore(
        self,
        mutant: Mutant,
        selection: tuple[Selection, ...],
        baseline: Sequence[BaselineTest],
        coverage: CoverageMap,
    ) -> tuple[MutantResult, str] | None:
        """(the result, its log) when nothing its selected tests ran has changed."""
        ...


class LabSession:
    def __init__(self, options: RunOptions, mutants: Sequence[Mutant] = ()) -> None:
        self.options = options
        self.mutants = list(mutants)
        self.scratch = scratchdir.make_scratch("guardcheck-lab-")
        self.host: HostProcess | None = None
        self.info: HostInfo | None = None
        self.scheduler: Scheduler | None = None
        self.activations: list[Activation | str] = []
        self.interrupted = False
        self.unfollowed: dict[str, str] = {}  # baseline tests whose processes went unseen
        self.readers: dict[str, dict[str, str]] = {}  # source file -> tests that read it
        self.cached_readers: dict[str, set[str]] = {}  # ... only through linecache
        self._launched = 0.0
        self._source: list[str] = []  # what the host's coverage measures
        self._spare: frozenset[int] = frozenset()
        self._restorer: Restorer | None = None
        self._closed = False
        self.zygote: Zygote | None = None

    def __enter__(self) -> LabSession:
        # Orphans of the tests (start_new_session=True escapes any group kill) re-parent
        # to us while the session lasts; close() kills them. Our caller's own children
        # (a library user's) are spared.
        self._spare = frozenset(procs.descendants(os.getpid()))
        procs.set_subreaper()
        try:
            self._launched = time.perf_counter()
            self._source = measured_source(self.options, self.mutants)
            self.host = HostProcess(
                self.options,
                self.scratch,
                self._source,
                baseline_runs=self.options.baseline_runs,
            )
            # Classify while pytest starts and collects in the host: the two overlap.
            self.add(self.mutants)
        except BaseException:
            self.close()
            raise
        return self

    def add(self, mutants: Sequence[Mutant]) -> None:
        """The mutants this session runs (replacing any given before); before `collect`."""
        if self.info is not None:
            raise RuntimeError("LabSession.add after collect: its classification would be stale")
        self.mutants = list(mutants)
        self.activations = [_classify(m, self.options) for m in self.mutants]

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.close(urgent=kind is KeyboardInterrupt or self.interrupted)

    def collect(self) -> tuple[str, ...]:
        """The node ids pytest collected; raises BaselineFailed when collection failed."""
        assert self.host is not None
        limit = self.options.baseline_timeout
        message = _wait_for(self.host, (messages.Collected, messages.CollectFailed), limit)
        if message is None:
            raise BaselineFailed(
                f"pytest did not finish collecting within {limit:.0f} s (an import that hangs?)"
                "\n  fix: raise [tool.guardcheck] baseline_timeout (--baseline-timeout)"
            )
        startup = time.perf_counter() - self._launched
        if isinstance(message, messages.CollectFailed):
            errors = "\n".join(f"  {e}" for e in message.errors)
            raise BaselineFailed(f"pytest could not collect the tests:\n{errors}")
        assert isinstance(message, messages.Collected)
        if message.foreign:
            raise BaselineFailed(foreign_message(message.foreign))
        for note in message.notes:
            print(f"guardcheck: {note}", file=sys.stderr)
        if not message.tests:
            where = " ".join(self.options.tests) or "pytest's testpaths"
            raise BaselineFailed(
                f"no tests collected from {where}\n"
                "  fix: check [tool.guardcheck] tests and your pytest testpaths"
            )
        # Classified while the host collected; now the host says what ran meanwhile.
        lines = message.ran_lines
        early = None if lines is None else {p: frozenset(n) for p, n in lines.items()}
        self.activations = [
            a if isinstance(a, str) else after_collection(a, message.ran_before_tests, early)
            for a in self.activations
        ]
        paths = {t.nodeid: t.path for t in message.tests}
        self.info = HostInfo(
            Path(message.rootdir), message.inifile, paths, startup, message.randomly_seed
        )
        viable = [a for a in self.activations if not isinstance(a, str)]
        fresh = any(a.mode is ExecutionPath.FRESH for a in viable)
        if fresh and not os.environ.get(NO_ZYGOTE):
            # Its imports overlap the baseline; fresh runs fork from it instead of starting.
            self.zygote = Zygote(self.options, self.scratch, self.host.roots)
        return tuple(paths)

    def run(self, events: LabEvents, restorer: Restorer | None = None) -> RunReport:
        """The baseline, then every mutant; results come back in the mutants' order.

        `restorer` may supply a planned mutant's verdict instead of running it.
        """
        self._restorer = restorer
        if self.info is None:
            self.collect()
        assert self.host is not None
        assert self.info is not None
        started = time.perf_counter()
        report = RunReport(
            root=str(self.options.root),
            matrix=self.options.matrix,
            hash_seed=hash_seed(),
            randomly_seed=self.info.randomly_seed,
        )
        results: dict[int, MutantResult] = {}
        try:
            events.baseline_started()
            runs = [
                _wait_for(self.host, (messages.ChildEnded,))
                for _ in range(self.options.baseline_runs)
            ]
            ended = [m for m in runs if isinstance(m, messages.ChildEnded)]
            baseline, coverage = judge_baseline(ended, self.info.paths, self.options.root)
            self.unfollowed = unfollowed_tests(ended)
            self.readers = source_readers(ended, self.options.root)
            self.cached_readers = linecache_readers(ended, self.options.root)
            # Named as the host was told to measure it.
            warning = unmeasured_warning(coverage, self.unfollowed, self._source, self.options.root)
            if warning:
                print(f"guardcheck: {warning}", file=sys.stderr)
            report.baseline = baseline
            # Wall time: starting pytest, collecting, the tests under coverage (and reruns).
            report.baseline_seconds = time.perf_counter() - self._launched
            events.baseline_finished(baseline, report.baseline_seconds)
            durations = {t.nodeid: t.duration for t in baseline}
            self.scheduler = Scheduler(
                self.options,
                events,
                self.host,
                self.info,
                self.scratch,
                results,
                durations,
                self.zygote,
                copy_writers(ended),
            )
            for index, (mutant, activation) in enumerate(
                zip(self.mutants, self.activations, strict=True)
            ):
                self._plan(index, mutant, activation, baseline, coverage)
            self.scheduler.run()
        except KeyboardInterrupt:
            self.interrupted = report.interrupted = True
        except BaselineFailed:
            raise
        except HostDied as exc:
            report.incomplete = str(exc)
        except Exception as exc:  # an internal error: keep what finished, say why
            report.incomplete = f"internal error: {type(exc).__name__}: {exc}" + _keep_trace(
                self.options
            )
        report.results = [results[i] for i in sorted(results)]
        report.wall_seconds = time.perf_counter() - started
        return report

    def _plan(
        self,
        index: int,
        mutant: Mutant,
        activation: Activation | str,
        baseline: list[BaselineTest],
        coverage: CoverageMap,
    ) -> None:
        assert self.scheduler is not None
        if isinstance(activation, str):  # unviable: the mutated text does not compile
            self.scheduler.record(index, unviable(mutant, activation))
            return
        plan = plan_mutant(
            mutant,
            baseline,
            coverage,
            whole_file=activation.mode is ExecutionPath.FRESH and activation.collected_in is None,
            timeout_factor=self.options.timeout_factor,
            timeout_constant=self.options.timeout_constant,
            unfollowed=self.unfollowed,
            readers=self.readers,
            cached_readers=self.cached_readers,
            collected_in=activation.collected_in or (),
        )
        if isinstance(plan, EarlyResult):
            result = MutantResult(
                mutant,
                plan.status,
                plan.reason,
                selection=plan.selection,
                path=activation.mode,
                path_reason=activation.why,
            )
            self.scheduler.record(index, result)
            return
        if activation.equivalent:
            self.scheduler.record(index, equivalent(mutant, plan.selection))
            return
        if self._restorer is not None:
            restored = self._restorer.restore(mutant, plan.selection, baseline, coverage)
            if restored is not None:
                self.scheduler.record(index, *restored)
                return
        self.scheduler.add(index, plan, activation)

    def close(self, *, urgent: bool = False) -> None:
        """Stop every process of the session and remove its scratch folder (once)."""
        if self._closed:
            return
        self._closed = True
        if self.scheduler is not None:
            self.scheduler.kill_fresh()
        # Both asked first, then waited for: they end side by side.
        if self.zygote is not None:
            self.zygote.ask_to_stop()
        if self.host is not None:
            self.host.ask_to_stop(urgent=urgent)
        if self.zygote is not None:
            self.zygote.stop()
            self.zygote = None
        if self.host is not None:
            self.host.stop(urgent=urgent)
            self.host = None
        procs.kill_descendants(os.getpid(), spare=self._spare)
        procs.set_subreaper(False)
        if os.environ.get(KEEP_SCRATCH):
            print(f"guardcheck: scratch folder kept: {self.scratch}", file=sys.stderr)
        else:
            workdirs.remove(self.scratch)


def _keep_trace(options: RunOptions) -> str:
    """The traceback goes to a file for the bug report; the console gets one line."""
    path = options.output_dir / "internal-error.txt"
    try:
        path.write_text(traceback.format_exc(), encoding="utf-8")
    except OSError:
        return ""
    return f" (traceback in {path})"


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
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


def _classify(mutant: Mutant, options: RunOptions) -> Activation | str:
    try:
        return classify(mutant, options.root)
    except Unviable as exc:
        return str(exc)


def measured_source(options: RunOptions, mutants: Sequence[Mutant]) -> list[str]:
    """Folders coverage measures: [tool.guardcheck] source, else the mutants' folders."""
    if options.source:
        return [str(options.resolve(Path(s))) for s in options.source]
    folders = {str((options.root / c.path).parent) for m in mutants for c in m.changes}
    return sorted(folders) or [str(options.root)]


def _wait_for(
    host: HostProcess, kinds: tuple[type, ...], timeout: float | None = None
) -> messages.Message | None:
    """The next message of one of `kinds`; None once `timeout` seconds have passed."""
    deadline = None if timeout is None else time.monotonic() + timeout
    selector = selectors.DefaultSelector()
    selector.register(host.fileno(), selectors.EVENT_READ)
    try:
        while True:
            while host.inbox:
                message = host.inbox.popleft()
                if isinstance(message, kinds):
                    return message
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return None
            selector.select(left)
            host.receive()
    finally:
        selector.close()
