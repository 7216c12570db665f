"""`@REV`: a revision served from git in this process, beside today's code."""

from __future__ import annotations

import sys

import pytest

from guardcheck.equiv.check import check
from guardcheck.equiv.request import EquivRequest
from guardcheck.errors import GuardcheckError

pytestmark = pytest.mark.slow  # the ledger fixture and revisions run git

CANONICAL = "target_app.gateway.run:hygiene_compaction_recovered"


def run(root, old, new, **options):
    return check(EquivRequest(root=root, old=old, new=new, **options))


def test_rewrite_at_another_revision_agrees_with_the_canonical_gate(ledger):
    """Acceptance: the equivalent rewrite, compared at revision 1 (HEAD~1)."""
    result = run(ledger, CANONICAL, "ledger.gate:recovered@HEAD~1", examples=20_000)
    assert result.equal
    assert result.functions.result.total == 20_000


def test_old_revision_against_the_working_tree(ledger):
    result = run(ledger, "ledger.gate:recovered@HEAD~1", "ledger.gate:recovered", examples=20_000)
    assert result.equal


def test_revision_modules_import_their_own_package_from_the_same_revision(ledger, git):
    """Regression guard: revision 1's `import ledger.thresholds` / `from ledger.thresholds
    import RATIO` must not reach today's thresholds (0.9), or the gates would disagree."""
    result = run(
        ledger, "ledger.gate:recovered@HEAD~1", "ledger.gate:recovered@HEAD", examples=5_000
    )
    assert result.equal
    first = git(ledger, "rev-parse", "HEAD~1")[:10]
    assert sys.modules[f"__guardcheck_rev_{first}__.ledger.thresholds"].RATIO == 0.95


def test_a_revision_leaves_todays_modules_alone(ledger):
    run(ledger, "ledger.gate:recovered@HEAD~1", CANONICAL, examples=1_000)
    assert "ledger.gate" not in sys.modules
    assert "ledger.thresholds" not in sys.modules


def test_unknown_revision_is_a_usage_error(ledger):
    with pytest.raises(GuardcheckError, match="not a revision") as caught:
        run(ledger, "ledger.gate:recovered@no-such-branch", CANONICAL)
    assert int(caught.value.code) == 2


def test_module_missing_at_the_revision_is_a_usage_error(ledger):
    with pytest.raises(GuardcheckError, match="not in git at HEAD~1"):
        run(ledger, "ledger.absent:recovered@HEAD~1", CANONICAL)
