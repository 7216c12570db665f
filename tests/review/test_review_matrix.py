"""A review row keeps the lab's verdict: review judges a mutant as `run` and `sweep` do."""

from __future__ import annotations

from guardcheck.model import (
    ChildOutcome,
    FileChange,
    Mutant,
    MutantResult,
    Selection,
    Status,
    TestOutcome,
    TestResult,
    Where,
)
from guardcheck.review.diff import Change, functions_of
from guardcheck.review.matrix import row

PATH = "app/limits.py"
ORIGINAL = "def over(n, limit):\n    return n > limit\n"
MUTATED = "def over(n, limit):\n    return n >= limit\n"
NEW_TEST = "tests/test_limits.py::test_over"
OLD_TEST = "tests/test_limits.py::test_under"
CHANGE = Change({PATH: {2}}, {PATH: functions_of(PATH, ORIGINAL)})


def judged(status: Status, reason: str, outcome: ChildOutcome) -> MutantResult:
    mutant = Mutant(
        f"{PATH}:2:14: replace > with >=",
        "replace `>` with `>=`",
        (FileChange(PATH, ORIGINAL, MUTATED, Where(PATH, 2, 14)),),
        mutator="swap-op",
    )
    selection = tuple(Selection(t, True, f"executes {PATH}:2") for t in (NEW_TEST, OLD_TEST))
    return MutantResult(mutant, status, reason, outcome.tests, selection, outcome=outcome)


def test_a_crash_while_collecting_that_the_lab_calls_a_kill_is_caught():
    """Regression: review counted it as a survivor (no failing test), `run` as a kill."""
    outcome = ChildOutcome(crash="collection aborted: ImportError", evidence=True)
    result = judged(Status.CAUGHT, "crash: collection aborted: ImportError", outcome)
    judged_row = row(result, set(), [NEW_TEST], CHANGE)
    assert (judged_row.status, judged_row.caught) == ("caught", True)
    assert judged_row.function == "over"


def test_a_crash_inside_a_test_names_that_test_as_the_killer():
    outcome = ChildOutcome(crash="SIGSEGV", current=NEW_TEST, evidence=True)
    judged_row = row(judged(Status.CAUGHT, "crash: SIGSEGV", outcome), set(), [NEW_TEST], CHANGE)
    assert judged_row.killed_by == (NEW_TEST,)
    assert judged_row.changed_tests_not_killing == ()


def test_an_error_stays_an_error_and_is_not_caught():
    passed = (TestResult(NEW_TEST, TestOutcome.PASSED, 0.01),)
    outcome = ChildOutcome(tests=passed, evidence=False)
    result = judged(Status.ERROR, "no evidence the mutant was active", outcome)
    judged_row = row(result, set(), [NEW_TEST], CHANGE)
    assert (judged_row.status, judged_row.caught) == ("error", False)
    assert judged_row.reason == "no evidence the mutant was active"


def test_a_kill_by_source_reading_tests_alone_does_not_count_and_says_why():
    failed = (TestResult(OLD_TEST, TestOutcome.FAILED, 0.01, "source changed"),)
    passed = (TestResult(NEW_TEST, TestOutcome.PASSED, 0.01),)
    outcome = ChildOutcome(tests=failed + passed, evidence=True)
    result = judged(Status.CAUGHT, OLD_TEST, outcome)
    judged_row = row(result, {OLD_TEST}, [NEW_TEST], CHANGE)
    assert (judged_row.status, judged_row.caught) == ("caught", False)
    assert judged_row.reason == f"caught only by source-reading tests: {OLD_TEST}"
    assert judged_row.changed_tests_not_killing == (NEW_TEST,)
