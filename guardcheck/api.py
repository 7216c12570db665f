"""guardcheck's library API: every command calls only this module.

A facade: it re-exports what the commands, scripts and tests use and does no work of
its own. The orchestration is `guardcheck/pipeline/` (one module per step), which
`review/` and `refactor/` call directly; each capability is one function that takes a
`RunOptions` (or a request value) and returns plain values. Errors a user can act on
are `GuardcheckError` (with its exit code) or `CatalogueInvalid` (every problem of a
catalogue at once).

What loads libcst, griffe, Hypothesis or mutmut is imported when it is called, not
when a command imports this module: those names are the functions at the end, each a
call of the function it names, and `Row`/`LintReport` through `__getattr__`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from guardcheck import __version__
from guardcheck.dependencies import check_installed
from guardcheck.equiv.request import DEFAULT_EXAMPLES, EquivRequest
from guardcheck.errors import CatalogueInvalid, GuardcheckError
from guardcheck.exitcodes import ExitCode
from guardcheck.lab.execute.session import sigterm_as_interrupt
from guardcheck.model import BaselineTest, Gate, MutantResult, RunReport, Status
from guardcheck.options import RunOptions, load_options
from guardcheck.pipeline.apply import applied, apply, revert
from guardcheck.pipeline.catalogue import Listing, check, list_entries, show
from guardcheck.pipeline.merge import merge
from guardcheck.pipeline.project import import_roots_first, read_source
from guardcheck.pipeline.run import exit_code, run
from guardcheck.pipeline.sweep import (
    SweepReport,
    changed_lines_since,
    emit_catalogue,
    operator_mutants,
    sweep,
)
from guardcheck.refactor.request import CHECKS as REFACTOR_CHECKS
from guardcheck.refactor.request import DEFAULT_EQUIV_EXAMPLES as REFACTOR_EQUIV_EXAMPLES
from guardcheck.refactor.request import INFORMATIONAL as REFACTOR_INFORMATIONAL
from guardcheck.refactor.request import RefactorRequest
from guardcheck.review.request import CATEGORIES as REVIEW_CATEGORIES
from guardcheck.review.request import DEFAULT_FAIL_ON as REVIEW_DEFAULT_FAIL_ON
from guardcheck.review.request import ReviewRequest
from guardcheck.shard import parse_shard

if TYPE_CHECKING:
    from guardcheck.catalogue.listing import Row
    from guardcheck.equiv.check import EquivResult
    from guardcheck.github import CommentOutcome
    from guardcheck.lint import LintReport
    from guardcheck.refactor.findings import RefactorReport
    from guardcheck.review.findings import ReviewReport

__all__ = [
    "DEFAULT_EXAMPLES",
    "REFACTOR_CHECKS",
    "REFACTOR_EQUIV_EXAMPLES",
    "REFACTOR_INFORMATIONAL",
    "REVIEW_CATEGORIES",
    "REVIEW_DEFAULT_FAIL_ON",
    "BaselineTest",
    "CatalogueInvalid",
    "EquivRequest",
    "ExitCode",
    "Gate",
    "GuardcheckError",
    "LintReport",
    "Listing",
    "MutantResult",
    "RefactorRequest",
    "ReviewRequest",
    "Row",
    "RunOptions",
    "RunReport",
    "Status",
    "SweepReport",
    "__version__",
    "applied",
    "apply",
    "changed_lines_since",
    "check",
    "check_installed",
    "emit_catalogue",
    "equiv",
    "exit_code",
    "import_roots_first",
    "lint_tests",
    "list_entries",
    "load_options",
    "merge",
    "operator_mutants",
    "parse_shard",
    "pr_comment",
    "read_source",
    "refactor",
    "refactor_report",
    "revert",
    "review",
    "review_report",
    "run",
    "show",
    "sigterm_as_interrupt",
    "sweep",
]


def __getattr__(name: str) -> Any:
    # Types the commands render; their modules load libcst.
    if name == "Row":
        from guardcheck.catalogue.listing import Row

        return Row
    if name == "LintReport":
        from guardcheck.lint import LintReport

        return LintReport
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def lint_tests(paths: Sequence[Path], root: Path) -> LintReport:
    """Static test-smell findings for the test files under `paths` (see docs/lint-tests.md).

    Raises GuardcheckError (exit 2) when a path does not exist.
    """
    from guardcheck.lint import lint_paths

    return lint_paths(paths, root)


def equiv(request: EquivRequest) -> EquivResult:
    """Compare OLD and NEW (functions, or with `stateful` zero-argument factories) on the
    same generated inputs; the result says whether they agree and renders text or JSON."""
    from guardcheck.equiv.check import check as comparing

    return comparing(request)


def refactor(request: RefactorRequest) -> RefactorReport:
    """Verify a refactor against a base revision: the base's tests on today's source,
    removed or changed names still in use, lost assertions, named mutations across the
    change and the migration table (see docs/refactoring.md). Each check is a
    `CheckResult` in the report; raises GuardcheckError (exit 2) for bad input (an
    unknown revision, a bad moves.toml) before anything runs."""
    from guardcheck.refactor.verify import verify

    return verify(request)


def refactor_report(report: RefactorReport, form: str) -> str:
    """A refactor report as "text", "markdown", "json" or GitHub "annotations" lines."""
    from guardcheck.refactor.report import FORMS

    return FORMS[form](report)


def review(request: ReviewRequest) -> ReviewReport:
    """`guardcheck review`: the strength of a change's tests (see docs/review.md).
    Raises GuardcheckError (exit 2) for bad input, BaselineFailed (exit 3) for a red suite."""
    from guardcheck.review.verify import review as reviewing

    return reviewing(request)


def review_report(report: ReviewReport, form: str) -> str:
    """A review as "text", "markdown", "json" or GitHub "annotations" lines."""
    from guardcheck.review.report import FORMS

    return FORMS[form](report)


def pr_comment(markdown: str, environ: Mapping[str, str]) -> CommentOutcome:
    """`review --pr-comment`: post the review as the pull request's one guardcheck comment,
    or update it (docs/review.md). Never raises for GitHub: a failure is a warning."""
    from guardcheck.github import post_review_comment

    return post_review_comment(markdown, environ)
