"""The baseline: the unmutated suite's results and coverage, or why the run cannot go on.

Pure functions over what the host reported: per-test times (the slowest of
every run), the coverage map that planning reads, and BaselineFailed (exit 3)
for a crashed, red or flaky baseline.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

from guardcheck import messages
from guardcheck.errors import GuardcheckError
from guardcheck.exitcodes import ExitCode
from guardcheck.lab.execute.processes import outcome_of
from guardcheck.lab.execute.written import WrittenFiles
from guardcheck.lab.plan import CoverageMap
from guardcheck.lab.sandbox.importroots import foreign_message
from guardcheck.model import (
    BaselineTest,
    ChildOutcome,
    TestOutcome,
    TestResult,
    read_reason,
)

_RED = (TestOutcome.FAILED, TestOutcome.ERROR)


class BaselineFailed(GuardcheckError):
    def __init__(self, message: str) -> None:
        super().__init__(message, ExitCode.BASELINE_FAILED)


def relative(filename: str, root: Path) -> str:
    """A measured file as the coverage map keys it: posix, relative to the root when inside."""
    real = Path(os.path.realpath(filename))
    try:
        return real.relative_to(os.path.realpath(root)).as_posix()
    except ValueError:
        return real.as_posix()


def judge_baseline(
    runs: Sequence[messages.ChildEnded], paths: dict[str, str], root: Path
) -> tuple[list[BaselineTest], CoverageMap]:
    """Every baseline run's results in, the tests and coverage out; raises BaselineFailed."""
    for number, ended in enumerate(runs, start=1):
        _check_crash(ended, number, len(runs))
        if ended.report is not None and ended.report.foreign:
            raise BaselineFailed(foreign_message(ended.report.foreign))
    outcomes = [outcome_of(ended) for ended in runs]
    _check_red_or_flaky(outcomes)
    tests = [t.nodeid for t in outcomes[0].tests]
    if not tests:
        raise BaselineFailed(
            "no tests ran in the baseline: pytest collected nothing from the configured "
            "test paths\n  fix: check [tool.guardcheck] tests and your pytest testpaths"
        )
    # The slowest run's time per test: a timeout budget that covers every run seen.
    durations = {t.nodeid: t.duration for t in outcomes[0].tests}
    for outcome in outcomes[1:]:
        for t in outcome.tests:
            durations[t.nodeid] = max(durations.get(t.nodeid, 0.0), t.duration)
    outcomes_of = {t.nodeid: t.outcome for t in outcomes[0].tests}
    baseline = [
        BaselineTest(n, durations[n], relative(paths[n], root), outcomes_of[n]) for n in tests
    ]
    report = runs[0].report
    coverage = report.coverage if report is not None and report.coverage else {}
    return baseline, coverage_map(coverage, tests, root)


def unmeasured_warning(
    coverage: CoverageMap, unfollowed: Mapping[str, str], source: Sequence[str], root: Path
) -> str | None:
    """What to tell the user when the tests ran but coverage recorded no line of the source.

    Then every mutant inside a function is `no-coverage`, which is what a wrong
    `source` looks like (a file coverage.py could not measure, a folder the tests
    do not import from). Said, not fatal: a suite may really call no function.
    """
    if unfollowed or any(lines for lines in coverage.values()):
        return None
    shown = ", ".join(relative(s, root) for s in source)
    return (
        f"warning: the baseline's tests ran, but coverage.py recorded no line of the source "
        f"({shown}), so every mutant inside a function will be no-coverage\n"
        "  fix: point [tool.guardcheck] source at the package folders or .py files your "
        "tests import"
    )


def _check_crash(ended: messages.ChildEnded, run: int, runs: int) -> None:
    outcome = outcome_of(ended)
    which = f"run {run} of {runs}" if runs > 1 else "run"
    if outcome.timed_out is not None and not outcome.crash:
        test = f": {ended.current} hangs" if ended.current else ""
        raise BaselineFailed(
            f"the baseline {which} did not finish within {outcome.timed_out:.0f} s{test}\n"
            "  fix: make that test finish, or raise [tool.guardcheck] baseline_timeout "
            "(--baseline-timeout)"
        )
    if outcome.crash:
        where = f" during {ended.current}" if ended.current else ""
        what = outcome.crash or f"timeout after {outcome.timed_out:.0f}s"
        raise BaselineFailed(f"the baseline {which} crashed ({what}){where}")


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


def coverage_map(
    measured: dict[str, dict[str, list[int]]], tests: list[str], root: Path
) -> CoverageMap:
    """Real path -> line -> test indices, as root-relative path -> line -> node ids."""
    coverage: dict[str, dict[int, frozenset[str]]] = {}
    for filename, by_line in measured.items():
        lines = coverage.setdefault(relative(filename, root), {})
        for line, indices in by_line.items():
            nodeids = {tests[i] for i in indices if i < len(tests)}
            lines[int(line)] = lines.get(int(line), frozenset()) | nodeids
    return coverage


def source_readers(runs: Sequence[messages.ChildEnded], root: Path) -> dict[str, dict[str, str]]:
    """Root-relative source file -> tests that read it as a file -> why (selection reasons).

    By hand such a test reads the mutant's text (child/sourcereads.py), so it is
    selected for every mutant of that file, whatever lines it ran.
    """
    report = runs[0].report if runs else None
    if report is None:
        return {}
    readers: dict[str, dict[str, str]] = {}
    for filename, tests in report.source_reads.items():
        path = relative(filename, root)
        readers[path] = dict.fromkeys(tests, read_reason(path))
    return readers


def linecache_readers(runs: Sequence[messages.ChildEnded], root: Path) -> dict[str, set[str]]:
    """Root-relative source file -> those of its readers that read it only through linecache
    (a traceback's lines, `inspect.getsource`): selected all the same, but their run in
    memory reads the mutated text, so a pass needs no run with the file on disk."""
    report = runs[0].report if runs else None
    if report is None:
        return {}
    return {relative(f, root): set(tests) for f, tests in report.linecache_reads.items()}


def copy_writers(runs: Sequence[messages.ChildEnded]) -> WrittenFiles:
    """The files of the private copy the baseline's tests wrote, created or removed
    (child/copywrites.py): which tests did, and which tests opened them at all."""
    report = runs[0].report if runs else None
    if report is None:
        return WrittenFiles()
    opened = {path: report.copy_opens.get(path, []) for path in report.copy_writes}
    return WrittenFiles(dict(report.copy_writes), opened)


def unfollowed_tests(runs: Sequence[messages.ChildEnded]) -> dict[str, str]:
    """Tests that started a process guardcheck could not follow -> why, as selection reasons.

    Such a process may run any of the project's code unmeasured, and a mutant
    unmutated, so these tests are selected for every mutant, and a run of them
    that passes proves nothing (processes.outcome_of).
    """
    report = runs[0].report if runs else None
    if report is None:
        return {}
    return {
        test: f"started a process guardcheck cannot follow ({why}): it may run any code"
        for test, why in report.unfollowed.items()
        if test
    }
