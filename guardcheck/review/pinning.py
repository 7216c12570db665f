"""Tests that do not pin the change: the new tests, run against the base's source, pass.

The base is checked out in a temporary worktree; today's changed test files (and
changed conftest.py files, which they may need) are copied over it; a plain pytest
runs the added or changed tests there. A test that passes against the old code
would pass whether or not the change were made: it does not pin it.

The base's own packages must be what those tests import: the worktree's import roots of
the measured source go first on PYTHONPATH, ahead of an editable install that points at
today's tree (the lab's rule, through the API).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Sequence
from pathlib import Path

from guardcheck.gitbase import Base, base_worktrees
from guardcheck.pipeline.project import import_roots_first
from guardcheck.review.pytest_run import run_pytest
from guardcheck.review.scope import names


def passing_on_base(
    root: Path,
    base: Base,
    copied: Sequence[str],
    tests: Sequence[str],
    timeout: float,
    source: Sequence[str] = (),
) -> list[str]:
    """The function-level ids of `tests` that have a passing case on the base.

    `source`: the measured source paths, relative to the root, imported from the base.
    """
    if not tests:
        return []
    with base_worktrees(base) as (tree,):
        for relative in copied:
            here, there = root / relative, tree / relative
            if here.is_file():
                there.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(here, there)
        # Whole files, not node ids: pytest refuses every node id when one names a test it
        # cannot collect (a new file importing a new name), and a file that cannot import
        # on the base must not stop the others running.
        files = sorted({test.split("::")[0] for test in tests})
        env = import_roots_first([tree / s for s in source], os.environ)
        _, outcomes, _ = run_pytest(
            tree, files, timeout=timeout, env=env, extra=["--continue-on-collection-errors"]
        )
    passed = [o.nodeid for o in outcomes if o.passed]
    return [test for test in tests if names(test, passed)]
