"""A sweep on a file with a UTF-8 BOM, end to end: its verdicts are those of the mutants
applied by hand, and its survivors, emitted as catalogue entries, run and apply right.

Regression (issue 22 case 7): every splice of such a sweep was one character early
(`return x + 1` became `returnx - 1`, a NameError), so true survivors were reported
caught, and `review`, which uses the sweep's operators, inherited it.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from support.projects import commit, git, write_files
from support.verdicts import guardcheck, guardcheck_run, suite_outcomes, tracked_bytes

from guardcheck.splices import encode_source
from guardcheck.sweep import generate

pytestmark = pytest.mark.slow

OPS = "\ufeffdef bump(x): return x + 1\n\n\ndef big(x):\n    return x > 10\n"
PROJECT = {
    "pkg/__init__.py": "",
    "pkg/ops.py": OPS,
    "tests/test_ops.py": (
        "from pkg.ops import big, bump\n\n\n"
        "def test_bump():\n    assert bump(1) == 2\n\n\n"
        "def test_big():\n    assert big(20) and not big(0)\n"
    ),
    "pyproject.toml": (
        '[tool.guardcheck]\nsource = ["pkg"]\ntests = ["tests"]\n\n'
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'
    ),
}


def statuses(report: Path) -> dict[str, str]:
    data: dict[str, Any] = json.loads(report.read_text(encoding="utf-8"))
    return {
        m["guardcheck"]["id"]: m["status"] for f in data["files"].values() for m in f["mutants"]
    }


def caught_by_hand(root: Path, scratch: Path, path: str, mutated: str) -> bool:
    """The mutant written into a fresh copy of the project; does plain pytest fail?"""
    copy = scratch / "hand"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".git", ".guardcheck"))
    (copy / path).write_bytes(encode_source(mutated))
    return "failed" in suite_outcomes(copy).values()


def test_a_bom_files_sweep_run_and_apply_give_the_hand_applied_verdicts(tmp_path):
    root = commit(write_files(tmp_path / "project", PROJECT))
    assert (root / "pkg/ops.py").read_bytes().startswith(b"\xef\xbb\xbf")
    before = tracked_bytes(root)
    done = guardcheck(
        root,
        "sweep",
        "pkg",
        "--json",
        str(tmp_path / "sweep.json"),
        "--emit-catalogue",
        str(tmp_path / "survivors.toml"),
    )
    assert done.returncode == 1, done.stdout + done.stderr  # some survive: gate failed
    swept = statuses(tmp_path / "sweep.json")
    mutants = generate(root, ["pkg"]).mutants
    assert sorted(swept) == sorted(m.id for m in mutants)
    assert "pkg/ops.py:1:23: replace + with -" in swept  # line 1: the BOM is not a column
    by_hand = {
        m.id: caught_by_hand(root, tmp_path, "pkg/ops.py", m.changes[0].mutated) for m in mutants
    }
    assert {i: s == "Killed" for i, s in swept.items()} == by_hand
    assert {i for i, s in swept.items() if s == "Survived"} == {
        "pkg/ops.py:5:16: replace 10 with 11",
        "pkg/ops.py:5:14: replace > with >=",
    }

    # The survivors as catalogue entries: `run` agrees, and `apply` writes the hand-applied bytes.
    (root / "mutations").mkdir()
    shutil.copy(tmp_path / "survivors.toml", root / "mutations" / "survivors.toml")
    commit(root)
    _, ran = guardcheck_run(root, tmp_path / "run.json")
    assert {m["status"] for m in ran.values()} == {"Survived"}
    assert len(ran) == 2
    applied = guardcheck(root, "apply", "todo-ops-5-14-swap-op")
    assert applied.returncode == 0, applied.stdout + applied.stderr
    expected = OPS.replace("x > 10", "x >= 10").encode("utf-8")
    assert (root / "pkg/ops.py").read_bytes() == expected
    assert "failed" not in suite_outcomes(root).values()
    reverted = guardcheck(root, "apply", "--revert", "todo-ops-5-14-swap-op")
    assert reverted.returncode == 0, reverted.stdout + reverted.stderr
    git(root, "rm", "-rq", "mutations")
    shutil.rmtree(root / "mutations", ignore_errors=True)
    assert tracked_bytes(root) == before


LABEL = '# -*- coding: latin-1 -*-\ndef label(x):\n    return "café" if x > 10 else "no"\n'


def test_review_of_a_change_to_bom_and_latin1_files_gives_the_hand_applied_verdicts(tmp_path):
    """`review` takes the sweep's operator mutants on the changed lines: on a BOM file they
    were shifted (issue 22 case 7), and a file with a latin-1 coding cookie was an internal
    error (UnicodeDecodeError) instead of being read in its encoding (issue 24 point 8)."""
    files = {**PROJECT, "tests/test_lab.py": "def test_nothing():\n    pass\n"}
    root = commit(write_files(tmp_path / "project", files))
    (root / "pkg/lab.py").write_bytes(LABEL.encode("latin-1"))
    commit(root, "base")
    changed = OPS.replace("x + 1", "x + 2")
    (root / "pkg/ops.py").write_bytes(changed.encode("utf-8"))
    (root / "pkg/lab.py").write_bytes(LABEL.replace("> 10", "> 12").encode("latin-1"))
    (root / "tests/test_ops.py").write_text(
        PROJECT["tests/test_ops.py"].replace("bump(1) == 2", "bump(1) == 3"), encoding="utf-8"
    )
    commit(root, "change")
    done = guardcheck(root, "review", "--base", "HEAD~1", "--json", str(tmp_path / "r.json"))
    assert done.returncode in (0, 1), done.stdout + done.stderr
    review = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    on_changed_lines = generate(root, ["pkg"], changed_lines={"pkg/ops.py": {1}, "pkg/lab.py": {3}})
    assert sorted(review["in_scope"]) == sorted(m.id for m in on_changed_lines.mutants)
    assert "pkg/ops.py:1:23: replace + with -" in review["in_scope"]
    assert "pkg/lab.py:3:24: replace > with >=" in review["in_scope"]
    by_id = {m.id: m.changes[0] for m in on_changed_lines.mutants}
    verdicts = {row["mutant_id"]: row["caught"] for row in review["matrix"]}
    by_hand = {
        i: caught_by_hand(root, tmp_path, change.path, change.mutated)
        for i, change in by_id.items()
    }
    assert verdicts == by_hand
    assert not all(by_hand.values())  # the latin-1 file's changed line has no test at all
