"""Text from the project (file names, test ids, source lines, failure messages) made safe to
embed in GitHub workflow commands and in Markdown.

Everything here is pure and imports nothing of guardcheck: the run's Markdown, the review's
and the refactor's reports share it, so one rule decides what a hostile name can reach.
"""

from __future__ import annotations

import html
import re

# -- GitHub workflow commands (`::warning file=...,line=...::message`) -----------------


def command_data(text: str) -> str:
    """A command's message: `%`, CR and LF escaped (GitHub's rule for the data part)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def command_property(text: str) -> str:
    """A property value: the message rule plus `:` and `,`, which end a value otherwise."""
    return command_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_command(name: str, message: str, **properties: object) -> str:
    """`::name key=value,...::message`, every value and the message escaped; None skipped."""
    props = ",".join(
        f"{key}={command_property(str(value))}"
        for key, value in properties.items()
        if value is not None
    )
    return f"::{name}{' ' + props if props else ''}::{command_data(message)}"


# -- Markdown (CommonMark and GitHub's tables) -------------------------------------------

# Markdown punctuation that can start or end formatting, a link or a code span; `|` splits a
# table cell. A backslash before any ASCII punctuation shows the character itself.
_MARKDOWN_PUNCTUATION = re.compile(r"([\\`*_\[\]|~!#])")


_LINE_BREAKS = re.compile(r"[\r\n]+")


def one_line(text: str) -> str:
    """Every run of whitespace, newlines included, as one space."""
    return " ".join(text.split())


def plain(text: str) -> str:
    """Text shown as written: one line, HTML escaped, Markdown punctuation escaped."""
    escaped = html.escape(one_line(text), quote=False)
    return _MARKDOWN_PUNCTUATION.sub(r"\\\1", escaped)


def plain_with_code(text: str) -> str:
    """Text whose `backticked` parts stay code ("replace `>` with `>=`"), all of it escaped;
    with unbalanced backticks, all of it plain."""
    parts = one_line(text).split("`")
    if len(parts) % 2 == 0:
        return plain(text)
    return "".join(code_span(part) if i % 2 else plain(part) for i, part in enumerate(parts))


def _longest_backtick_run(text: str) -> int:
    return max((len(run) for run in re.findall(r"`+", text)), default=0)


def code_span(text: str, *, in_table: bool = False) -> str:
    """Inline code on one line (line breaks become spaces, other spacing is kept), its fence
    longer than any backtick run in it.

    CommonMark shows a code span's content literally (no HTML, no formatting); padding
    with a space lets the content start or end with a backtick. In a table cell `|` must be
    escaped even inside code (GitHub splits the row first, then drops the backslash).
    """
    text = _LINE_BREAKS.sub(" ", text)
    if not text.strip():
        return ""
    longest = _longest_backtick_run(text)
    fence = "`" * (longest + 1)
    pad = " " if longest or text.startswith(" ") else ""
    if in_table:
        text = text.replace("|", "\\|")
    return f"{fence}{pad}{text}{pad}{fence}"


def code_block(text: str, language: str = "") -> str:
    """A fenced block whose fence is longer than any backtick run in `text` (at least 3)."""
    fence = "`" * max(3, _longest_backtick_run(text) + 1)
    return f"{fence}{language}\n{text.rstrip()}\n{fence}"


def html_code(text: str) -> str:
    """Code inside HTML (a `<summary>`, where GitHub renders no Markdown)."""
    return f"<code>{html.escape(one_line(text))}</code>"


def html_text(text: str) -> str:
    return html.escape(one_line(text))
