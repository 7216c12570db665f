"""The Markdown summary: verdict first, gate failures with diffs, caught ones folded."""

from __future__ import annotations

import re

from markdown_it import MarkdownIt
from support.reports import CALC, T_ADD, all_caught_report, change, result, rich_report

from guardcheck.model import RunReport, Status
from guardcheck.reports import Gate
from guardcheck.reports.markdown import to_markdown, write_markdown


def test_headline_states_score_counts_and_failed_gate():
    text = to_markdown(rich_report())
    headline = text.splitlines()[0]
    assert headline.startswith("## ")
    assert "gate failed" in headline
    assert "Mutation score 57.1%" in text  # 3 caught + 1 timeout of 7 judged (1 error)
    assert "8 mutants: 3 caught, 1 timeout, 1 survived, 1 no-coverage" in text


def test_all_caught_passes_and_has_no_failure_section():
    text = to_markdown(all_caught_report())
    assert "gate passed" in text.splitlines()[0]
    assert "fail the gate" not in text
    assert "```diff" not in text
    assert "<summary>Caught (2)</summary>" in text


def test_failures_come_before_caught_ones():
    text = to_markdown(rich_report())
    failures_at = text.index("Mutants that fail the gate (4)")
    caught_at = text.index("<summary>Caught (4)</summary>")
    assert failures_at < caught_at
    table = text[failures_at:caught_at]
    for mutant_id in ("clamp-no-high", "limit-eleven", "clamp-low-eq", "limit-inactive"):
        assert f"`{mutant_id}`" in table
    assert "`add-minus`" not in table


def test_failure_rows_have_verdict_reason_and_location():
    text = to_markdown(rich_report())
    row = next(line for line in text.splitlines() if line.startswith("| `limit-eleven`"))
    assert "**no-coverage**" in row
    assert "no test executes pkg/util.py:1" in row
    assert "`pkg/util.py:1`" in row


def test_each_failure_has_its_diff_in_a_details_block():
    text = to_markdown(rich_report())
    assert text.count("```diff") == 4
    assert "-    return min(value, high)\n+    return value" in text
    assert text.count("<details>") == text.count("</details>") == 5


def test_caught_rows_name_the_killer():
    text = to_markdown(rich_report())
    row = next(line for line in text.splitlines() if line.startswith("| `add-minus`"))
    assert f"`{T_ADD}`" in row


def test_caught_elsewhere_moves_to_caught_when_allowed():
    text = to_markdown(rich_report(), gate=Gate(allow_caught_elsewhere=True))
    assert "Mutants that fail the gate (3)" in text
    assert "<summary>Caught (5)</summary>" in text


def test_pipes_and_fences_in_content_do_not_break_the_layout():
    nasty = result(
        "pipe|id",
        Status.SURVIVED,
        (change("pkg/calc.py", CALC, "a + b", "a | b  # ```"),),
        reason="passed | all",
    )
    text = to_markdown(RunReport(root="/p", results=[nasty]))
    row = next(line for line in text.splitlines() if line.startswith("| `pipe"))
    assert len(re.split(r"(?<!\\)\|", row)) == 6  # still four cells between the bars
    assert "passed \\| all" in row
    assert "````diff" in text  # fence longer than the backticks inside the diff


def test_html_and_backticks_from_the_project_stay_text():
    """Regression: a reason (a failing test's message) reached the page as raw HTML."""
    hostile = result(
        "tick`id",
        Status.SURVIVED,
        (change("pkg/calc.py", CALC, "a + b", "a + '<script>x</script>``'"),),
        reason="AssertionError: <script>alert(1)</script> `open",
    )
    text = to_markdown(RunReport(root="/p", results=[hostile]))
    rendered = MarkdownIt("commonmark").enable("table").render(text)
    assert "<script>" not in rendered
    assert "&lt;script&gt;alert(1)&lt;/script&gt; `open" in rendered  # shown as written
    assert "<code>tick`id</code>" in rendered  # the id is one intact code span


def test_interrupted_run_says_so():
    text = to_markdown(rich_report(interrupted=True))
    assert "interrupted" in text.splitlines()[0]
    assert "only the mutants listed below were tested" in text


def test_write_markdown(tmp_path):
    path = write_markdown(all_caught_report(), tmp_path / "summary.md")
    assert path.read_text(encoding="utf-8") == to_markdown(all_caught_report())
