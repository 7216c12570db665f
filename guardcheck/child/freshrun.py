"""pytest plugin for the fresh-interpreter path (`-p guardcheck.child.freshrun`).

For mutations a code swap cannot express (module level, class bodies,
decorators, defaults, imports). pytest imports `-p` plugins before any
conftest.py or test module, so installing the import hook when this module is
imported is early enough for the mutated module to be served from memory on
its first import. The selected tests run in the lab's order, stopping at the
first failure unless in matrix mode; results are appended as JSON lines to
the file the lab named ("start" per test, then one "result").
"""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Protocol

import pytest

from guardcheck import messages
from guardcheck.child.bootstrap import write_bootstrap
from guardcheck.child.bytecode import keep_bytecode
from guardcheck.child.diskreads import DiskReads
from guardcheck.child.follow import Follower
from guardcheck.child.followed import append_line
from guardcheck.child.hashseed import restore_user_hash_seed
from guardcheck.child.hypothesis_constants import see_mutated_constants
from guardcheck.child.hypothesis_phases import stop_at_first_failure
from guardcheck.child.importhook import ServedModules
from guardcheck.child.itemrun import OneLineReports, Recorder, end_session, items_by_nodeid
from guardcheck.child.preloaded import ImportsOf, imported_from, not_served_reason
from guardcheck.child.syspath import drop_repeated_entries
from guardcheck.model import TestOutcome, function_id


def _load() -> messages.FreshSpec | None:
    path = os.environ.get(messages.FRESH_ENV)
    if not path:
        return None
    return messages.fresh_spec(json.loads(Path(path).read_text(encoding="utf-8")))


def _follow(spec: messages.FreshSpec, served: ServedModules) -> Follower:
    """The tests' subprocesses are served the mutated text too; forked workers report to a file."""
    folder = Path(spec.results).parent
    texts = {os.path.realpath(f.filename): f.mutated for f in spec.files}
    follower = Follower.for_mutant(
        folder / "follow", write_bootstrap(folder / "boot"), texts=texts, on_disk=spec.on_disk
    )
    follower.enter()

    def report_to_file() -> None:
        served.on_exec = lambda real: append_line(follower.evidence_file, f"served {real}")

    os.register_at_fork(after_in_child=report_to_file)
    return follower


keep_bytecode()
restore_user_hash_seed()
drop_repeated_entries()
_spec: messages.FreshSpec | None = None
_served: ServedModules | None = None
_follower: Follower | None = None
_reads: DiskReads | None = None
_preloaded: list[str] = []  # mutated files imported before the import hook (preloaded.py)
_started_at = ""  # where the run began, for its log when not at pytest's start
_texts: dict[str, str] = {}  # real path -> the mutated text


def begin(
    doubts: Mapping[str, str] | None = None, first_finder: object | None = None, at: str = ""
) -> bool:
    """What a run does as this plugin loads, before any conftest.py or test module is
    imported: serve the mutated text on its first import, follow the tests' processes,
    watch reads of the mutated files. False when this process is no fresh run.

    Called as this module is imported (`-p guardcheck.child.freshrun`), or by a run
    forked at a checkpoint that paused before the conftest files (child/checkpoint.py),
    which imported this module before its spec was set; `doubts` are reads of the
    mutated files the checkpoint saw before the pause, and the import hook goes just
    before `first_finder`, the import system's first finder when this module loaded;
    `at` says in the run's log where it began.
    """
    global _spec, _served, _follower, _reads, _preloaded, _texts, _started_at
    _spec = _load()
    if _spec is None:
        return False
    _texts = {os.path.realpath(f.filename): f.mutated for f in _spec.files}
    _preloaded = imported_from(_texts)
    # On disk, the files hold the mutant: imported as usual (by pytest's assertion rewriting
    # too, for a plugin), not served.
    _served = ServedModules({} if _spec.on_disk else dict(_texts))
    _served.install(before=first_finder)
    _follower = _follow(_spec, _served)
    # Collection's reads included; a run with the mutant on disk reads the mutant.
    _reads = DiskReads(f.filename for f in _spec.files if not _spec.on_disk)
    _reads.found.update(doubts or {})
    _started_at = at
    return True


begin()


STOP = "guardcheck: first failure"  # session.shouldstop once the run has its kill


class Evidence(Protocol):
    """Whether the mutant's code ran, as a run tells it."""

    def seen(self, failed: bool) -> bool:
        """Did it run by now? `failed`: the test that just ended failed."""
        ...

    def names(self) -> list[str]:
        """What ran, for the report."""
        ...


class ServedEvidence:
    """A fresh interpreter: the served module's code ran (its change is module-level), or,
    with the mutant on disk, the module was imported from its file."""

    def __init__(self, served: ServedModules, on_disk: ImportsOf) -> None:
        self.served = served
        self.on_disk = on_disk

    def seen(self, failed: bool) -> bool:
        return bool(self.served.executed or self.on_disk.seen())

    def names(self) -> list[str]:
        imported = [f"imported from the mutant on disk: {p}" for p in self.on_disk.seen()]
        return [*self.served.executed, *imported]


class FreshRun:
    def __init__(
        self,
        spec: messages.FreshSpec,
        evidence: Evidence,
        follower: Follower,
        reads: DiskReads | None,
        unserved: Sequence[str] = (),
    ) -> None:
        self.spec = spec
        self.unserved = list(unserved)  # mutated files that hold the original here
        self.internal_error: str | None = None  # pytest's own machinery raised
        self.evidence = evidence
        self.follower = follower
        self.reads = reads
        self.recorder = Recorder(on_failure=self._on_failure)
        self.session: pytest.Session | None = None
        self.collect_errors: list[str] = []
        self.missing: list[str] = []
        self.stand_ins: list[str] = []  # run for a selected id the mutant renamed
        self.waiting = set(spec.hold)
        self.unrun: Counter[str] = Counter()  # items still to run, by node id
        self.sent: set[str] = set()  # node ids whose TestFinished went out
        self.failed = False
        self.out = os.open(spec.results, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)

    def _on_failure(self, nodeid: str) -> None:
        self.failed = True
        self._maybe_stop()

    def _maybe_stop(self) -> None:
        # Not before every named killer ran: each of them must fail (see RunMutant.hold).
        if self.failed and not self.waiting and not self.spec.matrix and self.session is not None:
            self.session.shouldstop = STOP

    @pytest.hookimpl(tryfirst=True)
    def pytest_keyboard_interrupt(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        # Our stop unwinds as pytest's Interrupted, whose traceback the terminal reporter
        # then formats, source and all, before the session finishes: a third of a fresh
        # run stopped at its first failure, under cProfile. So does pytest's own stop
        # after errors in collection (a mutant that breaks an import), whose errors are
        # recorded already. Either way the report is complete: end.
        if self.session is None:
            return
        collection_failed = self.collect_errors and isinstance(
            excinfo.value, pytest.Session.Interrupted
        )
        if self.session.shouldstop == STOP or collection_failed:
            self.pytest_sessionfinish(self.session)

    def pytest_runtest_logfinish(self, nodeid: str) -> None:
        self.unrun[nodeid] -= 1
        result = self.recorder.result(nodeid)
        failed = result is not None and result.outcome in (TestOutcome.FAILED, TestOutcome.ERROR)
        if nodeid in self.sent or (self.unrun[nodeid] > 0 and not failed):
            return  # one of a node id's items: the test is all of them, reported once
        if result is not None:  # as it comes: a timeout later on must not discard a kill
            self.sent.add(nodeid)
            evidence = self.evidence.seen(failed) or self.follower.has_evidence()
            messages.send(self.out, messages.TestFinished(result, evidence))
        self.waiting.discard(nodeid)
        self._maybe_stop()

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self.session = session

    def pytest_internalerror(self, excinfo: pytest.ExceptionInfo[BaseException]) -> None:
        # A mutant of code pytest itself runs (pluggy, a plugin's hook): by hand the
        # session ends with INTERNALERROR, exit status 3, and CI goes red.
        if self.internal_error is None:
            first = str(excinfo.value).strip().splitlines()
            self.internal_error = f"{excinfo.typename}: {first[0] if first else ''}".rstrip(": ")

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            lines = report.longreprtext.strip().splitlines()
            self.collect_errors.append(f"{report.nodeid}: {lines[-1] if lines else 'error'}")
            # By hand the suite is red from here on, whatever the files after it hold:
            # collecting them decides nothing (jinja2: a broken import_string, ~0.3 s of
            # later files). Not in a kill matrix, nor before every named killer ran.
            self._on_failure(report.nodeid)

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(
        self, session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
    ) -> None:
        by_id = {item.nodeid: item for item in items}
        wanted = self.spec.tests
        keep, self.missing, self.stand_ins = stand_in_for_missing(wanted, items)
        self.waiting &= set(by_id)
        kept = set(keep)
        dropped = [item for item in items if item not in kept]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
        items[:] = keep
        self.unrun = Counter(item.nodeid for item in keep)
        stop_at_first_failure(keep)  # a kill needs a failure, not the minimal example

    def pytest_runtest_logstart(self, nodeid: str) -> None:
        self.follower.test_starting(nodeid)
        if self.reads is not None:
            self.reads.current = nodeid
        messages.send(self.out, messages.TestStarted(nodeid))

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        reads = self.reads
        log = list(self.recorder.log)
        if self.missing:
            log.append("not collected in the mutated session: " + ", ".join(self.missing))
        if self.stand_ins:
            log.append("collected under ids the baseline lacks: " + ", ".join(self.stand_ins))
        unfollowed = {**self.follower.unfollowed(), **(reads.found if reads else {})}
        from_disk = self.follower.from_disk() | set(reads.found if reads else {})
        if self.unserved:  # the whole run, collection included: "" stands for no test
            unfollowed[""] = not_served_reason(self.unserved)
            from_disk.add("")
        report = messages.ChildReport(
            tests=self.recorder.results(),
            evidence=[*self.evidence.names(), *self.follower.evidence()],
            collect_errors=self.collect_errors,
            log="\n".join(log),
            unfollowed=unfollowed,
            from_disk=sorted(from_disk),
            preloaded=self.unserved,
            crash=f"pytest INTERNALERROR: {self.internal_error}" if self.internal_error else None,
        )
        messages.send(self.out, report)
        _leave(session)


def stand_in_for_missing(
    wanted: list[str], items: list[pytest.Item]
) -> tuple[list[pytest.Item], list[str], list[str]]:
    """The items to run for `wanted`, the wanted ids with no item, and the stand-ins.

    A mutant of a value a `parametrize` id is made from renames the test
    (`test_x[low]` becomes `test_x[XXlowXX]`): by hand that test runs under its new
    id, so it runs here too, in place of the selected id the session lacks.
    """
    by_id = items_by_nodeid(items)  # all of a node id's items run, as `pytest NODEID` does
    chosen = set(wanted)
    # Once, not per missing id: a mutant that breaks a file's collection misses them all.
    unchosen: dict[str, list[pytest.Item]] = {}
    for item in items:
        if item.nodeid not in chosen:
            unchosen.setdefault(function_id(item.nodeid), []).append(item)
    keep: list[pytest.Item] = []
    taken: set[str] = set()
    missing: list[str] = []
    for nodeid in wanted:
        if nodeid in by_id:
            keep.extend(by_id[nodeid])
            taken.add(nodeid)
            continue
        others = unchosen.get(function_id(nodeid), [])
        if not others:
            missing.append(nodeid)
        for item in others:
            if item.nodeid not in taken:
                keep.append(item)
                taken.add(item.nodeid)
    return keep, missing, sorted(taken - chosen)


def _leave(session: pytest.Session) -> None:
    """The lab has every result: end the run here, as a forked child ends.

    The lab waits for this process to exit, and what pytest would still do decides
    nothing: other plugins' summaries (Hypothesis' imports Hypothesis to print its
    statistics, even when no test used it), pytest's search for unraisable exceptions
    (repeated gc passes), the interpreter's teardown; together most of a fresh run of a
    few tests. Session-scoped fixtures are still torn down, as a forked child does.
    """
    error = end_session(session)
    if error:  # after the report: the verdict stands, the run's log says what happened
        print(f"guardcheck: {error}")
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(1 if session.testsfailed else 0)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems() -> None:
    """Before Hypothesis' plugin reads the project's constants from disk (its own
    pytest_collection_modifyitems), or it reads the original and the read sends the
    mutant to a second run with its file on disk."""
    if _spec is not None:
        see_mutated_constants({os.path.realpath(f.filename): f.mutated for f in _spec.files})


def pytest_configure(config: pytest.Config) -> None:
    if _spec is None or _served is None or _follower is None:
        return
    # Imported before the hook: from the mutant only in a new interpreter with it on disk;
    # forked from the zygote, from the original it imported.
    unserved = [] if _spec.on_disk and _spec.new_interpreter else _preloaded
    on_disk = [p for p in _texts if p not in unserved] if _spec.on_disk else []
    evidence = ServedEvidence(_served, ImportsOf(on_disk))
    run = FreshRun(_spec, evidence, _follower, _reads, unserved)
    if _started_at:
        run.recorder.log.append(_started_at)
    register(config, run)


def register(config: pytest.Config, run: FreshRun) -> None:
    config.pluginmanager.register(OneLineReports(), "guardcheck-one-line-reports")
    config.pluginmanager.register(run.recorder, "guardcheck-recorder")
    config.pluginmanager.register(run, "guardcheck-freshrun")
