"""The recovery gate, the wait predicate, and the reset/record helpers the call site uses."""

from __future__ import annotations

import time
import types

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from target_app.agent.turn_context import compression_made_progress
from target_app.gateway.run import (
    GatewayRunner,
    _hygiene_cooldown_for_failure,
    _record_hygiene_cooldown,
    _reset_hygiene_failure_streak,
    hygiene_compaction_recovered,
    hygiene_wait_should_extend,
)

# Deterministic and history-free: guardcheck runs this suite once per mutant, and a kill
# must not depend on a random seed or on examples saved by an earlier run.
FAST = settings(max_examples=50, deadline=None, derandomize=True, database=None)


def _recovered(**overrides):
    args = dict(
        aborted=False,
        rotated=False,
        in_place=True,
        msg_count=100,
        new_count=100,
        approx_tokens=1000,
        new_tokens=1000,
    )
    args.update(overrides)
    return hygiene_compaction_recovered(**args)


# -- hygiene_compaction_recovered ---------------------------------------------------


def test_in_place_rewrite_with_fewer_messages_recovers():
    assert _recovered(in_place=True, new_count=10, new_tokens=200) is True


def test_rotation_with_progress_recovers():
    assert _recovered(rotated=True, in_place=False, new_count=10, new_tokens=200) is True


def test_nothing_rewritten_never_recovers_even_when_counts_read_as_progress():
    """Regression 7: removed rewrite guard — these counts are progress on their own
    (100 -> 10 messages, 1000 -> 200 tokens), so only the guard can reject them."""
    assert compression_made_progress(100, 10, 1000, 200) is True
    assert _recovered(rotated=False, in_place=False, new_count=10, new_tokens=200) is False


def test_aborted_run_never_recovers_even_when_rewritten_with_progress():
    """Regression 9: abort not excluded."""
    assert _recovered(aborted=True, rotated=True, in_place=True, new_count=10, new_tokens=200) is (
        False
    )


def test_row_count_win_with_flat_tokens_recovers():
    """Regression 6: hand-rolled `new_tokens < approx_tokens` rejects a row-count win."""
    assert _recovered(new_count=60, new_tokens=1000) is True


def test_more_verbose_summary_with_fewer_messages_recovers():
    """Regression 6: hand-rolled comparison — fewer messages is progress even if tokens grew."""
    assert _recovered(new_count=20, new_tokens=1100) is True


def test_sub_five_percent_token_wobble_does_not_recover():
    """Regression 6: hand-rolled comparison would count 1000 -> 990 as recovery."""
    assert _recovered(new_count=100, new_tokens=990) is False


def test_exact_five_percent_drop_does_not_recover():
    """Regression 17: inclusive progress threshold."""
    assert _recovered(new_count=100, new_tokens=950) is False


@FAST
@given(
    rotated=st.booleans(),
    in_place=st.booleans(),
    aborted=st.booleans(),
    msg_count=st.integers(0, 500),
    new_count=st.integers(0, 500),
    approx_tokens=st.integers(0, 5000),
    new_tokens=st.integers(0, 5000),
)
def test_recovery_is_the_shared_predicate_behind_the_abort_and_rewrite_guards(
    rotated, in_place, aborted, msg_count, new_count, approx_tokens, new_tokens
):
    """Regressions 6, 7, 9: the gate agrees with `compression_made_progress` exactly when the
    run was not aborted and something was rewritten, and is False otherwise."""
    got = hygiene_compaction_recovered(
        aborted=aborted,
        rotated=rotated,
        in_place=in_place,
        msg_count=msg_count,
        new_count=new_count,
        approx_tokens=approx_tokens,
        new_tokens=new_tokens,
    )
    if aborted or not (rotated or in_place):
        assert got is False
    else:
        assert got == compression_made_progress(msg_count, new_count, approx_tokens, new_tokens)


def test_recovery_arguments_are_keyword_only():
    with pytest.raises(TypeError):
        hygiene_compaction_recovered(False, True, False, 100, 10, 1000, 100)  # type: ignore[misc]


# -- hygiene_wait_should_extend ---------------------------------------------------------


def test_wait_extends_while_output_is_recent_and_under_the_ceiling():
    assert hygiene_wait_should_extend(idle=29.0, timeout=30.0, waited=599.0, ceiling=600.0)


def test_wait_stops_when_idle_reaches_the_timeout():
    """Regression 17: inclusive wait bound — idle == timeout is a timeout."""
    assert not hygiene_wait_should_extend(idle=30.0, timeout=30.0, waited=10.0, ceiling=600.0)


def test_wait_stops_when_the_ceiling_is_reached():
    """Regression 17: inclusive wait bound — waited == ceiling ends the wait."""
    assert not hygiene_wait_should_extend(idle=0.0, timeout=30.0, waited=600.0, ceiling=600.0)


def test_wait_never_extends_after_the_fence_is_cancelled():
    """Regression 16: the wait extends after the fence is cancelled."""
    assert not hygiene_wait_should_extend(
        idle=0.0, timeout=30.0, waited=0.0, ceiling=600.0, fence_cancelled=True
    )


@FAST
@given(
    idle=st.floats(0, 1000, allow_nan=False),
    timeout=st.floats(0, 1000, allow_nan=False),
    waited=st.floats(0, 1000, allow_nan=False),
    ceiling=st.floats(0, 1000, allow_nan=False),
    fence_cancelled=st.booleans(),
)
def test_wait_extends_exactly_when_fence_up_idle_and_waited_under_bounds(
    idle, timeout, waited, ceiling, fence_cancelled
):
    """Regressions 16, 17."""
    got = hygiene_wait_should_extend(
        idle=idle,
        timeout=timeout,
        waited=waited,
        ceiling=ceiling,
        fence_cancelled=fence_cancelled,
    )
    assert got == (not fence_cancelled and idle < timeout and waited < ceiling)


# -- _reset_hygiene_failure_streak -------------------------------------------------------


def test_reset_zeroes_the_in_memory_and_durable_streak(session_db):
    runner = GatewayRunner(session_db)
    _hygiene_cooldown_for_failure(runner, "chat-1", 300.0)
    _hygiene_cooldown_for_failure(runner, "chat-1", 300.0)
    _reset_hygiene_failure_streak(runner, "chat-1")
    assert runner._peek_session_state("chat-1").persistent.hygiene_failure_streak == 0
    assert session_db.get_hygiene_failure_streak("chat-1") == 0
    assert _hygiene_cooldown_for_failure(runner, "chat-1", 300.0) == 300.0


def test_reset_only_touches_its_own_chat(session_db):
    runner = GatewayRunner(session_db)
    for key in ("a", "a", "b", "b"):
        _hygiene_cooldown_for_failure(runner, key, 300.0)
    _reset_hygiene_failure_streak(runner, "a")
    assert session_db.get_hygiene_failure_streak("b") == 2
    assert runner._peek_session_state("b").persistent.hygiene_failure_streak == 2


def test_reset_never_materialises_a_session_entry_or_the_map():
    """Regression 11: the reset must peek, not get-or-create."""
    runner = object.__new__(GatewayRunner)
    _reset_hygiene_failure_streak(runner, "chat-1")
    assert "_sessions" not in vars(runner)
    assert runner._peek_session_state("chat-1") is None


def test_reset_does_not_create_an_entry_for_an_unknown_chat(session_db):
    """Regression 11: reset-materialises-session."""
    runner = GatewayRunner(session_db)
    runner._session_state("other")
    _reset_hygiene_failure_streak(runner, "chat-1")
    assert set(runner._sessions_map()) == {"other"}


def test_reset_clears_the_durable_streak_when_no_session_is_in_memory(db_path, session_db):
    session_db.increment_hygiene_failure_streak("chat-1")
    runner = GatewayRunner(session_db)
    _reset_hygiene_failure_streak(runner, "chat-1")
    assert session_db.get_hygiene_failure_streak("chat-1") == 0


def test_reset_never_raises_on_degraded_objects():
    class BrokenDB:
        def reset_hygiene_failure_streak(self, key):
            raise OSError("database is locked")

    runner = GatewayRunner(BrokenDB())
    runner._session_state("chat-1").persistent.hygiene_failure_streak = 3
    _reset_hygiene_failure_streak(runner, "chat-1")
    assert runner._peek_session_state("chat-1").persistent.hygiene_failure_streak == 0
    _reset_hygiene_failure_streak(types.SimpleNamespace(), "chat-1")
    _reset_hygiene_failure_streak(object(), "chat-1")
    assert _reset_hygiene_failure_streak(object.__new__(GatewayRunner), "chat-1") is None


def test_reset_with_a_raising_peek_still_resets_the_durable_streak(session_db):
    session_db.increment_hygiene_failure_streak("chat-1")
    gateway = types.SimpleNamespace(_session_db=session_db)

    def broken_peek(key):
        raise RuntimeError("no map")

    gateway._peek_session_state = broken_peek
    _reset_hygiene_failure_streak(gateway, "chat-1")
    assert session_db.get_hygiene_failure_streak("chat-1") == 0


# -- _record_hygiene_cooldown -------------------------------------------------------------


class SpyDB:
    def __init__(self):
        self.calls = []

    def record_compression_failure_cooldown(self, *args, **kwargs):
        self.calls.append((args, kwargs))


def test_record_writes_an_epoch_deadline(session_db):
    """Regression 13: relative deadline — the column holds now + seconds, not seconds."""
    session_db.create_session("s1", "telegram")
    before = time.time()
    _record_hygiene_cooldown(GatewayRunner(session_db), "s1", 900.0, "timed out")
    after = time.time()
    cooldown = session_db.get_compression_failure_cooldown("s1")
    assert cooldown is not None
    assert before + 900.0 <= cooldown["cooldown_until"] <= after + 900.0


def test_record_forwards_the_reason(session_db):
    """Regression 12: reason dropped."""
    session_db.create_session("s1", "telegram")
    _record_hygiene_cooldown(GatewayRunner(session_db), "s1", 60.0, "summary model 503")
    assert session_db.get_compression_failure_cooldown("s1")["error"] == "summary model 503"


def test_record_calls_the_db_positionally_with_the_reason_even_when_none():
    """Regression 12: reason not forwarded or passed by keyword."""
    spy = SpyDB()
    before = time.time()
    _record_hygiene_cooldown(GatewayRunner(spy), "s1", 60.0)
    _record_hygiene_cooldown(GatewayRunner(spy), "s1", 60.0, "why")
    assert [len(args) for args, _ in spy.calls] == [3, 3]
    assert [kwargs for _, kwargs in spy.calls] == [{}, {}]
    (sid, until, error), _ = spy.calls[0]
    assert (sid, error) == ("s1", None)
    assert until >= before + 60.0
    assert spy.calls[1][0][2] == "why"


@pytest.mark.parametrize(
    "gateway",
    [object.__new__(GatewayRunner), types.SimpleNamespace(_session_db=object()), object()],
    ids=["bare-runner", "db-without-method", "plain-object"],
)
def test_record_is_a_silent_no_op_without_a_db_or_the_method(gateway):
    assert _record_hygiene_cooldown(gateway, "s1", 60.0, "x") is None


def test_record_never_raises_when_the_db_fails():
    class BrokenDB:
        def record_compression_failure_cooldown(self, *args):
            raise OSError("disk full")

    assert _record_hygiene_cooldown(GatewayRunner(BrokenDB()), "s1", 60.0, "x") is None
