"""Global options work before and after the subcommand, and every subcommand lists them."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from guardcheck.commands.main import main


@pytest.fixture
def ladder(project):
    return project("ladder")


def invoke(*args: str):
    """guardcheck ARGS in the current folder (the tests chdir into the project)."""
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_catalogue_before_and_after_the_subcommand_give_the_same_result(ladder, monkeypatch):
    """Regression: `guardcheck check --catalogue X` was a usage error (no such option)."""
    monkeypatch.chdir(ladder)
    bad = str(ladder / "nowhere.toml")
    before = invoke("--catalogue", bad, "check")
    after = invoke("check", "--catalogue", bad)
    assert before.exit_code == after.exit_code == 2
    assert before.output == after.output
    assert "nowhere.toml does not exist" in after.output
    good = invoke("check", "--catalogue", str(ladder / "mutations"))
    assert good.exit_code == 0, good.output


def test_the_subcommands_value_wins_over_the_groups(ladder, monkeypatch):
    monkeypatch.chdir(ladder)
    done = invoke("--catalogue", str(ladder / "nowhere.toml"), "check", "--catalogue", "mutations")
    assert done.exit_code == 0, done.output


@pytest.mark.parametrize("command", ["run", "check", "list", "show", "apply", "sweep"])
def test_every_subcommand_help_lists_the_global_options(command):
    done = CliRunner().invoke(main, [command, "--help"])
    assert done.exit_code == 0
    assert "--root" in done.output
    assert "--catalogue" in done.output


def test_outside_a_project_says_so_with_the_fix(tmp_path, monkeypatch):
    """Regression: outside any project the error was "catalogue path mutations does not
    exist", which hides that there is no pyproject.toml at all."""
    monkeypatch.chdir(tmp_path)
    done = CliRunner().invoke(main, ["check"], catch_exceptions=False)
    assert done.exit_code == 2
    assert "no pyproject.toml" in done.output
    assert "--root PATH" in done.output
