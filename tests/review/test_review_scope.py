"""Which mutants and tests a change puts in scope: pure parts of guardcheck.review."""

from __future__ import annotations

from support.review import PROJECTS, copy_tree

from guardcheck.model import FileChange, Mutant, Where
from guardcheck.review.audit import lint_flags
from guardcheck.review.diff import Change, functions_of
from guardcheck.review.scope import changed_tests, likeliest_per_line, rank

SOURCE = """\
import pytest


@pytest.mark.parametrize("n", [1])
def test_one(n):
    assert n


class TestGroup:
    def test_two(self):
        def helper():
            return 1

        assert helper()
"""


def mutant(line: int, mutator: str, summary: str) -> Mutant:
    where = Where("app.py", line)
    return Mutant(
        f"app.py:{line}: {summary}",
        summary,
        (FileChange("app.py", "a", "b", where),),
        mutator=mutator,
    )


def test_a_comparison_swap_outranks_arithmetic_which_outranks_a_string():
    comparison = mutant(3, "swap-op", "replace `<` with `<=`")
    arithmetic = mutant(3, "swap-op", "replace `+` with `-`")
    text = mutant(3, "string", 'replace `"a"` with `"XXaXX"`')
    assert rank(comparison) < rank(arithmetic) < rank(text)


def test_one_mutant_per_line_keeps_the_likeliest():
    kept = likeliest_per_line(
        [
            mutant(3, "string", "replace `'a'` with `'XXaXX'`"),
            mutant(3, "number", "replace `1` with `2`"),
            mutant(4, "string", "replace `'b'` with `'XXbXX'`"),
        ]
    )
    assert [(m.span.line, m.mutator) for m in kept] == [(3, "number"), (4, "string")]


def test_functions_span_their_decorators_and_nest_by_qualified_name():
    found = {f.qualname: (f.start, f.end) for f in functions_of("tests/test_x.py", SOURCE)}
    assert found == {
        "test_one": (4, 6),
        "TestGroup.test_two": (10, 14),
        "TestGroup.test_two.helper": (11, 12),
    }


def test_a_changed_decorator_changes_the_test_and_helpers_are_not_tests():
    path = "tests/test_x.py"
    change = Change({path: {4, 12}}, {path: functions_of(path, SOURCE)})
    assert [t.nodeid() for t in changed_tests(change)] == [
        "tests/test_x.py::test_one",
        "tests/test_x.py::TestGroup::test_two",
    ]


def test_a_static_source_reading_finding_is_attributed_to_its_test(tmp_path):
    copy_tree(PROJECTS / "review_shop" / "base", tmp_path)
    copy_tree(PROJECTS / "review_shop" / "change", tmp_path)
    flagged = lint_flags(tmp_path, ["tests/test_shipping.py", "tests/test_pricing.py"])
    assert list(flagged) == ["tests/test_shipping.py::test_paid_shipping_matches_its_source"]
    assert flagged["tests/test_shipping.py::test_paid_shipping_matches_its_source"].startswith(
        "line 15: "
    )
