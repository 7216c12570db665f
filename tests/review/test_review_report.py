"""A review's Markdown, annotations and text with hostile names and source text.

The Markdown is read back with markdown-it (CommonMark plus GitHub's tables), and each
annotation is split the way GitHub's runner splits a workflow command, so the tests see
what a reader (or an attacker) would get, not the strings guardcheck wrote.
"""

from __future__ import annotations

import json

import pytest
from markdown_it import MarkdownIt
from markdown_it.token import Token
from support.review import parse_command

from guardcheck.review.findings import (
    ChangedLine,
    FlaggedTest,
    FunctionRow,
    MatrixRow,
    ReviewReport,
    Sample,
    StaleEntry,
    Survivor,
)
from guardcheck.review.report import annotations, to_markdown, to_text

HOSTILE_FILE = "tests/test_cm,title=PWNED,line=999.py"
HOSTILE_TEST = f"{HOSTILE_FILE}::test_x[a|b`c%0A::set-output name=x::y]"
HOSTILE_SOURCE = 'if x == "<script>alert(1)</script>" or y == "``|``":  # %0A::set-output'
HOSTILE_MUTANT = 'if x != "<script>alert(1)</script>" or y == "``|``":  # %0A::set-output'
HOSTILE_REASON = "AssertionError: <img src=x onerror=alert(1)>\n::error::injected | `tick"
SOURCE = "app/mod.py"


def hostile_report() -> ReviewReport:
    survivor = Survivor(
        "app/mod.py:3:9: replace == with !=",
        SOURCE,
        3,
        HOSTILE_MUTANT,
        HOSTILE_REASON,
        "check",
        "survived",
        "replace `==` with `!=`",
    )
    row = MatrixRow(
        survivor.mutant_id,
        SOURCE,
        3,
        survivor.mutation,
        HOSTILE_SOURCE,
        HOSTILE_MUTANT,
        "survived",
        HOSTILE_REASON,
        False,
        (),
        (HOSTILE_TEST,),
        (HOSTILE_TEST,),
        "check",
    )
    report = ReviewReport("HEAD~1", "0" * 40, frozenset({"survived", "vacuous", "stale"}))
    report.functions = [FunctionRow(SOURCE, "check", 2, 1, 0, 1, ())]
    report.mutants = 1
    report.survivors = [survivor]
    report.matrix = [row]
    report.lines = [ChangedLine(SOURCE, 3, HOSTILE_SOURCE, 1, (survivor,), (HOSTILE_TEST,))]
    report.vacuous = [FlaggedTest(HOSTILE_TEST, HOSTILE_FILE, 2, HOSTILE_REASON)]
    report.stale = [
        StaleEntry("e`1", "mutations/x.toml", 4, SOURCE, "```\n</details><script>x</script>")
    ]
    report.notes = ["<b>note</b> with `tick` and | pipe"]
    return report


# -- GitHub workflow commands ----------------------------------------------------------


def test_a_hostile_file_name_stays_one_property_value():
    """Regression: `file=tests/test_cm,title=PWNED,line=999.py` added title and line."""
    flagged = [a for a in annotations(hostile_report()) if "vacuous" in a]
    (name, properties, message) = parse_command(flagged[0])
    assert name == "warning"
    assert properties == {"file": HOSTILE_FILE, "line": "2"}
    assert message == f"vacuous: {HOSTILE_TEST}: {HOSTILE_REASON}"


def test_every_annotation_is_one_line_whose_message_round_trips():
    lines = annotations(hostile_report())
    assert len(lines) == 3  # the survivor, the vacuous test, the stale entry
    for line in lines:
        assert not {"\n", "\r"} & set(line)
    _, properties, message = parse_command(lines[0])
    assert properties["file"] == SOURCE
    assert message == f"survived: {HOSTILE_MUTANT} ({HOSTILE_REASON})"


def test_the_console_text_starts_no_line_with_project_text():
    """A `::` at the start of a console line is a workflow command to GitHub's runner."""
    for line in to_text(hostile_report()).splitlines():
        assert not line.lstrip().startswith("::"), line


# -- Markdown --------------------------------------------------------------------------


def parse_markdown(text: str) -> list[Token]:
    """Block and inline tokens, flattened, as GitHub-flavoured CommonMark reads them."""
    tokens = MarkdownIt("commonmark").enable("table").parse(text)
    flat: list[Token] = []
    for token in tokens:
        flat.append(token)
        flat.extend(token.children or [])
    return flat


@pytest.fixture(scope="module")
def markdown() -> str:
    return to_markdown(hostile_report())


def test_no_html_from_the_project_reaches_the_rendered_page(markdown):
    rendered = MarkdownIt("commonmark").enable("table").render(markdown)
    for tag in ("<script", "<img", "<b>"):
        assert tag not in rendered
    html_tokens = [t.content for t in parse_markdown(markdown) if t.type.startswith("html")]
    assert all("script" not in t and "<img" not in t for t in html_tokens), html_tokens


def test_source_text_with_backticks_is_one_intact_code_span(markdown):
    spans = [t.content for t in parse_markdown(markdown) if t.type == "code_inline"]
    assert HOSTILE_SOURCE in spans  # the changed line, under its location
    assert HOSTILE_MUTANT in spans
    assert HOSTILE_TEST in spans


def test_pipes_in_a_table_cell_do_not_add_columns(markdown):
    tokens = parse_markdown(markdown)
    rows: list[int] = []
    for token in tokens:
        if token.type == "tr_open":
            rows.append(0)
        elif token.type in ("td_open", "th_open"):
            rows[-1] += 1
    assert rows[-2:] == [5, 5]  # the kill matrix: header and the one mutant


def test_a_stale_message_with_a_fence_stays_inside_its_code_block(markdown):
    blocks = [t.content for t in parse_markdown(markdown) if t.type == "fence"]
    assert blocks == ["```\n</details><script>x</script>\n"]


def test_a_survivor_is_shown_under_its_line_with_the_tests_that_ran_it(markdown):
    survivors = markdown.index("### Survivors on changed lines")
    section = markdown[survivors : markdown.index("### Vacuous tests")]
    assert "app/mod.py:3" in section
    assert "Executed by" in section


def test_many_tests_fold_into_details():
    report = hostile_report()
    many = tuple(f"tests/test_a.py::test_{i}" for i in range(12))
    line = report.lines[0]
    report.lines = [ChangedLine(line.path, line.line, line.code, 1, line.survivors, many)]
    tokens = parse_markdown(to_markdown(report))
    summaries = [t.content for t in tokens if t.type == "html_block" and "<summary>" in t.content]
    assert any("Executed by: 12 tests" in s for s in summaries)


def test_json_carries_the_kill_matrix_and_the_sample():
    report = hostile_report()
    report.sample = Sample(total=40, kept=10, seed=3)
    data = json.loads(json.dumps(report.as_json()))
    (row,) = data["matrix"]
    assert row["ran_by"] == [HOSTILE_TEST]
    assert row["changed_tests_not_killing"] == [HOSTILE_TEST]
    assert (row["status"], row["caught"]) == ("survived", False)
    assert data["sample"] == {"total": 40, "kept": 10, "seed": 3}
    (line,) = data["lines"]
    assert line["survivors"][0]["mutated"] == HOSTILE_MUTANT


def test_a_returned_bug_is_said_as_such_in_the_console_and_annotations():
    """Issue 23 point 5: review printed an entry whose bug is back as `stale ID`, the
    advice to delete it; it now says `bug-back ID`, as `check` does."""
    report = ReviewReport("HEAD~1", "0" * 40, frozenset({"stale"}))
    report.stale = [
        StaleEntry("ungated", "mutations/x.toml", 4, "app/x.py", "msg", kind="bug-back")
    ]
    assert "  bug-back ungated (mutations/x.toml:4)" in to_text(report).splitlines()
    assert annotations(report) == ["::warning file=mutations/x.toml,line=4::bug-back: ungated"]
