"""What a child forked by the host runs: the baseline, a further baseline run, a mutant.

The host (child/host.py) forks and reaps; each job body here runs in the forked child,
in the working folder and basetemp of its slot, and sends what it found to the host
over its pipe (`out`): `TestStarted` before each test, `TestFinished` after each test of
a mutant run, and one `ChildReport` at the end.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from guardcheck import messages
from guardcheck.child import workdirs
from guardcheck.child.codeswap import SwapEvidence
from guardcheck.child.copywrites import CopyWrites
from guardcheck.child.diskreads import DiskReads
from guardcheck.child.follow import Follower, StartWatch
from guardcheck.child.followcov import QUIET, dump_coverage_at_exit, measuring
from guardcheck.child.hypothesis_constants import see_mutated_constants
from guardcheck.child.hypothesis_phases import stop_at_first_failure
from guardcheck.child.itemrun import Recorder, SlotCapture, every_item, run_items, use_capture
from guardcheck.child.origins import foreign_modules
from guardcheck.child.pluginstate import (
    mypy_items,
    private_plugin_state,
    shared_readers,
    type_checked,
)
from guardcheck.child.procs import limit_address_space
from guardcheck.child.sourcereads import SourceReads
from guardcheck.model import TestOutcome, TestResult

MAX_LOG = 64_000  # characters of a child's log (and of a traceback) sent to the lab

# A job's body, as the host forks it: (the child's end of its pipe, its slot).
JobMain = Callable[[int, workdirs.Slot], None]


@dataclass
class Jobs:
    """The host's collected session and what every job shares; a child runs one job."""

    session: pytest.Session
    items: dict[str, list[pytest.Item]]  # by node id, in collection order (items_by_nodeid)
    recorder: Recorder
    captures: dict[Path, SlotCapture | None]  # per sandbox slot (filled by the host)
    settings: messages.HostConfig
    boot: Path  # the followed processes' sitecustomize

    def baseline(self, out: int, slot: workdirs.Slot, items: list[pytest.Item]) -> None:
        """Run 1, or one part of it: `items` under coverage, one context per test."""
        self._enter_scratch(slot)
        source = self.settings.source
        cov = measuring(source)
        cov.set_option("run:core", "ctrace")  # sys.monitoring has no dynamic contexts
        cov.set_option("run:disable_warnings", QUIET)
        announce = _announcer(out)
        follower = Follower.for_baseline(self._follow_folder(), self.boot, source)
        follower.enter()
        reads = SourceReads(source)
        writes = CopyWrites(self.settings.root)

        def before(item: pytest.Item) -> None:
            announce(item)
            follower.test_starting(item.nodeid)
            reads.current = writes.current = item.nodeid
            cov.switch_context(item.nodeid)

        cov.start()
        # Forked workers carry this tracer on: they write what they saw as they end.
        dump_coverage_at_exit(cov, str(follower.folder), owner=os.getpid(), context=str)
        try:
            results = run_items(self.session, items, self.recorder, bail=False, before=before)
        finally:
            writes.current = ""  # what the session writes after its tests is no test's
            cov.stop()
        index = {nodeid: n for n, nodeid in enumerate(self.items)}
        data = cov.get_data()
        coverage = {}
        for filename in data.measured_files():
            by_line = data.contexts_by_lineno(filename)
            coverage[filename] = {
                str(line): [index[c] for c in contexts if c in index]
                for line, contexts in by_line.items()
            }
        _merge_followed(coverage, follower, index)
        checkers = mypy_items(every_item(self.items))
        groups = shared_readers(checkers)
        elsewhere = _read_elsewhere(follower, type_checked(checkers, coverage))
        report = messages.ChildReport(
            tests=results,
            coverage=coverage,
            log=self._log(),
            unfollowed=follower.unfollowed(),
            spawners=follower.spawners(),
            source_reads=_with_groups(_united(reads.found, elsewhere), groups),
            linecache_reads=_only_through_linecache(reads, elsewhere, groups),
            copy_writes=writes.by_path(),
            copy_opens=writes.opened_by_path(),
            # Modules the tests imported lazily: collection was checked already.
            foreign=foreign_modules(self.settings.origin, self.settings.root, source),
        )
        messages.send(out, report)

    def rerun(self, out: int, slot: workdirs.Slot) -> None:
        """A further baseline run: every test again, without coverage, to expose flaky ones."""
        self._enter_scratch(slot)
        _stop_tracing()
        items = every_item(self.items)
        results = run_items(self.session, items, self.recorder, bail=False, before=_announcer(out))
        messages.send(out, messages.ChildReport(tests=results, log=self._log()))

    def mutant(
        self,
        message: messages.RunMutant,
        seen: set[str],
        notes: list[str],
        reexecuted: list[str],
        spawners: frozenset[str],
    ) -> JobMain:
        """The mutant's job, forked while the host has it activated. `seen`: the evidence
        markers that fired; `reexecuted`: mutated files a test executed again from the
        served text (runpy, reload). Their code carries no markers, so that only counts as
        evidence for a failing test, whose kill the control run then confirms without the
        mutant. `spawners`: the tests that started processes in the baseline."""

        def main(out: int, slot: workdirs.Slot) -> None:
            timing = {"child": time.perf_counter()}
            limit_address_space(self.settings.memory_limit_mb)
            self._enter_scratch(slot)
            _stop_tracing()
            items = [item for n in message.tests for item in self.items.get(n, ())]
            stop_at_first_failure(items)  # a kill needs a failure, not the minimal example
            see_mutated_constants({os.path.realpath(f.filename): f.mutated for f in message.files})
            reads = DiskReads(f.filename for f in message.files)
            follower = self._mutant_follower(message, spawners)
            timing["ready"] = time.perf_counter()
            bail = not message.matrix
            hold = frozenset(message.hold)  # named killers: each must run, and fail
            announce = _announcer(out)
            evidence = SwapEvidence(seen, reexecuted)

            def before(item: pytest.Item) -> None:
                announce(item)
                follower.test_starting(item.nodeid)
                reads.current = item.nodeid

            def after(result: TestResult) -> None:
                # Each result as it comes: a timeout later on must not discard a kill.
                failed = result.outcome in (TestOutcome.FAILED, TestOutcome.ERROR)
                ran = evidence.seen(failed) or follower.has_evidence()
                messages.send(out, messages.TestFinished(result, ran))

            results = run_items(
                self.session,
                items,
                self.recorder,
                bail=bail,
                before=before,
                hold=hold,
                after=after,
            )
            timing["tested"] = time.perf_counter()
            report = messages.ChildReport(
                tests=results,
                evidence=[*evidence.names(), *follower.evidence()],
                log=self._log(notes),
                timing=timing,
                unfollowed={**follower.unfollowed(), **reads.found},
                from_disk=sorted(follower.from_disk() | set(reads.found)),
            )
            messages.send(out, report)

        return main

    def _enter_scratch(self, slot: workdirs.Slot) -> None:
        os.chdir(slot.cwd)
        # Private basetemp: no numbering races between siblings, emptied after the child.
        config = self.session.config
        config._tmp_path_factory._basetemp = slot.tmp  # type: ignore[attr-defined]
        use_capture(config, self.captures.get(slot.tmp))
        private_plugin_state(config, slot.tmp)

    def _log(self, notes: list[str] | None = None) -> str:
        return "\n".join([*(notes or []), *self.recorder.log])[-MAX_LOG:]

    def _follow_folder(self) -> Path:
        return Path(self.settings.scratch) / "follow" / str(os.getpid())

    def _mutant_follower(
        self, message: messages.RunMutant, spawners: frozenset[str]
    ) -> Follower | StartWatch:
        """The tests' subprocesses import the mutated tree; forked workers inherit the swap."""
        if spawners.isdisjoint(message.tests):
            return StartWatch()  # nothing to follow: no spec file to write
        return Follower.for_swapped(self._follow_folder(), self.boot, message.files)


def _merge_followed(
    coverage: dict[str, dict[str, list[int]]], follower: Follower, index: dict[str, int]
) -> None:
    """Lines the tests' subprocesses and workers ran, under the test that started them."""
    for filename, by_line in follower.coverage():
        lines = coverage.setdefault(filename, {})
        for line, nodeids in by_line.items():
            known = {index[n] for n in nodeids if n in index}
            lines[line] = sorted(known.union(lines.get(line, [])))


def _read_elsewhere(follower: Follower, unseen: dict[str, list[str]]) -> dict[str, set[str]]:
    """The source files the tests read outside their own process's hook: in the processes
    they started, and `unseen`, reads no hook sees (a type checker's)."""
    found: dict[str, set[str]] = {}
    for test, path in follower.source_reads():
        if test:
            found.setdefault(path, set()).add(test)
    for path, checkers in unseen.items():
        found.setdefault(os.path.realpath(path), set()).update(checkers)
    return found


def _united(*reads: dict[str, set[str]]) -> dict[str, set[str]]:
    united: dict[str, set[str]] = {}
    for found in reads:
        for path, tests in found.items():
            united.setdefault(path, set()).update(tests)
    return united


def _with_groups(found: dict[str, set[str]], groups: dict[str, list[str]]) -> dict[str, list[str]]:
    """A read by one test of a group that shares what it read (`groups`) is all of theirs'."""
    for tests in found.values():
        tests.update(*(groups.get(test, ()) for test in list(tests)))
    return {path: sorted(tests) for path, tests in sorted(found.items())}


def _only_through_linecache(
    reads: SourceReads, elsewhere: dict[str, set[str]], groups: dict[str, list[str]]
) -> dict[str, list[str]]:
    """The tests whose every read of a file went through linecache in their own process:
    not one that also read it in a process it started or as a type checker (`elsewhere`),
    nor one of a group that shares what it read (`groups`)."""
    only: dict[str, list[str]] = {}
    for path, tests in reads.through_linecache().items():
        kept = [t for t in tests if t not in elsewhere.get(path, ()) and t not in groups]
        if kept:
            only[path] = kept
    return only


def _announcer(out: int) -> Callable[[pytest.Item], None]:
    """A `before` callback telling the host which test a child starts (named on a crash)."""

    def before(item: pytest.Item) -> None:
        messages.send(out, messages.TestStarted(item.nodeid))

    return before


def _stop_tracing() -> None:
    if sys.gettrace() is not None:  # e.g. pytest-cov's tracer: pure slowdown in a child
        sys.settrace(None)
        threading.settrace(None)
