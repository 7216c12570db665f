"""What `lint_paths` reports as a whole: which files, in which order, the JSON, parse errors."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.lint import write_tree

from guardcheck.errors import GuardcheckError
from guardcheck.exitcodes import ExitCode
from guardcheck.lint import RULES, lint_paths
from guardcheck.lint.suppress import rules_in

SMELL = "def test_it():\n    assert True\n"


def test_json_has_the_stable_shape(tmp_path: Path):
    (tmp_path / "test_a.py").write_text(SMELL)
    report = lint_paths([tmp_path], tmp_path)
    assert report.as_json() == {
        "version": 1,
        "findings": [
            {
                "path": "test_a.py",
                "line": 2,
                "column": 5,
                "rule": "tautology",
                "message": "asserts True, which is always true",
                "fix": "assert on a value the code under test produced",
            }
        ],
        "files": 1,
    }
    assert report.exit_code is ExitCode.GATE_FAILED


def test_findings_are_sorted_by_file_then_line(tmp_path: Path):
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "test_b.py").write_text(SMELL)
    (tmp_path / "test_a.py").write_text("def test_x():\n    pass\n" + SMELL)
    report = lint_paths([tmp_path / "test_a.py", tmp_path / "b"], tmp_path)
    where = [(f.path, f.line, f.rule) for f in report.findings]
    assert where == [
        ("b/test_b.py", 2, "tautology"),
        ("test_a.py", 1, "no-assert"),
        ("test_a.py", 4, "tautology"),
    ]


def test_only_test_files_and_conftests_are_found(tmp_path: Path):
    for name in ("test_a.py", "b_test.py", "conftest.py", "helpers.py", "test_a.py.txt"):
        (tmp_path / name).write_text("def test_x():\n    pass\n")
    for hidden in (".venv", "__pycache__"):
        (tmp_path / hidden).mkdir()
        (tmp_path / hidden / "test_hidden.py").write_text(SMELL)
    report = lint_paths([tmp_path], tmp_path)
    assert report.files == 3
    # conftest.py is checked but has no collected tests, so no no-assert there.
    assert {f.path for f in report.findings} == {"test_a.py", "b_test.py"}


def test_a_file_named_explicitly_is_checked_whatever_its_name(tmp_path: Path):
    (tmp_path / "checks.py").write_text(SMELL)
    report = lint_paths([tmp_path / "checks.py"], tmp_path)
    assert [(f.path, f.rule) for f in report.findings] == [("checks.py", "tautology")]


def test_a_file_that_does_not_parse_is_a_finding_and_the_others_are_still_checked(
    tmp_path: Path,
):
    write_tree(tmp_path, {"test_broken.py": "broken.py.txt"})
    (tmp_path / "test_ok.py").write_text(SMELL)
    report = lint_paths([tmp_path], tmp_path)
    [broken, smell] = report.findings
    assert (broken.path, broken.line, broken.rule) == ("test_broken.py", 5, "parse-error")
    assert broken.message.startswith("not valid Python, nothing in it was checked")
    assert (smell.path, smell.rule) == ("test_ok.py", "tautology")
    assert report.files == 2


def test_a_missing_path_is_a_usage_error(tmp_path: Path):
    with pytest.raises(GuardcheckError, match=r"no such file or folder: .*nope") as caught:
        lint_paths([tmp_path / "nope"], tmp_path)
    assert caught.value.code is ExitCode.USAGE


def test_a_clean_tree_exits_ok_and_says_so(tmp_path: Path):
    (tmp_path / "test_a.py").write_text("def test_x():\n    assert 1 + 1 == 2\n")
    report = lint_paths([tmp_path], tmp_path)
    assert report.exit_code is ExitCode.OK
    assert report.render() == "no findings in 1 file(s)"


@pytest.mark.parametrize(
    ("comment", "rules"),
    [
        ("# guardcheck: allow tautology", {"tautology"}),
        ("# guardcheck: allow no-assert, tautology -- smoke", {"no-assert", "tautology"}),
        ("# noqa: E501  # guardcheck: allow source-reading (reads our AST)", {"source-reading"}),
        ("# guardcheck: allow", set()),
        ("# an ordinary comment", set()),
    ],
)
def test_allow_comments_name_their_rules(comment: str, rules: set[str]):
    assert rules_in(comment) == rules


def test_every_rule_id_is_documented():
    doc = Path(__file__).parents[2] / "docs" / "lint-tests.md"
    text = doc.read_text(encoding="utf-8")
    assert [rule for rule in RULES if f"`{rule}`" not in text] == []
