"""A sweep mutant that compiles to exactly the original's code survives, as it does by hand.

Regression (issue 22, more-itertools 10.5.0, `recipes.py:587:15: replace 1 with 2`):
`while 1:` and `while 2:` compile to the same loop, with no line event of their own,
so no test could show the mutant ran and the verdict was `error` ("no evidence the
mutant was active"). By hand the whole suite passes: nothing catches it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from support.projects import commit, write_files
from support.verdicts import guardcheck, suite_outcomes

from guardcheck.lab.execute.scheduler import EQUIVALENT

pytestmark = pytest.mark.slow

LOOP = (
    "def drain(items):\n"
    "    out = []\n"
    "    while 1:\n"
    "        if not items:\n"
    "            return out\n"
    "        out.append(items.pop())\n"
)
PROJECT = {
    "pkg/__init__.py": "",
    "pkg/loop.py": LOOP,
    "tests/test_loop.py": (
        "from pkg.loop import drain\n\n\ndef test_drain():\n    assert drain([1, 2]) == [2, 1]\n"
    ),
    "pyproject.toml": (
        '[tool.guardcheck]\nsource = ["pkg"]\ntests = ["tests"]\n\n'
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'
    ),
}
WHILE_2 = "pkg/loop.py:3:11: replace 1 with 2"


def verdicts(report: Path) -> dict[str, dict[str, Any]]:
    data: dict[str, Any] = json.loads(report.read_text(encoding="utf-8"))
    return {
        m["guardcheck"]["id"]: m["guardcheck"] for f in data["files"].values() for m in f["mutants"]
    }


def test_a_mutant_the_compiler_folds_away_survives_without_running(tmp_path):
    root = commit(write_files(tmp_path / "project", PROJECT))
    hand = write_files(
        tmp_path / "hand", {**PROJECT, "pkg/loop.py": LOOP.replace("while 1", "while 2")}
    )
    assert set(suite_outcomes(hand).values()) == {"passed"}  # by hand: not caught

    done = guardcheck(
        root, "sweep", "pkg/loop.py", "--no-cache", "--json", str(tmp_path / "s.json")
    )
    assert done.returncode == 1, done.stdout + done.stderr  # a survivor: the gate fails
    verdict = verdicts(tmp_path / "s.json")[WHILE_2]
    assert verdict["verdict"] == "survived", verdict["reason"]
    assert verdict["reason"] == EQUIVALENT
    assert verdict["tests"] == []  # nothing ran: the baseline already ran this program
