"""A plain `python -m pytest` in a subprocess: the pinning run and the audit run.

Both are independent of the lab: a fresh pytest in a given folder over named
node ids, results read back from JUnit XML (xunit1 records each case's file).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from guardcheck.errors import GuardcheckError


@dataclass(frozen=True)
class Outcome:
    nodeid: str
    passed: bool  # neither failed, errored nor skipped


def run_pytest(
    root: Path,
    nodeids: Sequence[str],
    *,
    timeout: float,
    plugins: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    extra: Sequence[str] = (),
) -> tuple[int, list[Outcome], str]:
    """pytest over `nodeids` in `root`: its exit code, each case's outcome, its output's tail."""
    with tempfile.TemporaryDirectory(prefix="guardcheck-review-junit-") as scratch:
        xml_path = Path(scratch) / "results.xml"
        command = [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",  # never write .pytest_cache into the user's tree
            *(arg for plugin in plugins for arg in ("-p", plugin)),
            "-q",
            "-o",
            "junit_family=xunit1",
            f"--junitxml={xml_path}",
            *extra,
            *nodeids,
        ]
        merged = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", **(env or {})}
        try:
            done = subprocess.run(
                command,
                cwd=root,
                env=merged,
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired:
            raise GuardcheckError(
                f"pytest did not finish within {timeout:.0f} s in {root}"
            ) from None
        tail = "\n".join((done.stdout + done.stderr).strip().splitlines()[-15:])
        outcomes = _parse(xml_path) if xml_path.is_file() else []
        return done.returncode, outcomes, tail


def _nodeid(case: ET.Element) -> str:
    file = case.get("file") or ""
    classname, name = case.get("classname") or "", case.get("name") or ""
    module = file[:-3].replace("/", ".") if file.endswith(".py") else file
    classes = classname[len(module) :].lstrip(".") if classname.startswith(module) else ""
    return "::".join(part for part in (file, *classes.split("."), name) if part)


def _parse(xml_path: Path) -> list[Outcome]:
    outcomes = []
    for case in ET.parse(xml_path).getroot().iter("testcase"):
        bad = any(case.find(tag) is not None for tag in ("failure", "error", "skipped"))
        outcomes.append(Outcome(_nodeid(case), passed=not bad))
    return outcomes
