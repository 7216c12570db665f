"""Which tests read source files while they run: the audit plugin's record, and the lint's.

Dynamic: a plain pytest over the tests in scope with `-p guardcheck.child.audit`
(see that module), outside the lab, so it sees the user's pytest as it is.
Static: `lint-tests`' `source-reading` findings, attributed to the test function
they sit in (a finding in a helper or fixture is not attributed: a limit).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path

from guardcheck.errors import GuardcheckError
from guardcheck.lint import lint_paths
from guardcheck.messages import AUDIT_OUT_ENV, AUDIT_ROOTS_ENV
from guardcheck.pipeline.project import read_source
from guardcheck.review.diff import Function, functions_of
from guardcheck.review.pytest_run import run_pytest
from guardcheck.review.scope import is_test_function

PLUGIN = "guardcheck.child.audit"


def opened_sources(
    root: Path, nodeids: Sequence[str], source_roots: Sequence[Path], timeout: float
) -> dict[str, list[str]]:
    """nodeid -> source files (relative to `root` when inside it) it opened in its call phase."""
    if not nodeids:
        return {}
    with tempfile.TemporaryDirectory(prefix="guardcheck-audit-") as scratch:
        out = Path(scratch) / "opened.json"
        env = {
            AUDIT_OUT_ENV: str(out),
            AUDIT_ROOTS_ENV: os.pathsep.join(str(p.resolve()) for p in source_roots),
        }
        _, _, tail = run_pytest(
            root,
            nodeids,
            timeout=timeout,
            plugins=[PLUGIN],
            env=env,
            extra=["--continue-on-collection-errors"],
        )
        if not out.is_file():
            raise GuardcheckError(f"the source-reading audit run wrote no record:\n{tail}")
        raw: dict[str, list[str]] = json.loads(out.read_text(encoding="utf-8"))
    top = root.resolve()
    return {
        nodeid: [_relative(Path(p), top) for p in paths] for nodeid, paths in raw.items() if paths
    }


def _relative(path: Path, top: Path) -> str:
    try:
        return path.relative_to(top).as_posix()
    except ValueError:
        return str(path)


def lint_flags(root: Path, test_files: Sequence[str]) -> dict[str, str]:
    """Function-level test id -> the first `source-reading` lint message inside it."""
    existing = [root / f for f in test_files if (root / f).is_file()]
    if not existing:
        return {}
    report = lint_paths(existing, root)
    functions: dict[str, list[Function]] = {}
    flagged: dict[str, str] = {}
    for finding in report.findings:
        if finding.rule != "source-reading":
            continue
        if finding.path not in functions:
            text = read_source(root, finding.path)
            functions[finding.path] = [
                f for f in functions_of(finding.path, text) if is_test_function(f)
            ]
        for test in functions[finding.path]:
            if test.start <= finding.line <= test.end:
                flagged.setdefault(test.nodeid(), f"line {finding.line}: {finding.message}")
    return flagged
