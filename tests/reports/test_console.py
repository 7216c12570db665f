"""The console: progress events as plain lines or a live bar, the final table and matrix."""

from __future__ import annotations

import io

import pytest
from rich.console import Console
from support.reports import T_ADD, T_CLAMP, T_EXTRA, T_IDLE, T_LIMIT, all_caught_report, rich_report

from guardcheck.model import BaselineTest, RunReport, Status, TestOutcome
from guardcheck.reports import Gate
from guardcheck.reports.console import (
    ConsoleProgress,
    Verbosity,
    baseline_counts,
    kill_matrix,
    render_matrix,
    render_table,
    summary_line,
    verdict_text,
)

SWEEP_ID = "pkg/calc.py:2:14: replace + with * [x]"


def console(*, terminal: bool = False) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, width=200, force_terminal=terminal, color_system=None), out


def drive(progress: ConsoleProgress, report: RunReport, upto: int | None = None) -> None:
    """Feed the events a lab would send, optionally stopping after `upto` mutants."""
    progress.baseline_started()
    progress.baseline_finished(report.baseline, report.baseline_seconds)
    for result in report.results[:upto]:
        progress.mutant_started(result.mutant)
        progress.mutant_finished(result, "log text")


def test_plain_mode_prints_one_line_per_mutant():
    con, out = console()
    report = rich_report()
    with ConsoleProgress(con, total=len(report.results)) as progress:
        drive(progress, report)
    lines = out.getvalue().splitlines()
    assert "baseline: 4 tests passed in 0.40 s" in lines
    mutant_lines = [line for line in lines if line.startswith("[")]
    assert len(mutant_lines) == 8
    assert mutant_lines[0].startswith("[1/8] caught")
    assert "add-minus" in mutant_lines[0]
    assert f"by {T_ADD}" in mutant_lines[0]
    assert "fork" in mutant_lines[0]
    survived = next(line for line in mutant_lines if "clamp-no-high" in line)
    assert "survived" in survived
    assert "2 tests passed" in survived
    assert any(SWEEP_ID in line for line in mutant_lines)  # brackets are not markup
    assert "assert 1 == 3" not in out.getvalue()  # test detail only when verbose
    assert progress.counts[Status.CAUGHT] == 3
    assert progress.finished == 8


def test_plain_mode_without_total_still_counts():
    con, out = console()
    with ConsoleProgress(con) as progress:
        drive(progress, rich_report(), upto=2)
    assert "[2] timeout" in out.getvalue()


def test_verbose_mode_lists_each_mutants_tests():
    con, out = console()
    with ConsoleProgress(con, total=8, verbosity=Verbosity.VERBOSE) as progress:
        drive(progress, rich_report())
    text = out.getvalue()
    assert f"failed  {T_ADD}" in text
    assert "assert 1 == 3" in text
    assert f"passed  {T_EXTRA}" in text


def test_quiet_mode_prints_nothing_while_running():
    con, out = console()
    with ConsoleProgress(con, total=8, verbosity="quiet") as progress:
        drive(progress, rich_report())
    assert out.getvalue() == ""
    assert progress.counts[Status.SURVIVED] == 1


def test_live_bar_on_a_terminal_shows_only_gate_failures_as_lines():
    con, out = console(terminal=True)
    report = rich_report()
    progress = ConsoleProgress(con, verbosity=Verbosity.NORMAL)
    assert progress.live
    with progress:
        progress.set_total(len(report.results))
        drive(progress, report)
    text = out.getvalue()
    assert "baseline: 4 tests passed" in text
    for mutant_id in ("clamp-no-high", "limit-eleven", "clamp-low-eq", "limit-inactive"):
        assert f" {mutant_id}  " in text
    assert "] caught " not in text  # caught mutants only move the bar
    assert progress.finished == 8


def test_non_terminal_console_defaults_to_plain_lines():
    con, _out = console(terminal=False)
    assert not ConsoleProgress(con).live


def test_caught_elsewhere_respects_the_gate_on_the_bar():
    con, out = console(terminal=True)
    report = rich_report()
    with ConsoleProgress(con, gate=Gate(allow_caught_elsewhere=True)) as progress:
        drive(progress, report)
    assert " clamp-low-eq  " not in out.getvalue()


def test_table_lists_every_mutant_and_puts_failures_last():
    con, out = console()
    render_table(rich_report(), con)
    text = out.getvalue()
    for result in rich_report().results:
        assert result.mutant.id in text
    assert text.index("add-minus") < text.index("clamp-no-high")
    assert text.index("both-files") < text.index("limit-inactive")
    row = next(line for line in text.splitlines() if "clamp-loop" in line)
    assert "timeout" in row
    assert "subprocess" in row
    assert "5.20 s" in row
    row = next(line for line in text.splitlines() if "clamp-low-eq" in line)
    assert "caught-elsewhere" in row
    assert "caught by" in row


def test_table_ends_with_the_summary_line():
    con, out = console()
    render_table(rich_report(), con)
    last = out.getvalue().splitlines()[-1]
    assert last == (
        "8 mutants: 3 caught, 1 timeout, 1 survived, 1 no-coverage, 1 caught-elsewhere, "
        "1 error in 3.1 s (baseline 0.4 s) — gate failed"
    )


def test_summary_line_for_a_clean_run():
    assert summary_line(all_caught_report()) == (
        "2 mutants: 1 caught, 1 timeout, 0 survived in 3.1 s (baseline 0.4 s) — gate passed"
    )


def test_summary_line_with_fail_under_and_interruption():
    assert "gate failed (score 57.1% vs --fail-under 40%)" in summary_line(
        rich_report(), Gate(fail_under=40)
    )
    assert summary_line(rich_report(interrupted=True)).endswith("— interrupted")


def test_verdicts_are_coloured_by_severity():
    assert "red" in str(verdict_text(Status.SURVIVED).style)
    assert "green" in str(verdict_text(Status.CAUGHT).style)
    assert verdict_text(Status.NO_COVERAGE).style != verdict_text(Status.CAUGHT).style


def test_kill_matrix_maps_tests_to_the_mutants_they_kill():
    matrix = kill_matrix(rich_report(matrix=True))
    assert matrix[T_ADD] == ["add-minus", "clamp-low-eq", SWEEP_ID]
    assert matrix[T_CLAMP] == [SWEEP_ID]
    assert matrix[T_LIMIT] == ["both-files"]
    assert matrix[T_IDLE] == []
    assert matrix[T_EXTRA] == []


def test_render_matrix_lists_tests_that_kill_nothing():
    con, out = console()
    render_matrix(rich_report(matrix=True), con)
    text = out.getvalue()
    row = next(line for line in text.splitlines() if T_ADD in line)
    assert "3" in row
    assert "add-minus" in row
    idle = text[text.index("Tests that kill nothing (2):") :]
    assert f"{T_IDLE}  (executes no mutated line)" in idle
    assert f"{T_EXTRA}  (ran against 1 mutant)" in idle
    assert "--matrix" not in text


def test_render_matrix_warns_that_bail_mode_is_partial():
    con, out = console()
    render_matrix(rich_report(matrix=False), con)
    assert "rerun with --matrix" in out.getvalue()


@pytest.mark.parametrize("report", [RunReport(root="/p"), all_caught_report()])
def test_render_on_small_reports(report):
    con, out = console()
    render_table(report, con)
    render_matrix(report, con)
    assert "gate passed" in out.getvalue()


def test_the_baseline_line_counts_skipped_and_xfailed_tests_apart():
    """Regression: a skipped or xfailed baseline test was counted as passed."""
    tests = [
        BaselineTest("t.py::a", 0.1, "t.py"),
        BaselineTest("t.py::b", 0.1, "t.py", TestOutcome.SKIPPED),
        BaselineTest("t.py::c", 0.1, "t.py", TestOutcome.XFAILED),
        BaselineTest("t.py::d", 0.1, "t.py"),
    ]
    assert baseline_counts(tests) == "2 passed, 1 skipped, 1 xfailed"
    assert baseline_counts(tests[:1]) == "1 test passed"
    assert baseline_counts([tests[0], tests[3]]) == "2 tests passed"
