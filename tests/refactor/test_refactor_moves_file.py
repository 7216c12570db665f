"""moves.toml: every problem with its file:line and a fix, as a usage error (exit 2)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from guardcheck.commands.main import main
from guardcheck.errors import GuardcheckError
from guardcheck.refactor.moves_file import load_moves


def write(tmp_path, text):
    (tmp_path / "pkg").mkdir(exist_ok=True)
    (tmp_path / "pkg" / "state.py").write_text("")
    path = tmp_path / "moves.toml"
    path.write_text(text)
    return path


def problems(tmp_path, text):
    with pytest.raises(GuardcheckError) as caught:
        load_moves(write(tmp_path, text), tmp_path)
    assert int(caught.value.code) == 2
    return str(caught.value)


def test_a_good_table_reads_with_defaults(tmp_path):
    path = write(
        tmp_path,
        '[[move]]\nold = "Runner._agents"\nallowed_in = ["pkg/state.py", '
        '"Runner._agents"]\nview = "pkg.views:make"\n',
    )
    (move,) = load_moves(path, tmp_path).moves
    assert move.reference == "builtins:dict"
    assert move.allowed_files == ("pkg/state.py",)
    assert move.allowed_names == ("Runner._agents",)
    assert move.line == 1


def test_unknown_key_names_its_line_and_the_close_match(tmp_path):
    message = problems(tmp_path, '[[move]]\nold = "a"\n\n[[move]]\nold = "b"\nalowed_in = []\n')
    assert message.endswith(
        ":6: unknown key `alowed_in` in [[move]]\n  fix: did you mean `allowed_in`?"
    )


def test_every_problem_is_reported_together(tmp_path):
    message = problems(tmp_path, '[[move]]\nnew = "x"\nmethods = "pop"\n')
    lines = message.splitlines()
    assert lines[0].endswith("moves.toml:1: [[move]] has no `old`")
    assert lines[2].endswith("moves.toml:3: `methods` = 'pop' is not valid")
    assert "`methods` needs a `view` to compare" in message


def test_a_missing_allowed_file_and_a_malformed_view(tmp_path):
    message = problems(
        tmp_path, '[[move]]\nold = "a"\nallowed_in = ["pkg/gone.py"]\nview = "not a target"\n'
    )
    assert ":3: allowed_in names `pkg/gone.py`, which does not exist" in message
    assert ":4: `view` = 'not a target' is not valid" in message


def test_toml_syntax_error_and_an_empty_table(tmp_path):
    assert "not valid TOML" in problems(tmp_path, "[[move]\n")
    assert "no [[move]] or [[accept]] entries" in problems(tmp_path, "# nothing yet\n")


def test_a_file_of_accept_tables_alone_reads(tmp_path):
    path = write(
        tmp_path,
        '[[accept]]\ntest = "tests/test_a.py::test_table"\nreason = "the table grew"\n',
    )
    table = load_moves(path, tmp_path)
    assert table.moves == ()
    ((accept),) = table.accepts
    assert (accept.test, accept.reason, accept.line) == (
        "tests/test_a.py::test_table",
        "the table grew",
        1,
    )


def test_an_accept_needs_a_test_id_and_a_reason(tmp_path):
    message = problems(
        tmp_path,
        '[[move]]\nold = "a"\n\n[[accept]]\ntest = "test_table"\nreason = " "\nwhy = "x"\n',
    )
    assert ":7: unknown key `why` in [[accept]]" in message
    assert ":5: [[accept]] needs `test`, a pytest node id of a base test" in message
    assert ":6: [[accept]] needs a non-empty `reason`" in message
    assert message.count("fix:") == 3


def test_the_command_exits_2_with_the_problem_before_touching_git(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    write(tmp_path, '[[move]]\nold = "a"\nexamples = 0\n')
    result = CliRunner().invoke(
        main, ["refactor", "--root", str(tmp_path), "--moves", str(tmp_path / "moves.toml")]
    )
    assert result.exit_code == 2
    assert "moves.toml:3: `examples` = 0 is not valid" in result.output
    assert "fix: a whole number of call sequences >= 1" in result.output


def test_outside_a_git_repository_is_a_usage_error(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    result = CliRunner().invoke(main, ["refactor", "--root", str(tmp_path), "--base", "HEAD"])
    assert result.exit_code == 2
    assert "is not inside a git repository" in result.output


@pytest.mark.parametrize(
    "args",
    [
        ["--equiv-examples", "0"],
        ["--only", "nope"],
        ["--fail-on", "names"],
        ["--moves", "no-such-moves.toml"],
    ],
)
def test_every_usage_error_of_the_command_has_a_fix_line(tmp_path, args):
    """Issue 23: click's own usage errors (a bad choice, a number out of range) had none."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    result = CliRunner().invoke(main, ["refactor", "--root", str(tmp_path), *args])
    assert result.exit_code == 2
    assert "\n  fix: " in result.output
    assert "Traceback" not in result.output
