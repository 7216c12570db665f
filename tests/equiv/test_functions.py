"""`equiv` on two functions, in process: tiers, shrinking, outcomes, usage errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from guardcheck.equiv.check import check
from guardcheck.equiv.request import EquivRequest
from guardcheck.errors import GuardcheckError

CANONICAL = "target_app.gateway.run:hygiene_compaction_recovered"


def run(root: Path, old: str, new: str, **options):
    return check(EquivRequest(root=root, old=old, new=new, **options))


def test_equivalent_refactor_reports_no_disagreement_with_its_evidence(gates):
    result = run(gates, CANONICAL, "gatekit.recovery:rewritten_recovered", examples=20_000)
    found = result.functions.result
    assert result.equal
    assert found.total == 20_000
    assert found.counts["boundary"] == 5_000
    assert found.counts["hypothesis"] == 15_000
    assert not found.complete
    assert 0.95 in result.functions.constants  # read from the callee's module constant
    assert "no disagreement in 20,000 inputs (boundary 5,000, hypothesis 15,000" in result.text()


def test_finite_domains_are_enumerated_exhaustively(gates):
    result = run(gates, "gatekit.progress:admit", "gatekit.progress:admit_table")
    found = result.functions.result
    assert result.equal
    assert found.complete
    assert found.counts["exhaustive"] == 2 * 3 * 2
    assert "exhaustive: every one of the 12 inputs" in result.text()


def test_bound_makes_ints_a_finite_domain(gates):
    result = run(
        gates, "gatekit.progress:made_progress", "gatekit.progress:made_progress_inverted", bound=4
    )
    assert result.equal
    assert result.functions.result.complete
    assert result.functions.result.counts["exhaustive"] == 9**4


def test_off_by_one_at_the_five_percent_boundary_is_found_and_shrunk(gates):
    result = run(gates, "gatekit.progress:made_progress", "gatekit.progress:off_by_one")
    assert not result.equal
    [found] = result.functions.result.disagreements
    kwargs = found.kwargs
    assert found.shrunk
    assert kwargs["new_tokens"] == kwargs["orig_tokens"] * 0.95 > 0
    # Shrunk: the message counts play no part, so they are at their simplest.
    assert kwargs["orig_len"] == kwargs["new_len"] == 0
    assert (found.old.value, found.new.value) == (False, True)


def test_a_revision_that_raises_where_the_other_returns_is_reported(gates):
    result = run(gates, "gatekit.progress:made_progress", "gatekit.progress:ratio_form")
    raised = [d for d in result.functions.result.disagreements if d.new.raised]
    assert raised
    assert raised[0].kwargs["orig_tokens"] == 0
    assert raised[0].new.key == "ZeroDivisionError"
    assert not raised[0].old.raised
    assert "NEW raised ZeroDivisionError: division by zero" in result.text()


def test_assume_restricts_to_reachable_inputs(gates):
    plain = run(
        gates, "gatekit.progress:made_progress", "gatekit.progress:guarded_zero", examples=5_000
    )
    assumed = run(
        gates,
        "gatekit.progress:made_progress",
        "gatekit.progress:guarded_zero",
        examples=5_000,
        assume="gatekit.hooks:some_tokens",
    )
    assert not plain.equal
    assert assumed.equal
    assert assumed.functions.result.rejected > 0


def test_strategy_bridges_an_unannotated_signature(gates):
    with pytest.raises(GuardcheckError, match="signatures differ"):
        run(gates, "gatekit.progress:made_progress", "gatekit.progress:untyped")
    result = run(
        gates,
        "gatekit.progress:made_progress",
        "gatekit.progress:untyped",
        strategy="gatekit.hooks:token_counts",
        examples=2_000,
    )
    assert result.equal
    assert result.functions.result.counts["hypothesis"] == 2_000


def test_hand_rolled_gate_disagrees_with_the_canonical_predicate(gates):
    """Acceptance: the background's hand-rolled `new_tokens < approx_tokens` gate."""
    result = run(gates, CANONICAL, "gatekit.recovery:hand_rolled_recovered")
    assert not result.equal
    directions = {(d.old.value, d.new.value) for d in result.functions.result.disagreements}
    # Both ways: a row-count win with flat tokens, and a token drop under 5%.
    assert directions == {(True, False), (False, True)}
    for found in result.functions.result.disagreements:
        assert found.shrunk
        assert found.kwargs["aborted"] is False


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("nosuchmodule:f", CANONICAL, "no module named 'nosuchmodule'"),
        ("gatekit.progress:nope", CANONICAL, "has no attribute 'nope'"),
        ("gatekit.progress", CANONICAL, "not of the form"),
        ("gatekit.progress:Mode", CANONICAL, "signatures differ"),
        ("gatekit.progress:untyped", "gatekit.progress:untyped", "has no type annotation"),
        pytest.param(  # asks `git rev-parse` in a subprocess
            "gatekit.progress:made_progress@HEAD",
            CANONICAL,
            "not inside a git repository",
            marks=pytest.mark.slow,
        ),
    ],
)
def test_bad_input_is_a_usage_error(gates, old, new, message):
    with pytest.raises(GuardcheckError, match=message) as caught:
        run(gates, old, new)
    assert int(caught.value.code) == 2


def test_crosshair_backend_without_the_extra_says_how_to_install(gates):
    try:
        import hypothesis_crosshair_provider  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("hypothesis-crosshair is installed here")
    with pytest.raises(GuardcheckError, match=r"guardcheck\[crosshair\]"):
        run(
            gates,
            "gatekit.progress:made_progress",
            "gatekit.progress:made_progress_inverted",
            backend="crosshair",
            examples=10,
        )
