"""`guardcheck review` on a real change: each finding, end to end through the CLI."""

from __future__ import annotations

import pytest
from support.git import git
from support.refactor import edit
from support.review import Review, build_shop, review

pytestmark = pytest.mark.slow

SHIPPING = "tests/test_shipping.py"


@pytest.fixture(scope="module")
def uncommitted(tmp_path_factory: pytest.TempPathFactory) -> Review:
    """The change left uncommitted in the working tree; the base is the merge base with main."""
    root = build_shop(tmp_path_factory.mktemp("uncommitted") / "shop", commit_change=False)
    return review(root)


def test_a_survivor_on_a_changed_line_is_reported_with_its_code(uncommitted):
    on_line = {(s["path"], s["line"], s["mutated"]) for s in uncommitted.report["survivors"]}
    assert ("shop/pricing.py", 12, "if total >= 50:") in on_line
    assert "::warning file=shop/pricing.py,line=12::survived: if total >= 50:" in uncommitted.out


def test_a_new_test_without_assertion_that_runs_the_code_is_vacuous(uncommitted):
    assert uncommitted.ids("vacuous") == [f"{SHIPPING}::test_shipping_runs"]


def test_a_test_reading_getsource_is_flagged_and_its_kill_does_not_count(uncommitted):
    reader = f"{SHIPPING}::test_paid_shipping_matches_its_source"
    assert reader in uncommitted.ids("source_reading")
    paid = {s["line"]: s for s in uncommitted.report["survivors"]}[14]
    assert paid["reason"] == f"caught only by source-reading tests: {reader}"


def test_a_new_test_passing_on_the_base_is_unpinned_but_informational(uncommitted):
    assert uncommitted.ids("unpinned") == [
        "tests/test_pricing.py::test_small_totals_keep_their_price"
    ]
    assert "unpinned" not in uncommitted.report["failing"]


def test_a_named_entry_the_change_made_stale_is_listed_with_its_error(uncommitted):
    (stale,) = uncommitted.report["stale"]
    assert (stale["entry_id"], stale["target"]) == ("label-loses-total", "shop/pricing.py")
    assert "stale" in stale["message"]


def test_a_catalogue_entry_counts_only_when_it_touches_a_changed_function(uncommitted):
    assert "free-shipping-later" in uncommitted.report["in_scope"]
    assert "discount-boundary" not in uncommitted.report["in_scope"]
    assert "free-shipping-later" not in {s["mutant_id"] for s in uncommitted.report["survivors"]}


def test_the_caught_mutant_counts_for_its_function_and_names_its_killer(uncommitted):
    rows = {row["qualname"]: row for row in uncommitted.report["functions"]}
    assert rows["shipping"]["killers"] == [f"{SHIPPING}::test_free_shipping_over_fifty"]
    assert rows["shipping"]["caught"] >= 1


def test_acceptance_base_head_1_flags_both_tests_exits_1_and_names_them(tmp_path):
    root = build_shop(tmp_path / "shop", commit_change=True)
    summary = tmp_path / "step-summary.md"
    summary.write_text("earlier step\n")
    done = review(root, "--base", "HEAD~1", summary=summary)
    assert done.code == 1, done.err
    assert f"{SHIPPING}::test_shipping_runs" in done.ids("vacuous")
    assert f"{SHIPPING}::test_paid_shipping_matches_its_source" in done.ids("source_reading")
    assert done.markdown.splitlines()[0].startswith(":x: **guardcheck review** FAIL")
    assert "test_shipping_runs" in done.markdown
    assert "test_paid_shipping_matches_its_source" in done.markdown
    assert summary.read_text() == "earlier step\n" + done.markdown


def test_fail_on_gates_only_the_categories_it_names(tmp_path):
    root = build_shop(tmp_path / "shop", commit_change=True)
    done = review(root, "--base", "HEAD~1", "--fail-on", "unpinned")
    assert (done.code, done.report["failing"]) == (1, ["unpinned"])
    assert "### Survivors on changed lines (informational)" in done.markdown


def test_an_unknown_fail_on_category_is_a_usage_error(tmp_path):
    root = build_shop(tmp_path / "shop", commit_change=True)
    done = review(root, "--fail-on", "survived,slow")
    assert done.code == 2
    assert "unknown slow" in done.err


def test_an_unknown_base_is_a_usage_error(tmp_path):
    root = build_shop(tmp_path / "shop", commit_change=True)
    done = review(root, "--base", "no-such-rev")
    assert done.code == 2
    assert "--base no-such-rev: not a revision" in done.err


def test_a_red_baseline_exits_3(tmp_path):
    root = build_shop(tmp_path / "shop", commit_change=True)
    edit(root, "tests/test_pricing.py", "discount(10) == 10", "discount(10) == 11")
    done = review(root, "--base", "HEAD~1")
    assert done.code == 3, done.err


def test_without_base_or_default_branch_it_is_a_usage_error(tmp_path):
    root = build_shop(tmp_path / "shop", commit_change=True)
    git(root, "branch", "-m", "main", "trunk")
    done = review(root)
    assert done.code == 2
    assert "pass --base REV" in done.err
