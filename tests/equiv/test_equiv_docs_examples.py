"""docs/refactoring.md's `guardcheck equiv` examples run as written (issue 23, point 9).

Regression guard: they failed with "no module named 'target_app'" after the
README's install unless PYTHONPATH was set. Each `$ guardcheck equiv ...` of the
equiv part (everything before "# Verifying a whole refactor") runs in a real
process, without PYTHONPATH, in the folder its `$ cd` put it, and must print
exactly what the page shows.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "refactoring.md"
EQUIV_PART_END = "# Verifying a whole refactor"


@dataclass(frozen=True)
class Example:
    folder: Path
    command: str
    output: str


def examples() -> list[Example]:
    """Every command of the equiv part's console blocks, with the folder it runs in."""
    text = PAGE.read_text(encoding="utf-8").split(EQUIV_PART_END, 1)[0]
    found: list[Example] = []
    folder = REPO
    for block in re.findall(r"```console\n(.*?)```", text, flags=re.DOTALL):
        lines = block.splitlines()
        index = 0
        while index < len(lines):
            command = lines[index].removeprefix("$ ")
            while command.endswith("\\"):
                index += 1
                command = command[:-1].rstrip() + " " + lines[index].strip()
            index += 1
            output = []
            while index < len(lines) and not lines[index].startswith("$ "):
                output.append(lines[index])
                index += 1
            if command.startswith("cd "):
                folder = (folder / command[3:].strip()).resolve()
            else:
                found.append(Example(folder, command, "\n".join(output)))
    return found


def _has_history(depth: int) -> bool:
    done = subprocess.run(
        ["git", "rev-parse", "--verify", "--quiet", f"HEAD~{depth}"],
        cwd=REPO,
        capture_output=True,
        check=False,
    )
    return done.returncode == 0


@pytest.mark.slow  # each example is a real guardcheck process
@pytest.mark.parametrize("example", examples(), ids=lambda e: e.command.split(" ", 2)[-1][:60])
def test_equiv_example_prints_what_the_page_shows(example):
    words = shlex.split(example.command)
    assert words[:2] == ["guardcheck", "equiv"], example.command
    if any("@HEAD~2" in word for word in words) and not _has_history(2):
        pytest.skip("a shallow checkout has no HEAD~2")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [sys.executable, "-m", "guardcheck", *words[1:]],
        cwd=example.folder,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert done.stderr == ""
    assert done.stdout.rstrip("\n") == example.output
    agreed = example.output.splitlines()[-1].startswith(("no disagreement", "no divergence"))
    assert done.returncode == (0 if agreed else 1)


def test_the_page_has_equiv_examples_in_two_folders():
    """The parser above found the examples it is meant to run (a broken parse runs none)."""
    found = examples()
    assert len(found) >= 5
    assert {e.folder for e in found} == {REPO, REPO / "tests/fixtures/projects/equiv_gates"}
