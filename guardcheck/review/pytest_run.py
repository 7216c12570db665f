"""A plain `python -m pytest` in a subprocess: the pinning run and the audit run.

Both are independent of the lab: a fresh pytest in a given folder over named
node ids, results read back from JUnit XML (xunit1 records each case's file).
"""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from guardcheck import pytestrun
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
        args = [
            *(arg for plugin in plugins for arg in ("-p", plugin)),
            "-q",
            *pytestrun.junit_args(xml_path),
            *extra,
            *nodeids,
        ]
        try:
            done = pytestrun.run(root, args, timeout=timeout, env=env)
        except subprocess.TimeoutExpired:
            raise GuardcheckError(
                f"pytest did not finish within {timeout:.0f} s in {root}"
            ) from None
        outcomes = _parse(xml_path) if xml_path.is_file() else []
        return done.returncode, outcomes, done.tail


def _parse(xml_path: Path) -> list[Outcome]:
    outcomes = []
    for case in pytestrun.junit_cases(xml_path):
        bad = any(case.find(tag) is not None for tag in ("failure", "error", "skipped"))
        outcomes.append(Outcome(pytestrun.junit_nodeid(case), passed=not bad))
    return outcomes
