"""Builders for RunReport values, shared by the reporter tests (not a test module)."""

from __future__ import annotations

from guardcheck.model import (
    BaselineTest,
    FileChange,
    Mutant,
    MutantResult,
    RunReport,
    Selection,
    Status,
    TestOutcome,
    TestResult,
    Where,
)
from guardcheck.splices import Splice

CALC = """\
def add(a, b):
    return a + b


def clamp(value, low, high):
    if value < low:
        return low
    return min(value, high)
"""

UTIL = """\
LIMIT = 10


def limit():
    return LIMIT
"""

T_ADD = "tests/test_calc.py::test_add"
T_CLAMP = "tests/test_calc.py::test_clamp[low]"
T_LIMIT = "tests/test_util.py::TestLimit::test_limit"
T_IDLE = "tests/test_util.py::test_idle"
T_EXTRA = "tests/test_more.py::test_not_in_baseline"  # ran, but absent from the baseline


def change(
    path: str, original: str, find: str, replace: str, *, with_end: bool = True
) -> FileChange:
    """The FileChange of replacing the first `find` in `original`, span on `find`."""
    offset = original.index(find)
    before = original[:offset]
    line = before.count("\n") + 1
    column = offset - (before.rfind("\n") + 1) + 1
    end_before = original[: offset + len(find)]
    end_line = end_before.count("\n") + 1
    end_column = len(end_before) - (end_before.rfind("\n") + 1) + 1
    span = Where(
        path,
        line,
        column,
        end_line if with_end else None,
        end_column if with_end else None,
    )
    mutated = original[:offset] + replace + original[offset + len(find) :]
    splice = Splice(offset, offset + len(find), replace)  # what the engine would record
    return FileChange(path=path, original=original, mutated=mutated, span=span, splices=(splice,))


def passed(nodeid: str, duration: float = 0.01) -> TestResult:
    return TestResult(nodeid, TestOutcome.PASSED, duration)


def failed(nodeid: str, message: str = "assert 1 == 3", duration: float = 0.02) -> TestResult:
    return TestResult(nodeid, TestOutcome.FAILED, duration, message)


def selected(*nodeids: str) -> tuple[Selection, ...]:
    return tuple(Selection(n, True, "executes the mutated lines") for n in nodeids)


def result(
    mutant_id: str,
    status: Status,
    changes: tuple[FileChange, ...],
    *,
    reason: str = "",
    tests: tuple[TestResult, ...] = (),
    selection: tuple[Selection, ...] = (),
    killed_by: tuple[str, ...] = (),
    path: str = "fork",
    duration: float = 0.05,
    mutator: str = "catalogue",
) -> MutantResult:
    mutant = Mutant(
        id=mutant_id,
        summary=f"summary of {mutant_id}",
        changes=changes,
        mutator=mutator,
        killed_by=killed_by,
        declared_at=Where("mutations/calc.toml", 3),
    )
    return MutantResult(mutant, status, reason, tests, selection, path, duration)


def rich_report(**overrides: object) -> RunReport:
    """One mutant of every verdict, a two-file mutant and a sweep-style id."""
    results = [
        result(
            "add-minus",
            Status.CAUGHT,
            (change("pkg/calc.py", CALC, "a + b", "a - b"),),
            reason=f"{T_ADD} failed",
            tests=(failed(T_ADD),),
            selection=selected(T_ADD),
            killed_by=(T_ADD,),
        ),
        result(
            "clamp-loop",
            Status.TIMEOUT,
            (change("pkg/calc.py", CALC, "value < low", "value < low or clamp(value, low, high)"),),
            reason="timeout after 5.2 s",
            tests=(),
            selection=selected(T_CLAMP),
            path="subprocess",
            duration=5.2,
        ),
        result(
            "clamp-no-high",
            Status.SURVIVED,
            (change("pkg/calc.py", CALC, "min(value, high)", "value", with_end=False),),
            reason="2 tests passed",
            tests=(passed(T_CLAMP), passed(T_EXTRA)),
            selection=selected(T_CLAMP, T_EXTRA),
            killed_by=(T_CLAMP,),
        ),
        result(
            "limit-eleven",
            Status.NO_COVERAGE,
            (change("pkg/util.py", UTIL, "LIMIT = 10", "LIMIT = 11"),),
            reason="no test executes pkg/util.py:1",
            selection=(Selection(T_LIMIT, False, "does not execute the mutated lines"),),
        ),
        result(
            "clamp-low-eq",
            Status.CAUGHT_ELSEWHERE,
            (change("pkg/calc.py", CALC, "<", "<="),),
            reason=f"{T_ADD} failed",
            tests=(passed(T_CLAMP), failed(T_ADD, "assert 2 == 3")),
            selection=selected(T_CLAMP, T_ADD),
            killed_by=(T_CLAMP,),
        ),
        result(
            "limit-inactive",
            Status.ERROR,
            (change("pkg/util.py", UTIL, "return LIMIT", "return None"),),
            reason="mutant not provably active",
            tests=(passed(T_LIMIT),),
            selection=selected(T_LIMIT),
        ),
        result(
            "both-files",
            Status.CAUGHT,
            (
                change("pkg/calc.py", CALC, "return low", "return high"),
                change("pkg/util.py", UTIL, "LIMIT = 10", "LIMIT = 0"),
            ),
            reason=f"{T_LIMIT} failed",
            tests=(failed(T_LIMIT, "assert 0 == 10"),),
            selection=selected(T_LIMIT),
            killed_by=(T_LIMIT,),
            path="subprocess",
        ),
        result(
            "pkg/calc.py:2:14: replace + with * [x]",
            Status.CAUGHT,
            (change("pkg/calc.py", CALC, "+", "*"),),
            reason=f"{T_ADD} failed",
            tests=(failed(T_ADD), failed(T_CLAMP)),
            selection=selected(T_ADD, T_CLAMP),
            mutator="ArithmeticOperator",
        ),
    ]
    baseline = [
        BaselineTest(T_ADD, 0.01, "tests/test_calc.py"),
        BaselineTest(T_CLAMP, 0.01, "tests/test_calc.py"),
        BaselineTest(T_LIMIT, 0.02, "tests/test_util.py"),
        BaselineTest(T_IDLE, 0.01, "tests/test_util.py"),
    ]
    report = RunReport(
        root="/home/user/project",
        results=results,
        baseline=baseline,
        baseline_seconds=0.4,
        wall_seconds=3.1,
    )
    for name, value in overrides.items():
        setattr(report, name, value)
    return report


def all_caught_report() -> RunReport:
    """A small run where everything passes the gate."""
    return RunReport(
        root="/p",
        results=[
            result(
                "add-minus",
                Status.CAUGHT,
                (change("pkg/calc.py", CALC, "a + b", "a - b"),),
                reason=f"{T_ADD} failed",
                tests=(failed(T_ADD),),
                selection=selected(T_ADD),
            ),
            result(
                "clamp-loop",
                Status.TIMEOUT,
                (change("pkg/calc.py", CALC, "value < low", "True"),),
                reason="timeout after 5.2 s",
                selection=selected(T_CLAMP),
            ),
        ],
        baseline=[BaselineTest(T_ADD, 0.01, "tests/test_calc.py")],
        baseline_seconds=0.4,
        wall_seconds=3.1,
    )
