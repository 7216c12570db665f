"""The gateway's failure ladder: `_hygiene_cooldown_for_failure` and the streak it keeps."""

from __future__ import annotations

import types

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from target_app.gateway import run
from target_app.gateway.run import (
    _HYGIENE_COOLDOWN_LADDER_MULTIPLIERS,
    _HYGIENE_COOLDOWN_MAX_SECONDS,
    DEFAULT_HYGIENE_FAILURE_COOLDOWN_SECONDS,
    GatewayRunner,
    _hygiene_cooldown_for_failure,
)
from target_app.session_db import SessionDB

# Deterministic and history-free: guardcheck runs this suite once per mutant, and a kill
# must not depend on a random seed or on examples saved by an earlier run.
FAST = settings(max_examples=50, deadline=None, derandomize=True, database=None)


def _ladder(gateway, session_key, base, failures):
    return [_hygiene_cooldown_for_failure(gateway, session_key, base) for _ in range(failures)]


def test_ladder_constants():
    assert _HYGIENE_COOLDOWN_LADDER_MULTIPLIERS == (1, 3, 9)
    assert _HYGIENE_COOLDOWN_MAX_SECONDS == 3600.0
    assert DEFAULT_HYGIENE_FAILURE_COOLDOWN_SECONDS == 300.0


def test_consecutive_failures_escalate():
    """Regression 1: flat cooldown — the ladder must escalate x1, x3, x9."""
    runner = GatewayRunner()
    assert _ladder(runner, "chat-1", 300.0, 5) == [300.0, 900.0, 2700.0, 2700.0, 2700.0]


def test_streak_keeps_counting_past_the_last_rung():
    runner = GatewayRunner()
    _ladder(runner, "chat-1", 300.0, 5)
    assert runner._peek_session_state("chat-1").persistent.hygiene_failure_streak == 5


def test_small_base_escalates_too():
    """Regression 1: flat cooldown."""
    assert _ladder(GatewayRunner(), "chat-1", 30.0, 2) == [30.0, 90.0]


def test_zero_base_stays_zero():
    """Regression 14: no invented minimum cooldown — a base of 0 means no cooldown."""
    assert _ladder(GatewayRunner(), "chat-1", 0.0, 4) == [0.0, 0.0, 0.0, 0.0]


def test_escalation_is_capped_at_one_hour():
    """Regression 3: removed cap — 600 x9 would be 5400 s."""
    assert _ladder(GatewayRunner(), "chat-1", 600.0, 3) == [600.0, 1800.0, 3600.0]


def test_base_at_the_cap_never_exceeds_it():
    """Regression 3: removed cap."""
    assert _ladder(GatewayRunner(), "chat-1", 3600.0, 3) == [3600.0] * 3


def test_base_above_the_cap_returns_the_cap():
    """Regression 3: removed cap — the cap always wins, even over the base."""
    assert _ladder(GatewayRunner(), "chat-1", 7200.0, 2) == [3600.0, 3600.0]


def test_one_wedged_chat_never_penalises_another():
    """Regression 4: global streak — streaks are per session key."""
    runner = GatewayRunner()
    assert _ladder(runner, "wedged", 300.0, 3) == [300.0, 900.0, 2700.0]
    assert _hygiene_cooldown_for_failure(runner, "healthy", 300.0) == 300.0
    assert _hygiene_cooldown_for_failure(runner, "wedged", 300.0) == 2700.0


def test_one_wedged_chat_never_penalises_another_in_the_db(session_db):
    """Regression 4: global streak, with the durable streak."""
    runner = GatewayRunner(session_db)
    _ladder(runner, "wedged", 300.0, 2)
    assert _hygiene_cooldown_for_failure(runner, "healthy", 300.0) == 300.0
    assert session_db.get_hygiene_failure_streak("wedged") == 2
    assert session_db.get_hygiene_failure_streak("healthy") == 1


def test_durable_streak_is_used_and_mirrored_into_memory(session_db):
    runner = GatewayRunner(session_db)
    assert _ladder(runner, "chat-1", 300.0, 2) == [300.0, 900.0]
    assert session_db.get_hygiene_failure_streak("chat-1") == 2
    assert runner._peek_session_state("chat-1").persistent.hygiene_failure_streak == 2


def test_durable_streak_continues_the_ladder_after_a_restart(db_path):
    """Regression 15: durable streak ignored — a fresh runner on the same DB file must continue
    the ladder, and another chat must not."""
    first = SessionDB(db_path)
    assert _ladder(GatewayRunner(first), "chat-1", 300.0, 2) == [300.0, 900.0]
    first.close()
    reopened = SessionDB(db_path)
    try:
        restarted = GatewayRunner(reopened)
        assert _hygiene_cooldown_for_failure(restarted, "chat-1", 300.0) == 2700.0
        assert _hygiene_cooldown_for_failure(restarted, "chat-2", 300.0) == 300.0
    finally:
        reopened.close()


def test_durable_streak_wins_over_a_stale_in_memory_streak(session_db):
    """Regression 15: the DB's count decides, not the runner's memory."""
    session_db.increment_hygiene_failure_streak("chat-1")
    session_db.increment_hygiene_failure_streak("chat-1")
    runner = GatewayRunner(session_db)
    runner._session_state("chat-1").persistent.hygiene_failure_streak = 0
    assert _hygiene_cooldown_for_failure(runner, "chat-1", 300.0) == 2700.0


def test_durable_streak_decides_even_when_mirroring_fails(session_db):
    """A runner whose in-memory state cannot be written still gets the durable rung."""
    runner = GatewayRunner(session_db)

    def broken_state(key):
        raise RuntimeError("state unavailable")

    runner._session_state = broken_state
    assert _ladder(runner, "chat-1", 300.0, 2) == [300.0, 900.0]


def test_without_a_db_the_in_memory_streak_escalates():
    runner = GatewayRunner(session_db=None)
    assert _ladder(runner, "chat-1", 100.0, 3) == [100.0, 300.0, 900.0]


def test_failing_db_increment_falls_back_to_the_in_memory_streak():
    class BrokenDB:
        def increment_hygiene_failure_streak(self, key):
            raise OSError("database is locked")

    runner = GatewayRunner(BrokenDB())
    assert _ladder(runner, "chat-1", 300.0, 2) == [300.0, 900.0]


def test_degraded_runner_whose_state_raises_gets_the_base():
    """Regression 10: exception escapes the ladder on a degraded runner."""
    runner = object.__new__(GatewayRunner)

    def broken_state(key):
        raise RuntimeError("no state")

    runner._session_state = broken_state
    assert _ladder(runner, "chat-1", 300.0, 2) == [300.0, 300.0]


def test_object_without_runner_methods_gets_the_base():
    """Regression 10: exception escapes the ladder on a degraded runner."""
    assert _hygiene_cooldown_for_failure(types.SimpleNamespace(), "chat-1", 300.0) == 300.0


def test_failing_db_and_failing_state_gets_the_base():
    """Regression 10: only when no streak can be obtained at all does the ladder fall back."""

    class BrokenDB:
        def increment_hygiene_failure_streak(self, key):
            raise OSError("database is locked")

    runner = GatewayRunner(BrokenDB())

    def broken_state(key):
        raise RuntimeError("no state")

    runner._session_state = broken_state
    assert _hygiene_cooldown_for_failure(runner, "chat-1", 600.0) == 600.0


def test_degraded_paths_log_a_warning(monkeypatch):
    messages = []
    monkeypatch.setattr(run.logger, "warning", lambda msg, *a, **k: messages.append(msg))
    _hygiene_cooldown_for_failure(types.SimpleNamespace(), "chat-1", 300.0)
    assert messages


@FAST
@given(
    base=st.floats(min_value=0.0, max_value=10_000.0, allow_nan=False),
    failures=st.integers(min_value=1, max_value=6),
)
def test_nth_failure_cools_down_for_min_of_base_times_rung_and_cap(base, failures):
    """Regressions 1, 3, 14: always min(base * multiplier, cap), rung x1, x3, x9, x9, ..."""
    runner = GatewayRunner()
    got = _ladder(runner, "chat-1", base, failures)
    multipliers = [1, 3, 9, 9, 9, 9][:failures]
    assert got == [min(base * m, 3600.0) for m in multipliers]


@FAST
@given(chats=st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, max_size=12))
def test_interleaved_chats_each_climb_their_own_ladder(chats):
    """Regression 4: global streak — any interleaving of chats keeps separate streaks."""
    runner = GatewayRunner()
    seen: dict[str, int] = {}
    for chat in chats:
        seen[chat] = seen.get(chat, 0) + 1
        expected = min(300.0 * (1, 3, 9)[min(seen[chat], 3) - 1], 3600.0)
        assert _hygiene_cooldown_for_failure(runner, chat, 300.0) == expected


@pytest.mark.parametrize("base", [0.0, 1.0, 300.0, 3600.0, 7200.0])
def test_ladder_never_raises_and_never_exceeds_the_cap(base):
    runner = object.__new__(GatewayRunner)
    values = _ladder(runner, "chat-1", base, 4)
    assert all(0.0 <= value <= 3600.0 for value in values)
    assert values[0] == min(base, 3600.0)
