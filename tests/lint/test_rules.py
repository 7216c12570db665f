"""Each rule against its fixture: every marked line gives its finding, no other line gives any."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.lint import found, marked, write_tree

from guardcheck.lint import lint_paths

SINGLE_FILE_FIXTURES = ["source_reading", "tautology", "pytest_api", "suppressed"]


@pytest.mark.parametrize("fixture", SINGLE_FILE_FIXTURES)
def test_findings_are_exactly_the_marked_lines(tmp_path: Path, fixture: str):
    write_tree(tmp_path, {f"test_{fixture}.py": f"{fixture}.py.txt"})
    report = lint_paths([tmp_path], tmp_path)
    assert marked(tmp_path)  # the fixture has positive cases, so equality is not vacuous
    assert found(report) == marked(tmp_path)


def test_no_assert_follows_helpers_into_conftests_and_project_modules(tmp_path: Path):
    write_tree(
        tmp_path,
        {
            "conftest.py": "conftest_root.py.txt",
            "pkg/conftest.py": "conftest_pkg.py.txt",
            "pkg/helpers.py": "helpers.py.txt",
            "pkg/test_no_assert.py": "no_assert.py.txt",
        },
    )
    report = lint_paths([tmp_path], tmp_path)
    assert found(report) == marked(tmp_path)
    assert report.files == 3  # two conftests and the test module; helpers.py is not a test file


def test_a_conftest_helper_counts_only_below_that_conftest(tmp_path: Path):
    """Regression guard: a conftest in a sibling folder is not loaded by pytest for
    this test, so its asserting helper must not make the test count as asserting."""
    write_tree(tmp_path, {"other/conftest.py": "conftest_root.py.txt"})
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "test_x.py").write_text(
        "def test_uses_it():\n    check_in_root_conftest(3)\n"
    )
    report = lint_paths([tmp_path / "pkg"], tmp_path)
    assert found(report) == {("pkg/test_x.py", 1, "no-assert")}


def test_recursive_helpers_end(tmp_path: Path):
    """Regression guard: helpers that call each other must end (cycle protection),
    and a cycle reaching an assertion still counts."""
    (tmp_path / "test_cycle.py").write_text(
        "def a(n):\n    return b(n)\n\n"
        "def b(n):\n    if n:\n        return a(n - 1)\n    c()\n\n"
        "def c():\n    assert a\n\n"
        "def test_cycle():\n    a(3)\n"
    )
    assert lint_paths([tmp_path], tmp_path).findings == ()


def test_reading_back_a_py_file_the_test_wrote_is_not_source_reading(tmp_path: Path):
    """Regression: the first version flagged guardcheck's own apply/revert tests, which
    read `project / "app" / "ladder.py"` in a scratch project to prove what was written."""
    (tmp_path / "test_scratch.py").write_text(
        "def test_it(project, tmp_path):\n"
        '    target = project / "app" / "ladder.py"\n'
        "    assert target.read_bytes()\n"
        '    assert (tmp_path / "m.py").read_text()\n'
    )
    assert lint_paths([tmp_path], tmp_path).findings == ()
