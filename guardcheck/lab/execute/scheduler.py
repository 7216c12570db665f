"""Runs planned mutants, at most `jobs` at a time: forked by the host, or fresh interpreters.

Fresh-interpreter mutants start first (each pays a pytest start-up), so the
cheap forks fill the other slots instead of trailing behind them. Every
result keeps what its child reported (`MutantResult.outcome`).
"""

from __future__ import annotations

import functools
import itertools
import os
import selectors
import time
from collections import Counter, deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Protocol

from guardcheck import messages
from guardcheck.child import workdirs
from guardcheck.lab.execute.checkpoints import NO_CHECKPOINTS, Checkpoint, Checkpoints
from guardcheck.lab.execute.ondisk import OnDisk
from guardcheck.lab.execute.processes import (
    ForkServer,
    FreshProcess,
    HostInfo,
    HostProcess,
    Zygote,
    outcome_of,
)
from guardcheck.lab.execute.written import Footprint, WrittenFiles
from guardcheck.lab.plan import RunPlan, killers_first
from guardcheck.lab.prepare.classify import Activation
from guardcheck.lab.sandbox.projectcopy import CopyRestorer
from guardcheck.lab.verdict import (
    confirm,
    control_note,
    control_tests,
    decide,
    failing_tests,
    interrupted,
    needs_control,
    order_dependent,
    tests_run,
    unrun_selection,
)
from guardcheck.model import (
    BaselineTest,
    ChildOutcome,
    ExecutionPath,
    Mutant,
    MutantResult,
    Selection,
    Status,
)
from guardcheck.options import RunOptions
from guardcheck.splices import encode_source

TIMING = "GUARDCHECK_TIMING"  # debugging: a per-mutant timing line in each log
FRESH_STARTUP_FLOOR = 10.0  # seconds a fresh interpreter may take to start, at least
_IDLE_POLL = 0.02  # seconds, only when a fresh process cannot be waited on by descriptor
_START_POLL = 0.005  # seconds between looks for the start checkpoint while runs wait for it
# Tests in a mutant's first run when it selects more: 90-97% of kills come from the first
# five of the likeliest-killers-first order on the corpus libraries (see probe_plan).
PROBE_TESTS = 8
# A fork probe that missed is followed by one more, of the next likeliest killers up to
# this share of the selection's baseline seconds, before the run in the suite's order: a
# survivor pays at most this much more, a late killer is found without that whole run.
FURTHER_SHARE = 0.1
# ... when the selection has at least this many tests: a smaller one runs in the suite's
# order in little more than a second probe's start (iso8601, 47 tests: 7% slower with it).
FURTHER_MIN_SELECTION = 64
CONTROL_KEYS = 1 << 30  # control runs' job keys start here, above any mutant's index
# A control run's identity: the path it takes and the tests it runs, in order.
ControlKey = tuple[ExecutionPath, tuple[str, ...]]


class LabEvents(Protocol):
    def baseline_started(self) -> None: ...
    def baseline_finished(self, tests: list[BaselineTest], seconds: float) -> None: ...
    def mutant_started(self, mutant: Mutant) -> None: ...
    def mutant_finished(self, result: MutantResult, log: str) -> None: ...


@dataclass
class _Job:
    index: int  # position in the caller's mutant list: results keep that order
    plan: RunPlan
    activation: Activation
    started: float = 0.0
    fresh: FreshProcess | None = None
    control: ControlKey | None = None  # a control run: these tests, no mutant
    # A second run of the mutant with the selected tests' modules, in baseline order:
    # the selection alone behaved unlike the whole suite (see _in_context).
    context: bool = False
    # The mutant written into the copy's files: a test read them (see _again_on_disk).
    on_disk: bool = False
    # A run of the mutant after one that did not decide (see _in_context): its reason says so.
    again: bool = False
    # A probe: the first of these selected tests (see probe_plan); empty for a whole run.
    selected: tuple[str, ...] = ()
    further: bool = False  # the second probe (see further_probe)
    earlier: ChildOutcome | None = None  # on disk: the run in memory, whose passes stand


class Scheduler:
    def __init__(
        self,
        options: RunOptions,
        events: LabEvents,
        host: HostProcess,
        info: HostInfo,
        scratch: Path,
        results: dict[int, MutantResult],
        durations: dict[str, float],
        zygote: Zygote | None = None,
        written: WrittenFiles | None = None,
    ) -> None:
        self.options = options
        self.zygote = zygote  # fresh runs fork from it when there is one
        self.events = events
        self.host = host
        self.info = info
        self.scratch = scratch
        self._slots: workdirs.Sandbox | None = None  # fresh runs' working copies, pooled
        self._checkpoints: Checkpoints | None = None  # made when a mutant first needs one
        self.results = results
        self.jobs = options.workers
        self.pending: deque[_Job] = deque()
        self.running: dict[int, _Job] = {}
        self._fresh_jobs = 0  # queued at the front, in input order
        # Kills await a control run: the same tests in the same order, without the
        # mutant, must pass (an order-dependent test fails without it too). One per
        # distinct selection: many mutants share one.
        self.controls: dict[ControlKey, ChildOutcome] = {}
        self.awaiting: dict[ControlKey, list[tuple[_Job, ChildOutcome, str]]] = {}
        self._control_keys = itertools.count(CONTROL_KEYS)
        self.kills: dict[str, Counter[str]] = {}  # file -> tests that killed its mutants so far
        self.line_kills: dict[tuple[str, int], set[str]] = {}  # (file, line) -> its killers
        self.durations = durations  # the baseline's seconds per test
        # While run() runs, what the listeners hear (a diff and a log written, the progress
        # drawn) waits until the free slots have their next mutants: the host forks them
        # meanwhile instead of idling through our file writes.
        self._deferred: list[Callable[[], None]] | None = None
        self.disk = OnDisk(options.root)
        # Files of the copy the baseline's tests wrote (child/copywrites.py): a run of a
        # writer never overlaps a run that opens its files, which are put back after it.
        self.written = written or WrittenFiles()
        self._restorer = CopyRestorer(options) if self.written.writes else None
        # Real paths of mutated files a fresh run found imported before it could serve
        # them (child/preloaded.py): their mutants run on disk, in a new interpreter.
        self.preloaded: set[str] = set()

    def record(self, index: int, result: MutantResult, log: str = "") -> None:
        """A verdict reached without running anything (unviable, no coverage)."""
        self.events.mutant_started(result.mutant)
        self._record(index, result, log)

    def add(self, index: int, plan: RunPlan, activation: Activation) -> None:
        job = _Job(index, plan, activation)
        checkpoints = self._checkpoints_for(activation)
        if checkpoints is not None and activation.collected_in:
            # Queued with the forked mutants: its checkpoint collects meanwhile.
            checkpoints.prepare(activation.collected_in)
            self.pending.append(job)
        elif activation.mode is ExecutionPath.FRESH:
            if checkpoints is not None:
                checkpoints.start(self._patience)  # it listens before most of these run
            self.pending.insert(self._fresh_jobs, job)
            self._fresh_jobs += 1
        else:
            self.pending.append(job)

    def run(self) -> None:
        self._deferred = []
        self._put_back_written()  # what the baseline's tests left
        try:
            while self.pending or self.running:
                held = False  # a run waits for the start checkpoint: look again soon
                while self.pending and len(self.running) < self.jobs:
                    job, held = self._next_startable()
                    if job is None:
                        break
                    self._start(job)
                self._tell()
                self._wait(held and len(self.running) < self.jobs)
        finally:
            self.disk.restore()
            self._put_back_written()
            self._tell()
            self._deferred = None

    def _next_startable(self) -> tuple[_Job | None, bool]:
        """The next pending run that may start now, taken off the queue (None: none yet),
        and whether a run was passed over because it waits for the start checkpoint.

        Runs that would resume at the start checkpoint wait while it is still on its way
        (a fresh interpreter would pay for the same start-up); what is queued behind them
        may go meanwhile.
        """
        starting = self._checkpoints is not None and self._checkpoints.starting()
        held = False
        for position, job in enumerate(self.pending):
            if starting and self._at_start(job):
                held = True
                continue
            if not self._may_start(job):
                return None, held
            del self.pending[position]
            return job, held
        return None, held

    def _may_start(self, first: _Job) -> bool:
        """A mutant on disk runs alone, and a run of a test that writes into the copy
        beside no run that opens the same files: every run shares the copy's files."""
        if any(job.on_disk for job in self.running.values()) or (first.on_disk and self.running):
            return False
        mine = self._footprint(first)
        return not any(mine.clashes(self._footprint(job)) for job in self.running.values())

    def _footprint(self, job: _Job) -> Footprint:
        return self.written.footprint(job.plan.tests)

    def _put_back_written(self, paths: Iterable[str] | None = None) -> None:
        if self._restorer is not None:
            self._restorer.restore(sorted(self.written.writes if paths is None else paths))

    def _emit(self, call: Callable[[], None]) -> None:
        if self._deferred is None:
            call()
        else:
            self._deferred.append(call)

    def _tell(self) -> None:
        while self._deferred:
            self._deferred.pop(0)()

    def _start(self, job: _Job) -> None:
        mutant, plan = job.plan.mutant, job.plan
        control = job.control is not None
        if not control and not job.context and not job.on_disk and not job.further:
            # (a rerun keeps its order)
            self._emit(functools.partial(self.events.mutant_started, mutant))
            job.started = time.perf_counter()
            job.plan = plan = killers_first(
                plan, self._kills_in(mutant), self.durations, self._killers_on_lines_of(mutant)
            )
            if not self.options.matrix:
                self._first_run(job)
            plan = job.plan
        self.running[job.index] = job
        # A control run runs every test it lists (no stopping early) with nothing swapped.
        matrix = self.options.matrix or control
        if job.activation.mode is ExecutionPath.FORK:
            files = [f.to_message() for f in job.activation.files] if not control else []
            run = messages.RunMutant(
                job.index, files, list(plan.tests), matrix, plan.timeout, list(plan.must_run)
            )
            self.host.queue(run)
            return
        served = [
            messages.ServedFile(str(self.options.root / c.path), c.mutated) for c in mutant.changes
        ]
        unservable = self.preloaded.intersection(os.path.realpath(f.filename) for f in served)
        if unservable and not control and not job.on_disk:
            del self.running[job.index]
            why = (
                "its module is imported before a fresh run can serve the mutant (by pytest "
                "itself or a .pth file), so it runs with the mutant written into the private "
                "copy, in a new interpreter"
            )
            self._on_disk_from_start(job, why)
            return
        served = served if not control else []
        if job.on_disk:
            try:
                self.disk.write(mutant)
            except OSError as exc:
                why = f"could not write the mutant into the private copy: {exc}"
                self._finish(job, ChildOutcome(error=why), "")
                return
        if self._slots is None:
            self._slots = workdirs.Sandbox(self.options.root, self.scratch / "fresh-slots")
        # The zygote imported the preloaded files' original: only a new interpreter
        # imports them from the mutant written on disk.
        server: ForkServer | None = None if unservable and not control else self.zygote
        swaps: list[messages.SwapFile] = []
        checkpoint = self._checkpoint_for(job)
        if checkpoint is not None:
            server = checkpoint
            if checkpoint.file and not control:  # (at the start the files are served)
                swaps = [f.to_message() for f in job.activation.files]
        job.fresh = FreshProcess(
            self.options,
            self.info,
            self.scratch / f"fresh-{job.index}",
            self._slots.take(),
            served,
            plan.tests,
            matrix=matrix,
            hold=plan.must_run,
            zygote=server,
            roots=self.host.roots,
            on_disk=job.on_disk,
            swaps=swaps,
            checkpoint=checkpoint is not None,
            control=control,
            # A fresh interpreter starts pytest and collects again: allow for that too,
            # generously, since start-up time swings with machine load far more than tests do.
            timeout=plan.timeout + max(FRESH_STARTUP_FLOOR, 3 * self.info.startup),
        )

    def _checkpoints_for(self, activation: Activation) -> Checkpoints | None:
        """The checkpoints, for a run in a fresh interpreter."""
        if activation.mode is not ExecutionPath.FRESH:
            return None
        if self._checkpoints is None:
            if self.zygote is None or os.environ.get(NO_CHECKPOINTS):
                return None
            self._checkpoints = Checkpoints(
                self.options, self.info, self.zygote, self.scratch, self.host.roots
            )
        return self._checkpoints

    def _checkpoint_for(self, job: _Job) -> Checkpoint | None:
        """The checkpoint a run resumes from, or None: a fresh interpreter.

        A mutant whose changed code only some test files' collection ran resumes before
        the first of them, with its code swapped in; any other run in a fresh interpreter
        (a control run too) at the start, before the conftest files, its mutated files
        served on their first import, unless something before that pause imported them.
        """
        checkpoints = self._checkpoints_for(job.activation)
        if checkpoints is None or job.on_disk:
            return None
        if not self._at_start(job):
            return checkpoints.before(job.activation.collected_in or (), self._patience)
        mutated = () if job.control is not None else job.plan.mutant.changes
        return checkpoints.at_start({os.path.realpath(self.options.root / c.path) for c in mutated})

    def _at_start(self, job: _Job) -> bool:
        """Would this run resume at the start checkpoint (were it listening)?"""
        fresh = job.activation.mode is ExecutionPath.FRESH
        return fresh and not job.on_disk and not job.activation.collected_in

    @property
    def _patience(self) -> float:
        """Seconds a checkpoint may take to reach its pause before its runs go fresh."""
        return max(FRESH_STARTUP_FLOOR, 3 * self.info.startup)

    def _wait(self, held_for_start: bool) -> None:
        """Until the host or a fresh run has news, a fresh run's deadline passes, or (when
        `held_for_start`: a run waits for the start checkpoint, with a slot free for it)
        the next look at that checkpoint is due."""
        selector = selectors.DefaultSelector()
        events = selectors.EVENT_READ | (selectors.EVENT_WRITE if self.host.wants_write else 0)
        selector.register(self.host.fileno(), events, None)
        bounds: list[float] = [_START_POLL] if held_for_start else []
        for job in self.running.values():
            if job.fresh is None:
                continue
            fd = job.fresh.fileno()
            if fd is None:
                bounds.append(_IDLE_POLL)
            else:
                selector.register(fd, selectors.EVENT_READ, job)
            bounds.append(max(0.0, job.fresh.deadline - time.monotonic()))
        try:
            ready = selector.select(min(bounds, default=None))
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
                if self._slots is not None:
                    self._slots.give_back(job.fresh.slot)

    def _on_host(self, message: messages.Message) -> None:
        if isinstance(message, messages.ActivationFailed) and message.key in self.running:
            job = self.running[message.key]
            if message.on_disk and job.control is None and not job.on_disk:
                del self.running[message.key]
                self._on_disk_from_start(job, message.on_disk)
                return
            outcome = ChildOutcome(error=message.error)
            self._finish(job, outcome, message.log)
            return
        if not isinstance(message, messages.ChildEnded) or message.baseline:
            return
        job = self.running.get(message.key)
        if job is None:
            return
        log = message.report.log if message.report is not None else ""
        if os.environ.get(TIMING) and message.report is not None:
            log += "\n" + _timing_line(job.started, message.report.timing)
        self._finish(job, outcome_of(message, control=job.control is not None), log)

    def _finish(self, job: _Job, outcome: ChildOutcome, child_log: str) -> None:
        del self.running[job.index]
        if written := self._footprint(job).writes:
            self._put_back_written(written)  # the next run starts from a checkout's files
        if job.fresh is not None and job.fresh.preloaded:
            self.preloaded.update(job.fresh.preloaded)
            if job.on_disk and job.control is None:
                # Forked from the zygote, which holds the original: a new interpreter.
                self.disk.restore()
                self.pending.append(replace(job, fresh=None))
                return
        if job.on_disk:
            self.disk.restore()  # before anything else starts, its control run included
        if job.control is not None:
            self._control_finished(job.control, outcome)
            return
        outcome = _with_linecache_evidence(outcome, job.plan.linecache_readers)
        settled = needs_control(outcome) or interrupted(outcome)
        if job.selected and not settled and (self._probe_further(job) or self._in_context(job)):
            return  # a probe that killed nothing: a second one, or the suite's order
        if not job.on_disk and job.plan.readers and (outcome.from_disk or _all_passed(outcome)):
            # Every reader runs on disk, not only those that opened the file this time:
            # one mypy run serves all of pytest-mypy's items (child/pluginstate.py).
            readers = (*outcome.from_disk, *job.plan.readers)
            outcome = replace(outcome, from_disk=tuple(dict.fromkeys(readers)))
        if outcome.from_disk and not job.on_disk and _encodable(job.plan.mutant):
            # A pass: first in the suite's order, in memory; then its disk readers on disk.
            if not self._in_context(job):
                self._again_on_disk(job, outcome)
            return
        if job.earlier is not None:
            outcome = _with_earlier_evidence(outcome, job.earlier, job.plan.readers)
        status, reason = decide(job.plan.mutant, outcome)
        status, reason = unrun_selection(status, reason, job.plan.tests, outcome)
        if not needs_control(outcome):
            inconclusive = _inconclusive_alone(status, outcome)
            unreached = _unreached(status, outcome, job.activation)
            survived = status in (Status.SURVIVED, Status.KNOWN_GAP)
            if (inconclusive or unreached or survived) and self._in_context(job):
                return
            if unreached:
                status, reason = (
                    Status.NO_COVERAGE,
                    (
                        f"none of the {len(outcome.tests)} selected test(s) reached the changed "
                        "statement (its function ran, the statement did not), so nothing tests it"
                    ),
                )
            self._conclude(job, outcome, child_log, status, reason)
            return
        key = (job.activation.mode, control_tests(outcome, job.plan.tests))
        if key in self.controls:  # another mutant's control run of the same tests
            self._judge_by_control(job, outcome, child_log, status, reason, self.controls[key])
            return
        waiting = self.awaiting.setdefault(key, [])
        waiting.append((job, outcome, child_log))
        if len(waiting) == 1:
            index = next(self._control_keys)
            plan = RunPlan(job.plan.mutant, key[1], (), job.plan.timeout)
            # From the mutant's checkpoint too, if it had one: without a swap, a run from
            # there is a fresh run without the mutant.
            activation = Activation(
                job.activation.mode,
                "control run: no mutant",
                collected_in=job.activation.collected_in,
            )
            self.pending.appendleft(_Job(index, plan, activation, control=key))

    def _control_finished(self, key: ControlKey, outcome: ChildOutcome) -> None:
        self.controls[key] = outcome
        for job, mutant_outcome, log in self.awaiting.pop(key, []):
            status, reason = decide(job.plan.mutant, mutant_outcome)
            self._judge_by_control(job, mutant_outcome, log, status, reason, outcome)

    def _judge_by_control(
        self,
        job: _Job,
        outcome: ChildOutcome,
        child_log: str,
        status: Status,
        reason: str,
        control: ChildOutcome,
    ) -> None:
        """A kill, crash or hang once the same tests ran without the mutant (its own
        control run or another mutant's of the same tests): run again in the suite's
        order when it happens there too, else confirmed (or an error), the control
        run's line added to the log."""
        if order_dependent(outcome, control) and self._in_context(job):
            return
        log = "\n".join(filter(None, [child_log, control_note(control)]))
        self._conclude(job, outcome, log, *confirm(status, reason, outcome, control))

    def _first_run(self, job: _Job) -> None:
        """A mutant probes its likeliest killers first (probe_plan), unless the probe would
        be the whole selection and the run as the suite runs it is that selection in
        another order: then that run is the first, and a pass needs no second run.

        A fresh mutant's probe may be its whole selection with more of its modules'
        tests still to add: the suite's order runs first then too, since each fresh
        run starts an interpreter and collects. Fresh mutants probe as well: a mutant
        of code run at collection selects every test, and in the suite's order
        packaging's reached their killer after a median 1,533 of 26,854 tests."""
        # Named killers go first, as declared; a pass then runs as the suite does.
        suite = None if job.plan.fixed else self._as_the_suite_runs(job)
        fresh = job.activation.mode is ExecutionPath.FRESH
        budget = self.info.startup if fresh else 0.0
        probe, selected = probe_plan(job.plan, self.durations, budget)
        whole = not selected
        if suite is not None and whole and (fresh or set(suite.tests) == set(job.plan.tests)):
            job.plan, job.context = suite, True
            return
        job.plan, job.selected = probe, selected

    def _probe_further(self, job: _Job) -> bool:
        """Queue a fork probe's second probe (further_probe); False when there is none."""
        if job.further or job.activation.mode is not ExecutionPath.FORK:
            return False
        probed = set(job.plan.tests)
        rest = tuple(t for t in job.selected if t not in probed)
        ranked = killers_first(
            replace(job.plan, tests=rest, fixed=0),
            self._kills_in(job.plan.mutant),
            self.durations,
            self._killers_on_lines_of(job.plan.mutant),
        ).tests
        tests = further_probe(job.selected, ranked, self.durations)
        if not tests:
            return False
        held = tuple(t for t in job.plan.must_run if t not in tests)
        plan = replace(job.plan, tests=(*tests, *held), fixed=0)
        probe = _Job(
            job.index,
            plan,
            job.activation,
            started=job.started,
            selected=job.selected,
            further=True,
        )
        self.pending.appendleft(probe)
        return True

    def _as_the_suite_runs(self, job: _Job) -> RunPlan | None:
        """The job's selected tests' whole modules, in baseline order; None when that is
        what the job runs."""
        chosen = set(job.selected or job.plan.tests)
        modules = {n.split("::")[0] for n in chosen}
        tests = tuple(s.nodeid for s in job.plan.selection if s.nodeid.split("::")[0] in modules)
        if tests == job.plan.tests:
            return None
        added = [n for n in tests if n not in chosen]
        extra = self.options.timeout_factor * sum(self.durations.get(n, 0.0) for n in added)
        return replace(job.plan, tests=tests, timeout=job.plan.timeout + extra, fixed=0)

    def _in_context(self, job: _Job) -> bool:
        """Run the mutant again with its selected tests' modules, in baseline order.

        A selected test may need an earlier test of its module (a flag it sets, a
        fixture's state): alone it fails without the mutant too, or never reaches the
        mutated branch, where the whole suite in its own order catches the mutant.
        And the tests ran fastest first, not in the suite's order: a test that sets
        state another reads (a locale, a registry) may have run first, so that one
        passed where by hand it fails. A later test of the module may fail by what
        the mutant left behind though it never runs the mutated code (six: a
        mutated import hook stores None in `sys.modules`, and a later test's import
        of that module fails), so the modules run whole. False when that is
        what ran, in that order, or this was that run already.
        """
        if job.context or job.control is not None:
            return False
        plan = self._as_the_suite_runs(job)
        if plan is None:
            return False
        rerun = _Job(
            job.index,
            plan,
            job.activation,
            started=job.started,
            context=True,
            on_disk=job.on_disk,
            earlier=job.earlier,
            again=True,
        )
        self.pending.appendleft(rerun)
        return True

    def _again_on_disk(self, job: _Job, outcome: ChildOutcome) -> None:
        """Run the mutant again, fresh, with its files written into the private copy.

        Its tests passed, but some read a mutated file from disk (or ran it as a
        script), where the original was: by hand they would read the mutant. Those
        run again (all of them when collection read it); the others' passes stand,
        the mutant served to them is the file's text. Queued last, since it runs
        alone (lab/execute/ondisk.py)."""
        wanted = set(outcome.from_disk)
        tests = tuple(t for t in job.plan.tests if t in wanted)
        if "" in wanted or not tests:
            tests = job.plan.tests
        must_run = tuple(t for t in job.plan.must_run if t in tests)
        plan = replace(job.plan, tests=tests, must_run=must_run, fixed=0)
        why = (
            "run again with the mutant written into the private copy: a test read a mutated "
            "file, or ran it as a script, from disk"
        )
        activation = Activation(ExecutionPath.FRESH, why)
        again = _Job(
            job.index, plan, activation, started=job.started, on_disk=True, earlier=outcome
        )
        self.pending.append(again)

    def _on_disk_from_start(self, job: _Job, why: str) -> None:
        """A mutant neither a code swap nor a served module can put in place as by hand
        (`why`): queued to run alone with its files written into the private copy, in a
        fresh run (a new interpreter for files the zygote imported)."""
        job.activation = Activation(ExecutionPath.FRESH, why)
        job.on_disk = True
        self.pending.append(job)

    def _kills_in(self, mutant: Mutant) -> Counter[str]:
        found: Counter[str] = Counter()
        for change in mutant.changes:
            found.update(self.kills.get(change.path, {}))
        return found

    def _killers_on_lines_of(self, mutant: Mutant) -> set[str]:
        found: set[str] = set()
        for change in mutant.changes:
            for line in change.changed_lines():
                found |= self.line_kills.get((change.path, line), set())
        return found

    def _conclude(
        self, job: _Job, outcome: ChildOutcome, child_log: str, status: Status, reason: str
    ) -> None:
        mutant = job.plan.mutant
        if job.again:
            reason += (
                " (run again as the suite runs them: the selected tests' whole modules, in "
                "baseline order)"
            )
        if status is Status.CAUGHT:
            killers = [t.nodeid for t in failing_tests(outcome)]
            for change in mutant.changes:
                self.kills.setdefault(change.path, Counter()).update(killers)
                for line in change.changed_lines():
                    self.line_kills.setdefault((change.path, line), set()).update(killers)
        result = MutantResult(
            mutant,
            status,
            reason,
            tests=tests_run(outcome),
            selection=job.plan.selection,
            path=job.activation.mode,
            duration=time.perf_counter() - job.started,
            outcome=outcome,
            path_reason=job.activation.why,
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
        self._emit(functools.partial(self.events.mutant_finished, result, log))

    def kill_fresh(self) -> None:
        for job in self.running.values():
            if job.fresh is not None:
                job.fresh.kill()
        if self._checkpoints is not None:
            self._checkpoints.stop()

    def unfinished(self) -> list[Mutant]:
        jobs = [job for job in (*self.running.values(), *self.pending) if job.control is None]
        jobs += [job for waiting in self.awaiting.values() for job, _, _ in waiting]
        return [job.plan.mutant for job in jobs]


def probe_plan(
    plan: RunPlan, durations: Mapping[str, float] | None = None, budget: float = 0.0
) -> tuple[RunPlan, tuple[str, ...]]:
    """The plan's first few tests, and the whole selection they stand for (or the plan).

    A pass decides nothing until the selection ran as the suite runs it (its whole
    modules, in baseline order: _in_context), and most kills come from
    the first test or two of the likeliest-killers-first order (bench/README.md).
    So the first run is those few: a kill ends it (its control run confirms it), a
    pass leads to the run in the suite's order, the only run of the whole selection.
    The timeout stays the whole selection's. Named killers all run in the probe.

    A fresh probe may run longer: its tests' baseline seconds up to `budget` (what a
    second run costs to start), since a probe that misses costs a whole second run.
    """
    size = max(PROBE_TESTS, plan.fixed, _within(plan.tests, durations or {}, budget))
    if len(plan.tests) <= size:
        return plan, ()
    head = plan.tests[:size]
    held = tuple(t for t in plan.must_run if t not in head)
    return replace(plan, tests=(*head, *held)), plan.tests


def further_probe(
    selected: Sequence[str], rest: Sequence[str], durations: Mapping[str, float]
) -> tuple[str, ...]:
    """The second probe of a fork mutant whose first killed nothing: the next likeliest
    killers (`rest`, in that order) whose baseline seconds fit in FURTHER_SHARE of the
    whole selection's. Empty for a selection under FURTHER_MIN_SELECTION tests, and when
    that would be fewer than a first probe's tests (too small to be worth a run) or all
    of the rest (the suite's order runs them anyway)."""
    if len(selected) < FURTHER_MIN_SELECTION:
        return ()
    budget = FURTHER_SHARE * sum(durations.get(t, 0.0) for t in selected)
    count = _within(rest, durations, budget)
    if count < PROBE_TESTS or count >= len(rest):
        return ()
    return tuple(rest[:count])


def _within(tests: Sequence[str], durations: Mapping[str, float], budget: float) -> int:
    """How many of the first tests together took at most `budget` seconds in the baseline."""
    if budget <= 0:
        return 0
    spent = 0.0
    for count, nodeid in enumerate(tests):
        spent += durations.get(nodeid, 0.0)
        if spent > budget:
            return count
    return len(tests)


def _with_earlier_evidence(
    outcome: ChildOutcome, earlier: ChildOutcome, readers: Sequence[str]
) -> ChildOutcome:
    """The run on disk, with what the run in memory showed of the mutant: its tests that
    read nothing from disk ran the same program, so their evidence counts. A test that
    read the file in the baseline (`readers`) and ran on disk had the mutant there, in
    the file it reads, as by hand: its run is evidence too, even when no hook saw it
    read (mypy 2 reads in native code)."""
    read_on_disk = any(test.nodeid in readers for test in outcome.tests)
    return replace(
        outcome,
        evidence=outcome.evidence or earlier.evidence or read_on_disk,
        reached=outcome.reached or earlier.reached,
    )


def _with_linecache_evidence(outcome: ChildOutcome, readers: Sequence[str]) -> ChildOutcome:
    """A test that read a mutated file only through linecache in the baseline (a traceback's
    lines, `inspect.getsource`) read it in this run from linecache, which holds the
    mutated text (or from the file, which holds it on disk): it had the mutant, as by
    hand, so its run is evidence, as a reader's on disk is (_with_earlier_evidence); and
    it saw the changed statement, so a pass is a survivor, not `no-coverage`."""
    if not readers or not any(test.nodeid in readers for test in outcome.tests):
        return outcome
    return replace(outcome, evidence=True, reached=True)


def _all_passed(outcome: ChildOutcome) -> bool:
    """The run ended as planned and no test failed: nothing decided yet."""
    return not (outcome.error or interrupted(outcome) or failing_tests(outcome))


def _encodable(mutant: Mutant) -> bool:
    """Whether every mutated file can be written in the encoding it declares."""
    try:
        for change in mutant.changes:
            encode_source(change.mutated)
    except UnicodeEncodeError:
        return False
    return True


def _unreached(status: Status, outcome: ChildOutcome, activation: Activation) -> bool:
    """A pass whose function ran but whose changed statement never did (markers say so)."""
    marked = activation.mode is ExecutionPath.FORK and any(f.reach for f in activation.files)
    return status in (Status.SURVIVED, Status.KNOWN_GAP) and marked and not outcome.reached


def _inconclusive_alone(status: Status, outcome: ChildOutcome) -> bool:
    """A run that never showed the mutant ran: the selection alone may not be how the
    whole suite reaches it (an error the child itself reported is final)."""
    return status is Status.ERROR and not (outcome.error or outcome.crash or outcome.evidence)


def unviable(mutant: Mutant, reason: str) -> MutantResult:
    return MutantResult(mutant, Status.ERROR, reason)


EQUIVALENT = (
    "equivalent: compiles to exactly the original's code (the compiler folds the change "
    "away), so the tests would run the baseline's program, which passed; not run"
)


def equivalent(mutant: Mutant, selection: tuple[Selection, ...]) -> MutantResult:
    """Not run: the program the covering tests would run is the baseline's, which passed.
    (Run anyway, no line of it could show the mutant ran: the verdict was `error`.)"""
    return MutantResult(mutant, Status.SURVIVED, EQUIVALENT, selection=selection)


def _timing_line(dispatched: float, timing: dict[str, float]) -> str:
    """Milliseconds between the steps of one forked mutant (all perf_counter, one clock)."""
    steps = ["fork", "child", "ready", "tested", "got", "sent"]
    marks = [("dispatched", dispatched)] + [(s, timing[s]) for s in steps if s in timing]
    marks.append(("handled", time.perf_counter()))
    parts = [f"{b[0]} +{1000 * (b[1] - a[1]):.1f}" for a, b in itertools.pairwise(marks)]
    return "timing ms: " + ", ".join(parts)
