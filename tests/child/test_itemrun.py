"""child/itemrun.py in process: one-line failure locations, and folding reports per test."""

from __future__ import annotations

from pathlib import Path

import pytest

from guardcheck.child.itemrun import Recorder, one_line
from guardcheck.model import TestOutcome, TestResult

ROOT = Path(__file__).resolve().parents[2]
HERE = "tests/child/test_itemrun.py"


def fails(message: str) -> None:
    raise ValueError(message)


def fails_on_behalf_of_the_caller() -> None:
    __tracebackhide__ = True  # as pytest.fail and pytest-timeout's handler do
    raise RuntimeError("hidden frame")


def body_line(function: object) -> int:
    """The line of a function's first statement (each function here has a one-line body)."""
    return function.__code__.co_firstlineno + 1  # type: ignore[attr-defined]


def test_one_line_is_the_innermost_location_and_the_first_line_of_the_message():
    with pytest.raises(ValueError) as info:  # noqa: PT011 - the message is checked below
        fails("first line\nsecond line")
    assert one_line(info, ROOT) == (f"{HERE}:{body_line(fails)}: ValueError: first line")


def test_one_line_skips_frames_that_hide_themselves():
    def caller() -> None:
        fails_on_behalf_of_the_caller()

    with pytest.raises(RuntimeError) as info:
        caller()
    where = body_line(caller)
    assert one_line(info, ROOT) == f"{HERE}:{where}: RuntimeError: hidden frame"


def raises_a_group() -> None:
    inner = ExceptionGroup("inner", [KeyError("k")])
    raise ExceptionGroup(
        "multiple unraisable exception warnings",
        [ResourceWarning("unclosed file <_io.FileIO name='/dev/null'>"), inner],
    )


def test_one_line_of_an_exception_group_names_what_it_holds():
    """Issue 22: a baseline failing on pytest's unraisable-exception group showed only
    "multiple unraisable exception warnings (3 sub-exceptions)", hiding the warnings."""
    with pytest.raises(ExceptionGroup) as info:
        raises_a_group()
    assert one_line(info, ROOT) == (
        f"{HERE}:{body_line(raises_a_group) + 1}: ExceptionGroup: multiple unraisable "
        "exception warnings (2 sub-exceptions): ResourceWarning: unclosed file "
        "<_io.FileIO name='/dev/null'>; KeyError: 'k'"
    )


def report(nodeid: str, when: str, outcome: str, longrepr: object = None, duration: float = 0.1):
    return pytest.TestReport(
        nodeid, ("t.py", 1, nodeid), {}, outcome, longrepr, when, duration=duration
    )


def fold(*reports: pytest.TestReport) -> Recorder:
    recorder = Recorder()
    for r in reports:
        recorder.pytest_runtest_logreport(r)
    return recorder


def test_a_passing_test_is_one_result_with_the_time_of_all_its_phases():
    recorder = fold(*(report("t.py::a", when, "passed") for when in ("setup", "call", "teardown")))
    (result,) = recorder.results()
    assert result.nodeid == "t.py::a"
    assert result.outcome is TestOutcome.PASSED
    assert result.duration == pytest.approx(0.3)
    assert recorder.log == []


def test_a_failing_call_is_failed_with_the_first_line_and_is_logged():
    failures: list[str] = []
    recorder = Recorder(on_failure=failures.append)
    for r in (
        report("t.py::a", "setup", "passed"),
        report("t.py::a", "call", "failed", "t.py:3: assert 1 == 2\nmore detail"),
        report("t.py::a", "teardown", "passed"),
    ):
        recorder.pytest_runtest_logreport(r)
    assert recorder.result("t.py::a") == TestResult(
        "t.py::a", TestOutcome.FAILED, pytest.approx(0.3), "t.py:3: assert 1 == 2"
    )
    assert failures == ["t.py::a"]
    assert recorder.log == ["call failed: t.py::a\n  t.py:3: assert 1 == 2"]


@pytest.mark.parametrize("when", ["setup", "teardown"])
def test_a_failing_setup_or_teardown_is_an_error(when):
    recorder = fold(report("t.py::a", when, "failed", "fixture broke"))
    result = recorder.result("t.py::a")
    assert result is not None
    assert (result.outcome, result.message) == (TestOutcome.ERROR, "fixture broke")


def test_a_skip_keeps_its_reason():
    recorder = fold(report("t.py::a", "setup", "skipped", ("t.py", 4, "Skipped: no network")))
    result = recorder.result("t.py::a")
    assert result is not None
    assert (result.outcome, result.message) == (TestOutcome.SKIPPED, "Skipped: no network")


def test_results_are_per_test_in_the_order_they_ran_and_unknown_tests_have_none():
    recorder = fold(
        report("t.py::b", "call", "passed"),
        report("t.py::a", "call", "failed", "boom"),
    )
    assert [(r.nodeid, r.outcome) for r in recorder.results()] == [
        ("t.py::b", TestOutcome.PASSED),
        ("t.py::a", TestOutcome.FAILED),
    ]
    assert recorder.result("t.py::never") is None
