"""What every reporter shares: the gate rule, the counts phrase, the event fan-out."""

from __future__ import annotations

import io

import pytest
from rich.console import Console
from support.reports import all_caught_report, rich_report

from guardcheck.model import RunReport, Status
from guardcheck.reports import FanOut, Gate, counts_phrase, killer_or_reason
from guardcheck.reports.console import ConsoleProgress
from guardcheck.reports.outdir import OutputFolder


def test_default_gate_fails_caught_elsewhere():
    report = rich_report()
    elsewhere = next(r for r in report.results if r.status is Status.CAUGHT_ELSEWHERE)
    assert not Gate().passes(elsewhere)
    assert Gate(allow_caught_elsewhere=True).passes(elsewhere)
    assert len(Gate().failures(report)) == 4
    assert len(Gate(allow_caught_elsewhere=True).failures(report)) == 3


def test_gate_passes_only_when_every_mutant_passes():
    assert Gate().passed(all_caught_report())
    assert not Gate().passed(rich_report())
    assert Gate().passed(RunReport(root="/p"))


def without_errors(report: RunReport) -> RunReport:
    report.results = [r for r in report.results if r.status is not Status.ERROR]
    return report


def test_the_score_is_detected_over_detected_and_missed():
    # 3 caught + 1 timeout detected; survived, no-coverage, caught-elsewhere missed; the
    # error is neither.
    assert rich_report().score == pytest.approx(100 * 4 / 7)


def test_fail_under_replaces_the_per_mutant_rule():
    report = without_errors(rich_report())
    assert Gate(fail_under=57).passed(report)
    assert not Gate(fail_under=57.2).passed(report)


def test_fail_under_still_fails_on_a_mutant_without_a_verdict():
    """Regression: errors were counted as not passing but a low enough --fail-under passed a
    run whose mutants guardcheck could not judge."""
    assert not Gate(fail_under=0).passed(rich_report())


def test_interrupted_run_never_passes():
    report = all_caught_report()
    report.interrupted = True
    assert not Gate().passed(report)


def test_counts_phrase_names_rare_verdicts_only_when_present():
    assert counts_phrase(all_caught_report()) == "2 mutants: 1 caught, 1 timeout, 0 survived"
    assert "no-coverage" not in counts_phrase(all_caught_report())
    assert counts_phrase(RunReport(root="/p")) == "0 mutants: 0 caught, 0 timeout, 0 survived"


def test_killer_or_reason():
    by_id = {r.mutant.id: r for r in rich_report().results}
    assert killer_or_reason(by_id["add-minus"]) == "tests/test_calc.py::test_add"
    assert killer_or_reason(by_id["clamp-no-high"]) == "2 tests passed"
    assert killer_or_reason(by_id["clamp-low-eq"]) == (
        "caught by tests/test_calc.py::test_add, not by tests/test_calc.py::test_clamp[low]"
    )


def test_fan_out_feeds_console_and_output_folder(tmp_path):
    out = io.StringIO()
    progress = ConsoleProgress(Console(file=out, width=200), total=8)
    folder = OutputFolder(tmp_path / "out")
    events = FanOut.of([progress, None, folder])
    report = rich_report()
    events.baseline_started()
    events.baseline_finished(report.baseline, 0.4)
    for result in report.results:
        events.mutant_started(result.mutant)
        events.mutant_finished(result, "log")
    assert progress.finished == 8
    assert sum(line.startswith("[") for line in out.getvalue().splitlines()) == 8
    assert len((tmp_path / "out" / "outcomes.jsonl").read_text().splitlines()) == 8
