"""Comparing guardcheck's verdicts with the mutant applied by hand (issue 8's acceptance rule).

`suite_outcomes` runs a project's whole suite with plain pytest (the hand-applied
side); `guardcheck_run` runs `python -m guardcheck run --json` and returns the
report's mutants by id; `tracked_bytes` snapshots a project so a test can check
it is byte-identical afterwards.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from guardcheck.reports.record import decode_selection
from guardcheck.reports.stryker import nodeids_by_id
from support.projects import edit


def tracked_bytes(root: Path) -> dict[str, bytes]:
    """Every file outside guardcheck's own output folder, by relative path."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".guardcheck" not in p.parts and ".git" not in p.parts
    }


def suite_outcomes(root: Path) -> dict[str, str]:
    """Node id -> "passed" or "failed" for the whole suite of the project at root."""
    report = root.parent / f"{root.name}.xml"
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}"],
        cwd=root,
        capture_output=True,
        check=False,
    )
    outcomes = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        nodeid = f"{case.get('classname', '').replace('.', '/')}.py::{case.get('name')}"
        failed = case.find("failure") is not None or case.find("error") is not None
        outcomes[nodeid] = "failed" if failed else "passed"
    return outcomes


def guardcheck(root: Path, *args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    """`python -m guardcheck ARGS...` in root, its output captured as text."""
    return subprocess.run(
        [sys.executable, "-m", "guardcheck", *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def guardcheck_run(
    root: Path, report: Path, *args: str, timeout: float = 120
) -> tuple[subprocess.CompletedProcess[str], dict[str, dict[str, Any]]]:
    """`python -m guardcheck run --json REPORT ARGS...` in root; the JSON's mutants by id."""
    done = guardcheck(root, "run", "--json", str(report), *args, timeout=timeout)
    assert report.exists(), done.stdout + done.stderr
    data = json.loads(report.read_text(encoding="utf-8"))
    mutants = {m["guardcheck"]["id"]: m for f in data["files"].values() for m in f["mutants"]}
    # The report stores each selection against a shared test-id list, and names the
    # tests a mutant ran by their testFiles ids; tests read rows and node ids.
    lists = data["guardcheck"]["selectionTests"]
    names = nodeids_by_id(data)
    for mutant in mutants.values():
        fields = mutant["guardcheck"]
        fields["tests"] = [{**t, "id": names[t["id"]]} for t in fields["tests"]]
        fields["selection"] = [
            {"test": s.nodeid, "selected": s.selected, "reason": s.reason}
            for s in decode_selection(fields["selection"], lists)
        ]
    return done, mutants


def failing_by_hand(root: Path, relative: str, old: str, new: str) -> list[str]:
    """The tests that fail with `old` -> `new` written into `relative` in a copy of root,
    the whole suite run there with plain pytest."""
    copy = root.parent / f"by-hand-{len(list(root.parent.iterdir()))}"
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".git", ".guardcheck"))
    edit(copy / relative, old, new)
    return sorted(n for n, outcome in suite_outcomes(copy).items() if outcome == "failed")


def mutant_log(root: Path, entry: str) -> str:
    """The log guardcheck wrote for a mutant (by its id) in root's output folder."""
    for line in (root / ".guardcheck/outcomes.jsonl").read_text(encoding="utf-8").splitlines():
        outcome = json.loads(line)
        if outcome["id"] == entry:
            return (root / ".guardcheck" / outcome["log"]).read_text(encoding="utf-8")
    raise AssertionError(f"no outcome for {entry}")
