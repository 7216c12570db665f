"""Which mutants and tests a change puts in scope: pure parts of guardcheck.review."""

from __future__ import annotations

from support.review import PROJECTS, copy_tree

from guardcheck.model import FileChange, Mutant, Where
from guardcheck.review.audit import lint_flags
from guardcheck.review.diff import Change, functions_of
from guardcheck.review.scope import changed_tests, sample

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


def line_of_mutants(line: int, count: int) -> list[Mutant]:
    return [mutant(line, "swap-op", f"mutation {i}") for i in range(count)]


def test_under_the_cap_every_mutant_of_every_line_is_kept():
    """Regression: review ran one ranked mutant per line and missed the off-by-one beside it."""
    mutants = line_of_mutants(3, 4) + line_of_mutants(7, 2)
    assert sample(mutants, 6, seed=0) == mutants


def test_a_capped_sample_reaches_every_line_before_any_line_gets_two():
    mutants = line_of_mutants(3, 5) + line_of_mutants(4, 5) + line_of_mutants(9, 5)
    kept = sample(mutants, 4, seed=1)
    lines = [m.span.line for m in kept]
    assert len(kept) == 4
    assert sorted(set(lines)) == [3, 4, 9]
    assert [m for m in mutants if m in kept] == kept  # generated order kept


def test_the_sample_is_the_same_for_the_same_seed_and_moves_with_another():
    mutants = line_of_mutants(3, 10) + line_of_mutants(5, 10)
    assert sample(mutants, 5, seed=7) == sample(mutants, 5, seed=7)
    draws = {tuple(m.summary for m in sample(mutants, 5, seed=s)) for s in range(5)}
    assert len(draws) > 1


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
