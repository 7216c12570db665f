"""Run collected pytest items in a child process and record per-test outcomes, cheaply.

Items go through `item.ihook.pytest_runtest_protocol`, so fixtures, markers,
warnings capture, assertion rewriting and plugins such as pytest-timeout
behave as in a normal run. Failure reports carry one line (the crash
location and the exception's first line) instead of pytest's full report:
building the full report costs most of a child's CPU (runner-notes).
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from tempfile import TemporaryFile
from typing import IO, Any

import pytest
from _pytest._code.code import TracebackEntry
from _pytest.capture import CaptureManager, FDCapture, MultiCapture
from _pytest.outcomes import Exit, skip
from _pytest.pathlib import bestrelpath
from _pytest.reports import TestReport
from _pytest.runner import CallInfo
from _pytest.unittest import pytest_runtest_makereport as unittest_makereport

from guardcheck.child.procs import unlink_own_semaphores
from guardcheck.model import TestOutcome, TestResult

_PHASE_ERROR = ("setup", "teardown")
_MAX_SECTION = 4000  # characters of captured output kept per section in the log


def one_line(excinfo: pytest.ExceptionInfo[BaseException], root: Path) -> str:
    """`path:line: ExceptionType: first line of the message` of the innermost frame.

    Frames with `__tracebackhide__` (pytest.fail, plugins' signal handlers such as
    pytest-timeout's) and unittest's assertion helpers are skipped, as pytest's own
    crash line does: the location is where the test was, not where the failure was
    raised on its behalf.
    """
    text = excinfo.exconly(tryshort=True).strip()
    first = text.splitlines()[0] if text else excinfo.typename
    if isinstance(excinfo.value, BaseExceptionGroup):
        # "multiple unraisable exception warnings (3 sub-exceptions)" hides the cause.
        first += ": " + "; ".join(_leaf_lines(excinfo.value))
    entries = list(reversed(excinfo.traceback))
    entry = next((e for e in entries if _shown(e, excinfo)), entries[0] if entries else None)
    if entry is None:
        return first
    try:
        return f"{bestrelpath(root, Path(entry.path))}:{entry.lineno + 1}: {first}"
    except ValueError:
        return first


def _leaf_lines(group: BaseExceptionGroup[BaseException]) -> list[str]:
    """`Type: first line` of each exception a group holds, nested groups flattened."""
    lines = []
    for inner in group.exceptions:
        if isinstance(inner, BaseExceptionGroup):
            lines += _leaf_lines(inner)
            continue
        message = str(inner).strip().splitlines()
        lines.append(f"{type(inner).__name__}: {message[0]}" if message else type(inner).__name__)
    return lines


def _holds_skip(error: BaseException) -> bool:
    if not isinstance(error, BaseExceptionGroup):
        return False
    return any(isinstance(e, skip.Exception) or _holds_skip(e) for e in error.exceptions)


def _shown(entry: TracebackEntry, excinfo: pytest.ExceptionInfo[BaseException]) -> bool:
    # unittest's own frames (assertEqual, fail) mark themselves with a `__unittest`
    # global; unittest and pytest both leave them out so the test's line is named.
    return not entry.ishidden(excinfo) and not entry.frame.f_globals.get("__unittest")


class OneLineReports:
    """pytest plugin: failure reports whose longrepr is a single line."""

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: CallInfo[None]) -> Any:
        # pytest's unittest plugin, in its own tryfirst makereport, which runs after this
        # one, moves a unittest failure (which the item keeps, not `call`) into
        # call.excinfo, and turns a `unittest.SkipTest` raised by any test, a plain
        # function's too, into a skip. Do both here, as pytest would (the move pops, and
        # a skip is no SkipTest, so the plugin's later call finds nothing left to do).
        unittest_makereport(item, call)
        excinfo = call.excinfo
        if excinfo is None or call.when == "collect":
            return None
        if isinstance(excinfo.value, skip.Exception) or _holds_skip(excinfo.value):
            return None  # skips keep pytest's own handling (their location matters)
        sections = [(f"Captured {key} {when}", text) for when, key, text in item._report_sections]
        return TestReport(
            item.nodeid,
            item.location,
            dict.fromkeys(item.keywords, 1),
            "failed",
            one_line(excinfo, item.config.rootpath),
            call.when,
            sections,
            call.duration,
            call.start,
            call.stop,
            user_properties=item.user_properties,
        )


def _message(report: pytest.TestReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple):  # skip: (path, line, reason)
        return str(longrepr[2])
    text = str(longrepr) if longrepr is not None else ""
    if not isinstance(longrepr, str) and report.failed:
        crash = getattr(longrepr, "reprcrash", None)
        if crash is not None:
            text = f"{crash.path}:{crash.lineno}: {crash.message}"
    lines = text.strip().splitlines()
    return lines[0] if lines else ""


class Recorder:
    """pytest plugin: folds the setup/call/teardown reports into one TestResult per test."""

    def __init__(self, on_failure: Callable[[str], None] | None = None) -> None:
        self._phases: dict[str, list[pytest.TestReport]] = {}
        self._on_failure = on_failure
        self.log: list[str] = []

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        self._phases.setdefault(report.nodeid, []).append(report)
        if report.failed:
            self.log.append(f"{report.when} failed: {report.nodeid}\n  {_message(report)}")
            for title, text in report.sections:
                self.log.append(f"  ---- {title} ----\n{text[-_MAX_SECTION:]}")
            if self._on_failure is not None:
                self._on_failure(report.nodeid)

    def result(self, nodeid: str) -> TestResult | None:
        reports = self._phases.get(nodeid)
        if not reports:
            return None
        duration = sum(r.duration for r in reports)
        for report in reports:
            if report.failed:
                kind = TestOutcome.ERROR if report.when in _PHASE_ERROR else TestOutcome.FAILED
                return TestResult(nodeid, kind, duration, _message(report))
        if any(r.skipped for r in reports):
            skipped = next(r for r in reports if r.skipped)
            kind = TestOutcome.XFAILED if hasattr(skipped, "wasxfail") else TestOutcome.SKIPPED
            return TestResult(nodeid, kind, duration, _message(skipped))
        return TestResult(nodeid, TestOutcome.PASSED, duration)

    def results(self) -> list[TestResult]:
        return [r for n in self._phases if (r := self.result(n)) is not None]


@dataclass
class SlotCapture:
    """Files that one worker slot's children capture fd 1 and 2 into, opened in the host
    (each child opening its own costs a millisecond). A slot serves one child at a time."""

    out: IO[bytes]
    err: IO[bytes]

    @classmethod
    def new(cls) -> SlotCapture:
        # Open for the life of the process that made them (the host, a checkpoint's run).
        return cls(TemporaryFile(buffering=0), TemporaryFile(buffering=0))


def _session_capture(config: pytest.Config) -> MultiCapture[str] | None:
    """The capture objects of pytest's session, if it captures at all."""
    capman = config.pluginmanager.get_plugin("capturemanager")
    return capman._global_capturing if isinstance(capman, CaptureManager) else None


def new_capture(config: pytest.Config) -> SlotCapture | None:
    """The slot's files, when the session captures at the descriptor level (the default):
    the host's own capture files are inherited across fork, and siblings writing at one
    shared offset would mix their output (runner-notes). In-memory (`--capture=sys`) or
    no capture needs nothing: a forked child's memory is its own."""
    multi = _session_capture(config)
    if multi is None or not any(isinstance(c, FDCapture) for c in (multi.out, multi.err)):
        return None
    return SlotCapture.new()


def use_capture(config: pytest.Config, files: SlotCapture | None) -> None:
    """In the child: the session's own capture objects, emptied of what the host left,
    writing into the slot's files.

    The objects stay the session's: `sys.stdout` during a test is the very object a
    module saw at import (`from sys import stdout` while pytest collected), as in one
    plain pytest run; structlog's loggers compare the two. Only the descriptors under
    them change, each now naming the slot's file.
    """
    multi = _session_capture(config)
    if multi is None:
        return
    if files is not None:
        for capture, file in ((multi.out, files.out), (multi.err, files.err)):
            if not isinstance(capture, FDCapture):
                continue
            os.ftruncate(file.fileno(), 0)
            os.lseek(file.fileno(), 0, os.SEEK_SET)
            # The capture's descriptor names the slot's file from now on; pytest's own
            # descriptors are not inherited by a test's subprocesses, nor is this one.
            os.dup2(file.fileno(), capture.tmpfile.fileno(), inheritable=False)
            if capture._state == "started":  # resume() re-points the target only if not
                os.dup2(capture.tmpfile.fileno(), capture.targetfd)
    multi.readouterr()  # reading also truncates: nothing of the host's reaches a test


def items_by_nodeid(items: Iterable[pytest.Item]) -> dict[str, list[pytest.Item]]:
    """Every item under its node id, ids and items in collection order."""
    grouped: dict[str, list[pytest.Item]] = {}
    for item in items:
        grouped.setdefault(item.nodeid, []).append(item)
    return grouped


def every_item(grouped: Mapping[str, Sequence[pytest.Item]]) -> list[pytest.Item]:
    """The items of items_by_nodeid, in collection order."""
    return [item for items in grouped.values() for item in items]


def run_items(
    session: pytest.Session,
    items: Sequence[pytest.Item],
    recorder: Recorder,
    *,
    bail: bool,
    before: Callable[[pytest.Item], None] | None = None,
    hold: frozenset[str] = frozenset(),
    after: Callable[[TestResult], None] | None = None,
) -> list[TestResult]:
    """Run `items` in order; with `bail`, stop after the first failing test.

    With `hold`, not before every test it names has run (each named killer
    must fail, so none may be skipped by stopping early).
    Fixtures are torn down explicitly at the end: the child leaves by os._exit.
    Items that share a node id make one test, whose result (the Recorder folds their
    reports) comes once the last of them ran.
    """
    results: list[TestResult] = []
    waiting = set(hold) & {item.nodeid for item in items}
    unrun = Counter(item.nodeid for item in items)
    failed = False
    for index, item in enumerate(items):
        if before is not None:
            before(item)
        nextitem = items[index + 1] if index + 1 < len(items) else None
        try:
            item.ihook.pytest_runtest_protocol(item=item, nextitem=nextitem)
        except Exit as exc:  # pytest.exit() inside a test: that test is to blame
            results.append(TestResult(item.nodeid, TestOutcome.ERROR, 0.0, f"pytest.exit: {exc}"))
            break
        unrun[item.nodeid] -= 1
        if unrun[item.nodeid]:
            continue  # more items of this node id to come
        result = recorder.result(item.nodeid)
        if result is None:
            result = TestResult(item.nodeid, TestOutcome.ERROR, 0.0, "no report from pytest")
        results.append(result)
        if after is not None:
            after(result)
        waiting.discard(item.nodeid)
        failed = failed or result.outcome in (TestOutcome.FAILED, TestOutcome.ERROR)
        if bail and failed and not waiting:
            break
    error = end_session(session)
    if error:
        recorder.log.append(error)
    return results


def end_session(session: pytest.Session) -> str | None:
    """What a child does before it leaves by os._exit: tear down every fixture still
    set up, and unlink its spawn pools' named semaphores (the exit it skips would).
    The final teardown's error, if any: after the verdict, it only goes in the log."""
    error = None
    try:
        session._setupstate.teardown_exact(None)
    except BaseException as exc:
        error = f"final teardown raised {type(exc).__name__}: {exc}"
    unlink_own_semaphores()
    return error
