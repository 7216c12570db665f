"""Check 1: the base revision's tests, run against today's source.

A failure is a compatibility the old tests promised and the new code broke.
The same tests also run on the base's own source, so a test that was already
failing there is excluded (and listed) instead of blamed on the change.
"""

from __future__ import annotations

from collections.abc import Sequence

from guardcheck.refactor.findings import CheckResult, Finding, Outcome
from guardcheck.refactor.layout import test_paths
from guardcheck.refactor.moves_file import Accept
from guardcheck.refactor.pytest_run import CaseResult, SuiteRequest, SuiteRun, run_suites
from guardcheck.refactor.trees import Trees

KEY = "old-tests"
TITLE = "Old tests on new code"
_NO_TESTS = 5  # pytest's exit code when it collected nothing


def _broken(run: SuiteRun, where: str) -> str | None:
    """Why a run says nothing about individual tests (pytest could not start), if so."""
    if run.cases or run.exit_code in (0, _NO_TESTS):
        return None
    return f"pytest exited {run.exit_code} on {where} without test results:\n{run.output_tail}"


def _beyond(message: str, explanation: tuple[str, ...]) -> tuple[str, ...]:
    """pytest's explanation without the line the finding's message already shows."""
    if explanation and message.endswith(explanation[0].strip()):
        return explanation[1:]
    return explanation


def _accepted(accept: Accept, nodeid: str) -> bool:
    return nodeid == accept.test or nodeid.split("[", 1)[0] == accept.test


def _accept_notes(
    accepts: Sequence[Accept], blamed: list[CaseResult], run: SuiteRun
) -> tuple[list[CaseResult], list[str]]:
    """The failures no [[accept]] covers, and a note per [[accept]] on what became of it."""
    notes = []
    for accept in accepts:
        covered = [case for case in blamed if _accepted(accept, case.nodeid)]
        where = f"moves file line {accept.line}"
        if covered:
            for case in covered:
                notes.append(
                    f"accepted ({where}): {case.nodeid} fails on today's source as intended: "
                    f"{accept.reason}"
                )
        elif any(_accepted(accept, nodeid) for nodeid in run.cases):
            notes.append(
                f"{accept.test} passes on today's source: it no longer needs the [[accept]] "
                f"entry at {where}"
            )
        else:
            notes.append(f"[[accept]] at {where} names {accept.test}, which is not a base test")
    rest = [c for c in blamed if not any(_accepted(a, c.nodeid) for a in accepts)]
    return rest, notes


def check_old_tests(trees: Trees, accepts: Sequence[Accept] = ()) -> CheckResult:
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
    blamed, accepted = _accept_notes(accepts, blamed, now)
    notes += accepted
    findings = [
        Finding(
            f"{case.nodeid} passes at {trees.base.label} and fails on today's source: "
            f"{case.message or 'failed'}",
            path=case.file,
            line=case.line,
            details=_beyond(case.message, case.explanation),
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
        failing_accepted = sum(1 for note in accepted if note.startswith("accepted"))
        if failing_accepted:
            summary += f" ({failing_accepted} failing as accepted in the moves file)"
    return CheckResult(
        KEY, TITLE, Outcome.FAILED if findings else Outcome.PASSED, summary, findings, notes
    )
