"""`guardcheck lint-tests` through click: output, --json, defaults and exit codes."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from guardcheck.commands.main import main

SMELL = "def test_it():\n    assert True\n"


def run_cli(root: Path, *args: str):
    return CliRunner().invoke(main, ["--root", str(root), "lint-tests", *args])


def test_findings_exit_1_with_one_line_each_and_a_fix(tmp_path: Path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_a.py").write_text(SMELL)
    result = run_cli(tmp_path, str(tmp_path / "tests"))
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "tests/test_a.py:2:5: tautology: asserts True, which is always true",
        "  fix: assert on a value the code under test produced",
        "1 finding(s) in 1 file(s)",
    ]


def test_clean_exits_0(tmp_path: Path):
    (tmp_path / "test_a.py").write_text("def test_x():\n    assert 1 + 1 == 2\n")
    result = run_cli(tmp_path, str(tmp_path))
    assert result.exit_code == 0
    assert result.stdout == "no findings in 1 file(s)\n"


def test_missing_path_exits_2(tmp_path: Path):
    result = run_cli(tmp_path, str(tmp_path / "nope"))
    assert result.exit_code == 2
    assert "no such file or folder" in result.stderr


def test_json_prints_the_report_and_keeps_the_exit_code(tmp_path: Path):
    (tmp_path / "test_a.py").write_text(SMELL)
    result = run_cli(tmp_path, "--json", str(tmp_path))
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["version"] == 1
    assert data["files"] == 1
    assert [(f["path"], f["line"], f["rule"]) for f in data["findings"]] == [
        ("test_a.py", 2, "tautology")
    ]


def test_paths_default_to_the_configured_tests(tmp_path: Path):
    (tmp_path / "pyproject.toml").write_text('[tool.guardcheck]\ntests = ["checks"]\n')
    (tmp_path / "checks").mkdir()
    (tmp_path / "checks" / "test_a.py").write_text(SMELL)
    (tmp_path / "tests").mkdir()  # not configured, so not read
    (tmp_path / "tests" / "test_b.py").write_text(SMELL)
    result = run_cli(tmp_path)
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0].startswith("checks/test_a.py:2:5: tautology:")
    assert result.stdout.splitlines()[-1] == "1 finding(s) in 1 file(s)"


def test_paths_default_to_tests_without_configuration(tmp_path: Path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_b.py").write_text(SMELL)
    result = run_cli(tmp_path)
    assert result.exit_code == 1
    assert result.stdout.splitlines()[0].startswith("tests/test_b.py:2:5: tautology:")
