"""`guardcheck refactor`, start to finish short of rendering: set up the trees, run the checks.

The moves file is read first, so a bad one is a usage error before anything
runs. Two detached worktrees of the base are made outside the project: one
as it was, one with today's source overlaid (base tests, current code). They
are removed however the checks end. While the checks run, nothing may write
into the user's tree: bytecode is off and Hypothesis' storage (equiv) goes
to the scratch folder.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from guardcheck.errors import GuardcheckError
from guardcheck.gitbase import base_worktrees, resolve_base
from guardcheck.options import RunOptions, load_options
from guardcheck.refactor.checks.assertions import check_assertions
from guardcheck.refactor.checks.catalogue import check_mutations
from guardcheck.refactor.checks.differential import check_differential
from guardcheck.refactor.checks.moves import check_moves
from guardcheck.refactor.checks.names import check_names
from guardcheck.refactor.checks.old_tests import check_old_tests
from guardcheck.refactor.findings import CheckResult, RefactorReport
from guardcheck.refactor.layout import source_paths
from guardcheck.refactor.moves_file import MovesFile, load_moves
from guardcheck.refactor.request import CHECKS, RefactorRequest
from guardcheck.refactor.trees import Trees
from guardcheck.refactor.worktree import overlay


@contextmanager
def _nothing_written_into_the_project(scratch: Path) -> Iterator[None]:
    before_bytecode = sys.dont_write_bytecode
    before_storage = os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY")
    sys.dont_write_bytecode = True
    if before_storage is None:  # Hypothesis reads it once, at its first storage access
        os.environ["HYPOTHESIS_STORAGE_DIRECTORY"] = str(scratch / "hypothesis")
    try:
        yield
    finally:
        sys.dont_write_bytecode = before_bytecode
        if before_storage is None:
            os.environ.pop("HYPOTHESIS_STORAGE_DIRECTORY", None)


def _options_at(root: Path) -> RunOptions:
    """The base's own [tool.guardcheck]; the defaults when the base's is unreadable."""
    try:
        return load_options(root)
    except GuardcheckError:
        return RunOptions(root=root.resolve())


def _failing_today(report: RefactorReport) -> set[str]:
    """The base tests old-tests already reported failing on today's source."""
    old_tests = report.check("old-tests")
    if old_tests is None:
        return set()
    return {f.message.split(" passes at ", 1)[0] for f in old_tests.findings}


def verify(request: RefactorRequest) -> RefactorReport:
    unknown = [c for c in request.only if c not in CHECKS]
    if unknown:
        raise GuardcheckError(
            f"unknown check(s) {', '.join(unknown)}\n  fix: choose from {', '.join(CHECKS)}"
        )
    if request.equiv_examples < 1:
        raise GuardcheckError(
            f"--equiv-examples {request.equiv_examples}: must be at least 1\n"
            "  fix: pass a whole number of inputs per function, or --no-equiv to skip the check"
        )
    table = MovesFile((), ())
    if request.moves is not None:
        table = load_moves(request.moves, request.root)
    base = resolve_base(request.root, request.base, command="refactor")
    report = RefactorReport(base.label, base.sha, prefix=base.prefix)
    scratch = Path(tempfile.mkdtemp(prefix="guardcheck-refactor-out-"))
    try:
        with _nothing_written_into_the_project(scratch), base_worktrees(base, 2) as (then, mixed):
            then_options = _options_at(then)
            # Today's source replaces the base's, including packages gone or renamed since.
            paths = dict.fromkeys([*source_paths(request.options), *source_paths(then_options)])
            overlay(request.root, mixed, paths)
            trees = Trees(request, base, request.options, then_options, mixed, scratch, table.moves)
            steps: list[tuple[str, Callable[[], CheckResult]]] = [
                ("old-tests", lambda: check_old_tests(trees, table.accepts)),
                ("names", lambda: check_names(trees)),
                ("lost-assertions", lambda: check_assertions(trees)),
                ("mutations", lambda: check_mutations(trees, _failing_today(report))),
                ("equiv", lambda: check_differential(trees)),
            ]
            if request.moves is not None and table.moves:
                moves_path = request.moves
                steps.append(("moves", lambda: check_moves(trees, list(table.moves), moves_path)))
            for key, run in steps:
                if request.wants(key):
                    report.checks.append(run())
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return report
