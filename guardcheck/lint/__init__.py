"""`guardcheck lint-tests`: static checks for test smells, over test files parsed with libcst.

A mutation gate is only as honest as the tests it runs; these checks find the
tests that cannot fail (no assertion, tautologies), that fail for the wrong
reason (broad `pytest.raises`), that are silently off (skips without a reason),
or that test the source text instead of the behaviour (source-reading).
`lint_paths` is the entry point; everything else is one module per concern.
"""

from __future__ import annotations

from guardcheck.lint.finding import RULES, Finding
from guardcheck.lint.report import LintReport
from guardcheck.lint.run import lint_paths

__all__ = ["RULES", "Finding", "LintReport", "lint_paths"]
