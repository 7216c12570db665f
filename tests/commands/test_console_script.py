"""The `guardcheck` console script (`commands.main:cli`): exit codes and flushed output.

`cli` leaves by os._exit, skipping the interpreter's teardown; these tests guard what
that must not lose: the exit status of every kind of SystemExit and output still
buffered in a pipe.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from guardcheck.commands.main import _exit_status

SCRIPT = Path(sys.executable).parent / "guardcheck"


@pytest.mark.parametrize(("code", "status"), [(None, 0), (0, 0), (2, 2), (4, 4), (256 + 3, 3)])
def test_exit_status_follows_the_interpreters_rule_for_numbers(code, status):
    assert _exit_status(code) == status


def test_a_message_as_exit_code_is_printed_and_exits_1(capsys):
    assert _exit_status("no such project") == 1
    assert capsys.readouterr().err == "no such project\n"


@pytest.mark.skipif(not SCRIPT.exists(), reason="guardcheck is not installed in this venv")
def test_piped_output_is_complete_and_the_status_kept(project):
    """Regression guard for the quick exit: the installed script's output reaches a
    pipe whole, and each command's own exit status is the process's."""
    root = project("ladder")
    listed = subprocess.run(
        [str(SCRIPT), "list", "--json"], cwd=root, capture_output=True, text=True, check=False
    )
    assert listed.returncode == 0, listed.stderr
    assert json.loads(listed.stdout)["mutations"]
    missing = subprocess.run(
        [str(SCRIPT), "--catalogue", "nowhere.toml", "check"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert missing.returncode == 2
    assert "nowhere.toml does not exist" in missing.stderr
