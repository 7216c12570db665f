"""Check 1: the base revision's tests, run against today's source.

A failure is a compatibility the old tests promised and the new code broke.
The same tests also run on the base's own source, so a test that was already
failing there is excluded (and listed) instead of blamed on the change.
"""

from __future__ import annotations

from guardcheck.refactor.findings import CheckResult, Finding, Outcome
from guardcheck.refactor.layout import test_paths
from guardcheck.refactor.pytest_run import SuiteRequest, SuiteRun, run_suites
from guardcheck.refactor.trees import Trees

KEY = "old-tests"
TITLE = "Old tests on new code"
_NO_TESTS = 5  # pytest's exit code when it collected nothing


def _broken(run: SuiteRun, where: str) -> str | None:
    """Why a run says nothing about individual tests (pytest could not start), if so."""
    if run.cases or run.exit_code in (0, _NO_TESTS):
        return None
    return f"pytest exited {run.exit_code} on {where} without test results:\n{run.output_tail}"


def check_old_tests(trees: Trees) -> CheckResult:
    paths = test_paths(trees.then)
    args = trees.then.pytest_args
    # Both at once: today's source with the base tests, and the base as it was.
    now, then = run_suites(
        [
            SuiteRequest(trees.mixed, tuple(paths), args),
            SuiteRequest(trees.then.root, tuple(paths), args),
        ],
        trees.request.pytest_timeout,
    )
    broken = _broken(now, "the base tests with today's source")
    if broken:
        return CheckResult(KEY, TITLE, Outcome.FAILED, broken.splitlines()[0], [Finding(broken)])
    if not now.cases:
        return CheckResult(
            KEY, TITLE, Outcome.SKIPPED, f"the base revision has no tests under {', '.join(paths)}"
        )
    failing_then = set(then.failures)
    notes = []
    if _broken(then, "the base revision"):
        notes.append(
            f"the base tests could not run on the base source (pytest exited "
            f"{then.exit_code}), so no failure could be excluded as pre-existing"
        )
    excluded = sorted(set(now.failures) & failing_then)
    if excluded:
        notes.append(
            f"{len(excluded)} test(s) fail at {trees.label} too, so they are not "
            f"blamed on the change: {', '.join(excluded)}"
        )
    blamed = [case for nodeid, case in sorted(now.failures.items()) if nodeid not in failing_then]
    findings = [
        Finding(
            f"{case.nodeid} passes at {trees.base.label} and fails on today's source: "
            f"{case.message or 'failed'}",
            path=case.file,
            line=case.line,
        )
        for case in blamed
    ]
    total = len(now.cases)
    if findings:
        summary = f"{len(findings)} of {total} base test(s) fail on today's source"
    else:
        summary = f"{total - len(now.failures)} of {total} base test(s) pass on today's source"
        if excluded:
            summary += f" ({len(excluded)} failing at the base too, excluded)"
    return CheckResult(
        KEY, TITLE, Outcome.FAILED if findings else Outcome.PASSED, summary, findings, notes
    )
