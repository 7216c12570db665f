"""A sweep whose mutants cannot be made stops cleanly, though pytest had already started.

Without `--since`, `guardcheck sweep` starts the lab (the private copy, the pytest
host, its baseline) before mutmut's generator runs, so that the two overlap. Bad
input found by the generator then arrives with the host running: the run must
still exit 2 with a clear message, stop every process it started, remove its
scratch folder and leave the project byte-identical.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.processes import wait_until
from support.projects import commit, git_status, write_files
from support.verdicts import tracked_bytes

from guardcheck.lab.sandbox import scratchdir

pytestmark = pytest.mark.slow

PROJECT = {
    "pkg/__init__.py": "",
    "pkg/ops.py": "def double(x):\n    return x * 2\n",
    "tests/test_ops.py": (
        "from pkg.ops import double\n\n\ndef test_double():\n    assert double(3) == 6\n"
    ),
    "pyproject.toml": (
        '[tool.guardcheck]\nsource = ["pkg"]\ntests = ["tests"]\n\n'
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'
    ),
}


def processes_in(root: Path) -> list[int]:
    """Processes whose working directory is inside `root` (the lab's run in its copy)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cwd = os.readlink(f"/proc/{entry}/cwd")
            except OSError:
                continue
            if cwd == str(root) or cwd.startswith(f"{root}/"):
                found.append(int(entry))
    return found


def lab_scratch(parent: Path) -> set[str]:
    """Lab scratch folders in `parent`."""
    return {p for p in os.listdir(parent) if p.startswith("guardcheck-lab-")}


def sweep_fails_cleanly(root: Path) -> subprocess.CompletedProcess[str]:
    """`guardcheck sweep pkg` in root; checks exit 2 and that it left nothing behind.

    Its scratch folder goes to a folder of its own: in the machine's shared
    one, another test's lab running meanwhile made a folder this one did not leave."""
    commit(root)
    parent = root.parent / "scratch"
    parent.mkdir()
    before = tracked_bytes(root)
    done = subprocess.run(
        [sys.executable, "-m", "guardcheck", "sweep", "pkg"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, scratchdir.ENV: str(parent)},
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert wait_until(lambda: not processes_in(root), seconds=5), processes_in(root)
    assert lab_scratch(parent) == set()
    assert tracked_bytes(root) == before
    assert git_status(root) == ""
    return done


def test_an_unknown_arid_rule_is_refused_and_the_started_lab_is_stopped(tmp_path):
    root = write_files(tmp_path / "project", PROJECT)
    pyproject = root / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text(encoding="utf-8").replace(
            'tests = ["tests"]\n', 'tests = ["tests"]\nmutate_arid = ["loging"]\n'
        ),
        encoding="utf-8",
    )
    done = sweep_fails_cleanly(root)
    assert "[tool.guardcheck] mutate_arid: unknown arid rule(s) loging" in done.stderr


def test_an_unclosed_no_mutate_block_is_refused_and_the_lab_is_stopped(tmp_path):
    unclosed = "# pragma: no mutate start\ndef triple(x):\n    return x * 3\n"
    root = write_files(tmp_path / "project", {**PROJECT, "pkg/more.py": unclosed})
    done = sweep_fails_cleanly(root)
    assert "pkg/more.py" in done.stderr
    assert "Missing no mutate end" in done.stderr
