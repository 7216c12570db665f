"""Splices: the one record of a mutation, and everything derived from it."""

from __future__ import annotations

import itertools
import subprocess

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from guardcheck.splices import (
    LineIndex,
    Splice,
    apply_splices,
    changed_lines,
    compose,
    location,
    unified_diff,
    whole_text_splice,
)

SIGN = "def sign(x):\n    if x < 0: return -1\n    return x * 2\n"


@st.composite
def text_and_splices(draw: st.DrawFn) -> tuple[str, list[Splice]]:
    lines = draw(st.lists(st.sampled_from(["a\n", "bb\n", "  c = 1\n", "\n", "dd"]), max_size=12))
    text = "".join(lines)
    cuts = sorted(draw(st.lists(st.integers(0, len(text)), max_size=6)))
    splices = []
    for start, end in zip(cuts[::2], cuts[1::2], strict=False):
        new = draw(st.sampled_from(["", "X", "new\n", "p\nq\n", text[start:end] + "Z"]))
        splices.append(Splice(start, end, new))
    return text, splices


@pytest.mark.slow
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text_and_splices())
def test_the_diff_applies_with_git_to_give_the_mutated_text(tmp_path_factory, case):
    """The unified diff is built from splices alone; git must agree it is a real diff."""
    original, splices = case
    mutated = apply_splices(original, splices)
    assume(mutated != original)
    folder = tmp_path_factory.mktemp("apply")
    (folder / "f.py").write_text(original, encoding="utf-8")
    patch = unified_diff("f.py", original, splices)
    done = subprocess.run(
        ["git", "apply", "--unsafe-paths", "-"],
        cwd=folder,
        input=patch,
        text=True,
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr + patch
    assert (folder / "f.py").read_text(encoding="utf-8") == mutated


def test_diff_has_three_lines_of_context_and_unified_headers():
    original = "".join(f"line{i}\n" for i in range(1, 11))
    start = original.index("line5")
    diff = unified_diff("m.py", original, [Splice(start, start + 5, "LINE5")])
    assert diff.splitlines() == [
        "--- a/m.py",
        "+++ b/m.py",
        "@@ -2,7 +2,7 @@",
        " line2",
        " line3",
        " line4",
        "-line5",
        "+LINE5",
        " line6",
        " line7",
        " line8",
    ]


def test_an_inserted_statement_selects_the_lines_around_it():
    """Regression (sound-verdicts case 2): an insertion was attributed only to the line before
    it, so tests that run the line after it were never selected."""
    at = SIGN.index("    return x * 2")
    splice = Splice(at, at, "    x = x + 1\n")
    assert changed_lines(LineIndex(SIGN), [splice]) == {2, 3}


def test_a_replaced_statement_selects_its_own_line():
    at = SIGN.index("    return x * 2")
    end = len(SIGN)
    splice = Splice(at, end, "    x = x + 1\n    return x * 2\n")
    assert changed_lines(LineIndex(SIGN), [splice]) == {3}


@given(st.text("ab\n", max_size=20), st.data())
def test_composed_splices_reproduce_chained_edits(original, data):
    text, record = original, ()
    for _ in range(data.draw(st.integers(1, 3))):
        start = data.draw(st.integers(0, len(text)))
        end = data.draw(st.integers(start, len(text)))
        later = Splice(start, end, data.draw(st.sampled_from(["", "X", "yy\n"])))
        record = compose(original, record, later)
        text = apply_splices(text, [later])
        assert apply_splices(original, record) == text
        assert all(a.end <= b.start for a, b in itertools.pairwise(record))


def test_whole_text_splice_is_the_span_between_common_prefix_and_suffix():
    assert whole_text_splice("return a + b\n", "return a - b\n") == Splice(9, 10, "-")


def test_location_trims_the_indentation_and_newline_a_statement_splice_carries():
    at = SIGN.index("    return x * 2")
    found = location(LineIndex(SIGN), Splice(at, len(SIGN), "    return x\n"))
    assert (found.start, found.end, found.replacement) == ((3, 5), (3, 17), "return x")


def test_a_diff_of_a_file_without_final_newline_says_so():
    diff = unified_diff("m.py", "a = 1", [Splice(4, 5, "2")])
    assert diff.endswith(
        "-a = 1\n\\ No newline at end of file\n+a = 2\n\\ No newline at end of file\n"
    )


def test_nothing_to_diff_when_there_is_no_splice():
    assert unified_diff("m.py", "a = 1\n", []) == ""
