"""run_lab end to end on a throwaway project: real host, real forks, real fresh interpreters."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.lab import OPS, Events, T, by_id, mutant, run
from support.projects import commit, copy_project, edit, git_status, write_files

from guardcheck.exitcodes import ExitCode
from guardcheck.lab.execute.baseline import BaselineFailed
from guardcheck.model import MutantResult, RunReport, Status, TestOutcome

pytestmark = pytest.mark.slow


def catalogue(root: Path) -> list:
    return [
        mutant(root, "add-caught", "return a + b", "return a - b", killed_by=(T + "test_add",)),
        mutant(
            root, "add-elsewhere", "return a + b", "return a * b", killed_by=(T + "test_label",)
        ),
        mutant(root, "clamp-survives", "if x > LIMIT", "if x >= LIMIT"),
        mutant(root, "unused", "return x * 2", "return x * 3"),
        mutant(root, "limit", "LIMIT = 10", "LIMIT = 11"),
        mutant(root, "step", "    step = 1", "    step = 2"),
        mutant(root, "prefix", 'prefix="n"', 'prefix="m"'),
        mutant(root, "spin-forever", "n -= 1", "n -= 0"),
        mutant(root, "exit", "return a + b", "return os._exit(3)"),
        mutant(root, "segfault", 'f"{prefix}{x}"', '__import__("ctypes").string_at(0)'),
        mutant(root, "second-line", "        for x in xs\n", "        for x in xs if x > 1\n"),
        mutant(root, "square-cache", "return x * x", "return x + x"),
        mutant(root, "stray-file", 'os.path.join(folder, "data.txt")', '"stray.txt"'),
        mutant(
            root,
            "rmtree-tmp",
            "    return path\n",
            '    __import__("shutil").rmtree(folder)\n    return path\n',
        ),
        mutant(root, "tick-never-runs", "n += 1", "n += 2"),
        mutant(root, "unviable", "return x * x", "return x *"),
        mutant(root, "import-error", "LIMIT = 10", "LIMIT = 1 / 0"),
    ]


@pytest.fixture(scope="module")
def lab(tmp_path_factory) -> tuple[Path, RunReport, Events]:
    root = copy_project(tmp_path_factory.mktemp("lab") / "calc", "calc", git=True)
    events = Events()
    report = run(root, catalogue(root), events, jobs=2, timeout_constant=1.0)
    return root, report, events


@pytest.fixture(scope="module")
def results(lab) -> dict[str, MutantResult]:
    return by_id(lab[1])


def test_every_mutant_gets_a_result_in_input_order_and_events(lab):
    root, report, events = lab
    ids = [m.id for m in catalogue(root)]
    assert [r.mutant.id for r in report.results] == ids
    assert events.calls[:3] == [f"run_started {len(ids)}", "baseline_started", "baseline_finished"]
    for ident in ids:
        assert events.calls.count(f"started {ident}") == 1
        assert events.calls.count(f"finished {ident}") == 1
        # The scheduler tells listeners after dispatching the next mutants: still in order.
        assert events.calls.index(f"started {ident}") < events.calls.index(f"finished {ident}")
    assert not report.interrupted


def test_user_conftest_addopts_and_markers_are_honoured(lab):
    _, report, _ = lab
    names = [t.nodeid for t in report.baseline]
    assert T + "test_broken" not in names  # deselected by addopts -m
    assert T + "test_add" in names  # uses the conftest-only fixture
    assert all(t.path == "tests/test_ops.py" for t in report.baseline)


def test_caught_by_the_named_killer_which_ran_first(results):
    result = results["add-caught"]
    assert result.status is Status.CAUGHT
    assert result.path == "fork"
    assert result.reason.startswith(T + "test_add: ")
    assert "assert (-1 + 0) == 5" in result.reason
    assert [t.nodeid for t in result.tests] == [T + "test_add"]  # bail at the first failure
    assert result.tests[0].outcome is TestOutcome.FAILED


def test_caught_only_by_an_unnamed_test_is_caught_elsewhere(results):
    result = results["add-elsewhere"]
    assert result.status is Status.CAUGHT_ELSEWHERE
    assert result.tests[0].nodeid == T + "test_label"  # the named test got the first chance
    assert result.tests[0].outcome is TestOutcome.PASSED
    assert "test_label" in result.reason


def test_survivor_needs_and_has_evidence_from_a_run_as_the_suite_runs(results):
    """Regression (issue 22, found by the corpus oracle on humanize): a survivor that
    reached its changed statement alone was final, but its tests had run fastest first;
    by hand, in the suite's order, a test that set a locale had not run yet and the
    mutant failed a doctest. A pass counts once its selected tests' whole modules ran,
    in baseline order."""
    result = results["clamp-survives"]
    assert result.status is Status.SURVIVED
    module = [s.nodeid for s in result.selection if s.nodeid.startswith(T)]
    assert module[:3] == [T + "test_add", T + "test_add_again", T + "test_clamp"]
    assert [t.nodeid for t in result.tests] == module
    assert result.reason.endswith("whole modules, in baseline order)")
    selected = {s.nodeid: s.reason for s in result.selection if s.selected}
    assert selected == {T + "test_clamp": "executes calc/ops.py:14"}


def test_a_mutant_whose_code_never_runs_in_the_child_is_an_error_not_a_survivor(results):
    # TICKER's generator frame exists since import: the swapped code is never entered.
    result = results["tick-never-runs"]
    assert result.status is Status.ERROR
    assert "no evidence" in result.reason


def test_no_coverage_runs_nothing(results):
    result = results["unused"]
    assert result.status is Status.NO_COVERAGE
    assert result.tests == ()
    assert result.reason == f"no test executes {OPS}:49"


@pytest.mark.parametrize("ident", ["limit", "step"])
def test_import_time_mutations_run_in_a_fresh_interpreter(results, ident):
    result = results[ident]
    assert result.path == "subprocess"
    assert result.status is Status.CAUGHT, result.reason


def test_a_new_literal_default_value_is_set_in_a_fork_and_caught_by_the_callers(results):
    """Issue 10 (speed): `prefix="n"` -> `"m"` ran in a fresh interpreter with every test
    selected; it changes only label's __defaults__, which the fork sets on the live
    function, and the tests that run label's body are the ones selected."""
    result = results["prefix"]
    assert result.path == "fork", result.path_reason
    assert result.status is Status.CAUGHT, result.reason
    selected = {s.nodeid: s.reason for s in result.selection if s.selected}
    assert selected == {T + "test_label": f"executes {OPS}:label (its default values changed)"}
    assert "assert 'm1' == 'n1'" in result.reason


def test_a_mutant_that_breaks_collection_is_caught_as_a_crash(results):
    result = results["import-error"]
    assert result.path == "subprocess"
    assert result.status is Status.CAUGHT
    assert result.reason.startswith("crash: collection aborted: tests/test_ops.py")
    assert "ZeroDivisionError" in result.reason


def test_an_infinite_loop_times_out(results):
    result = results["spin-forever"]
    assert result.status is Status.TIMEOUT
    assert result.reason.startswith("timeout after ")
    assert result.reason.endswith(f"during {T}test_spin")


@pytest.mark.parametrize(
    ("ident", "crash"), [("exit", "crash: exit code 3"), ("segfault", "crash: SIGSEGV")]
)
def test_a_crashing_mutant_is_caught_with_the_test_that_was_running(results, ident, crash):
    result = results[ident]
    assert result.status is Status.CAUGHT
    assert result.reason.startswith(crash + " during ")
    assert result.killers


def test_a_change_on_the_second_line_of_a_statement_is_covered(results):
    assert results["second-line"].status is Status.CAUGHT


def test_caches_the_baseline_warms_do_not_hide_mutants(results):
    assert results["square-cache"].status is Status.CAUGHT


def test_files_a_mutant_writes_or_deletes_never_touch_the_working_tree(lab, results):
    root, _, _ = lab
    assert results["stray-file"].status is Status.CAUGHT
    assert results["rmtree-tmp"].status is Status.CAUGHT
    assert not (root / "stray.txt").exists()
    assert git_status(root) == ""


def test_uncompilable_mutant_is_an_error(results):
    result = results["unviable"]
    assert result.status is Status.ERROR
    assert "does not compile" in result.reason


def test_log_holds_selection_and_failure_text(lab):
    _, _, events = lab
    log = events.logs["add-caught"]
    assert "selected: " + T + "test_add" in log
    assert "assert (-1 + 0) == 5" in log
    assert log.splitlines()[-1].startswith("verdict: caught")


def test_matrix_runs_every_selected_test_with_one_job(project):
    root = project("calc", git=True)
    mutants = [
        mutant(root, "add", "return a + b", "return a - b"),
        mutant(root, "limit", "LIMIT = 10", "LIMIT = 11"),
    ]
    report = run(root, mutants, jobs=1, matrix=True)
    assert report.matrix
    add, limit = report.results
    assert add.status is Status.CAUGHT
    assert sorted(add.killers) == [T + "test_add", T + "test_add_again"]
    assert len(limit.tests) == len([s for s in limit.selection if s.selected])
    assert limit.killers == (T + "test_clamp",)


def test_a_red_baseline_stops_the_run_and_names_the_test(project):
    root = project("calc")
    write_files(root, {"tests/test_red.py": "def test_red():\n    assert 1 == 2\n"})
    commit(root)
    with pytest.raises(BaselineFailed) as info:
        run(root, [mutant(root, "add", "return a + b", "return a - b")])
    assert info.value.code is ExitCode.BASELINE_FAILED
    assert "tests/test_red.py::test_red" in str(info.value)
    assert git_status(root) == ""


FLAKY = "tests/test_flaky.py::test_flips"  # from the flaky-test overlay


def test_a_flaky_baseline_test_stops_the_run_when_the_baseline_runs_twice(project):
    root = project("calc", "flaky-test", git=True)
    events = Events()
    with pytest.raises(BaselineFailed) as info:
        run(root, [mutant(root, "add", "return a + b", "return a - b")], events, baseline_runs=2)
    assert info.value.code is ExitCode.BASELINE_FAILED
    message = str(info.value)
    assert f"flaky: {FLAKY} passed in run 1, failed in run 2: " in message
    assert "call 2 fails" in message
    assert T + "test_add" not in message  # only the flaky test is named
    assert events.calls == ["run_started 1", "baseline_started"]  # no mutant ran
    assert git_status(root) == ""


def test_with_one_baseline_run_the_same_flaky_test_does_not_stop_the_run(project):
    root = project("calc", "flaky-test", git=True)
    report = run(root, [mutant(root, "add", "return a + b", "return a - b")])
    assert FLAKY in [t.nodeid for t in report.baseline]
    assert report.results[0].status is Status.CAUGHT


def test_every_baseline_run_is_a_cold_fork_and_a_stable_suite_goes_on(project):
    root = project("calc", "calc-cold", git=True)
    witness = root.parent / "witness.txt"  # written beside the project by tests/test_cold.py
    report = run(root, [mutant(root, "add", "return a + b", "return a - b")], baseline_runs=3)
    assert witness.read_text().splitlines() == ["ran"] * 3  # three runs, none flagged flaky
    assert report.results[0].status is Status.CAUGHT
    assert git_status(root) == ""


def test_the_users_pytest_timeout_fails_a_hanging_mutant_in_the_child(project):
    """Regression: the host unregisters pytest's terminal reporter to keep children quiet, and
    pytest-timeout's handler asked config.get_terminal_writer() for it, so the timeout
    surfaced as an AssertionError inside _pytest/config instead of pytest-timeout's failure.
    Also guards the one-line reason's location, which pointed into pytest.fail's own frame."""
    root = project("calc", "calc-timeout")
    # The user's pytest-timeout, through addopts: 3 s per test, far below guardcheck's budget.
    pyproject = edit(root / "pyproject.toml", "-m 'not broken'", "-m 'not broken' --timeout=3")
    assert "--timeout=3" in pyproject
    commit(root)
    mutants = [
        mutant(root, "hangs", "return a + b", "return __import__('time').sleep(60)"),
        mutant(root, "after", "if x > LIMIT", "if x < LIMIT"),
    ]
    report = run(root, mutants, jobs=1, timeout_constant=60.0)
    baseline = [t.nodeid for t in report.baseline]
    assert "tests/test_plugin.py::test_pytest_timeout_is_active" in baseline  # and it passed
    hangs, after = report.results
    assert hangs.status is Status.CAUGHT, hangs.reason  # not TIMEOUT: guardcheck's 60 s
    # Located where the test hung, not in the frames that raised on pytest-timeout's behalf.
    assert hangs.reason.endswith(f": {OPS}:10: Failed: Timeout (>3.0s) from pytest-timeout.")
    assert hangs.killers[0] in (T + "test_add", T + "test_add_again")
    assert after.status is Status.CAUGHT
    assert git_status(root) == ""


def test_the_baseline_records_skipped_and_xfailed_tests_as_such(tmp_path):
    """Regression: skipped and xfailed baseline tests were reported as passed."""
    root = copy_project(tmp_path / "tiny", "tiny")
    write_files(
        root,
        {
            "tests/test_marks.py": (
                "import pytest\n\n\n"
                "@pytest.mark.skip(reason='not today')\n"
                "def test_skipped():\n    pytest.fail('never runs')\n\n\n"
                "@pytest.mark.xfail(reason='known bug', strict=True)\n"
                "def test_xfailed():\n    assert 1 == 2\n"
            )
        },
    )
    add = mutant(root, "add", "return a + b", "return a - b", path="tiny/adder.py")
    report = run(root, [add], jobs=1)
    outcomes = {t.nodeid.split("::")[1]: t.outcome for t in report.baseline}
    assert outcomes == {
        "test_add": TestOutcome.PASSED,
        "test_add_zero": TestOutcome.PASSED,
        "test_skipped": TestOutcome.SKIPPED,
        "test_xfailed": TestOutcome.XFAILED,
    }
    assert report.results[0].status is Status.CAUGHT
