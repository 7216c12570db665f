"""guardcheck's library API: every command calls only this module.

Each capability (run, check, list, show, apply, lint-tests, equiv, ...) is one
function here that takes plain values and returns plain values; the click
commands parse flags, call one of these, render the result and map it to an
exit code.
"""

from __future__ import annotations

# --- lint-tests ------------------------------------------------------------------
# The static test-smell checks live in guardcheck/lint/. These imports sit in the
# section so it merges as one block; hoist them to the top once api.py has others.
from collections.abc import Sequence
from pathlib import Path

from guardcheck.lint import LintReport, lint_paths


def lint_tests(paths: Sequence[Path], root: Path) -> LintReport:
    """Static test-smell findings for the test files under `paths` (see docs/lint-tests.md).

    Raises GuardcheckError (exit 2) when a path does not exist.
    """
    return lint_paths(paths, root)


# --- end lint-tests --------------------------------------------------------------
