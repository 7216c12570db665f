"""GitHub workflow commands and Markdown code from hostile project text (reports.escaping)."""

from __future__ import annotations

from markdown_it import MarkdownIt
from support.review import parse_command

from guardcheck.reports.escaping import code_block, code_span, plain, workflow_command

HOSTILE = "a,b:c%0A::set-output name=x::y\r\n100%"


def test_a_property_value_with_every_special_character_reads_back_whole():
    """Regression: `:` was not escaped in refactor's properties, `,` nowhere in review's."""
    line = workflow_command("error", HOSTILE, file=HOSTILE, line=3, title="t: x, y")
    name, properties, message = parse_command(line)
    assert (name, properties, message) == (
        "error",
        {"file": HOSTILE, "line": "3", "title": "t: x, y"},
        HOSTILE,
    )
    assert "\n" not in line


def test_a_property_left_as_none_is_left_out():
    assert workflow_command("warning", "m", file=None, line=None) == "::warning::m"


def render(text: str) -> str:
    return MarkdownIt("commonmark").enable("table").render(text)


def test_a_code_span_holds_any_backtick_run_and_no_html():
    for text in ("`", "``a``", "a ` b", "<script>x</script>", "x`"):
        assert render(code_span(text)) == f"<p><code>{_html(text)}</code></p>\n"


def test_a_code_block_outlasts_the_fences_inside_it():
    text = "```\n</details>\n````"
    assert render(code_block(text)) == f"<pre><code>{_html(text)}\n</code></pre>\n"


def test_plain_text_shows_markdown_and_html_as_written():
    text = "*not bold* [link](x) <b>b</b> `tick | _u_"
    assert render(plain(text)) == f"<p>{_html(text)}</p>\n"


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
