"""The in-agent compressor's ladder, and why it can never escalate from the gateway."""

from __future__ import annotations

import time

import pytest

from target_app.agent.context_compressor import ContextCompressor
from target_app.gateway.run import GatewayRunner, _hygiene_cooldown_for_failure


def _recorded_cooldown_seconds(session_db, session_id, before):
    """Seconds from `before` to the recorded deadline (rounded: the write happens just after)."""
    cooldown = session_db.get_compression_failure_cooldown(session_id)
    assert cooldown is not None
    return round(cooldown["cooldown_until"] - before)


def test_constructible_without_arguments_and_starts_with_no_failures():
    compressor = ContextCompressor()
    assert compressor._consecutive_timeout_failures == 0


def test_one_long_lived_agent_escalates_60_300_900_and_saturates():
    compressor = ContextCompressor()
    seconds = [compressor.record_timeout_failure("timeout") for _ in range(5)]
    assert seconds == [60.0, 300.0, 900.0, 900.0, 900.0]
    assert compressor._consecutive_timeout_failures == 5


def test_timeout_failure_records_cooldown_and_reason_on_bound_row(session_db):
    session_db.create_session("s1", "telegram", session_key="chat-1")
    compressor = ContextCompressor()
    compressor.bind_session_state(session_db, "s1")
    before = time.time()
    compressor.record_timeout_failure("summary model timed out")
    assert _recorded_cooldown_seconds(session_db, "s1", before) == 60
    assert session_db.get_compression_failure_cooldown("s1")["error"] == ("summary model timed out")


def test_unbound_compressor_records_nothing_but_still_counts():
    compressor = ContextCompressor()
    assert compressor.record_timeout_failure("timeout") == 60.0
    assert compressor._consecutive_timeout_failures == 1


def test_failing_db_write_does_not_raise():
    class BrokenDB:
        def record_compression_failure_cooldown(self, *args):
            raise OSError("disk full")

    compressor = ContextCompressor()
    compressor.bind_session_state(BrokenDB(), "s1")
    assert compressor.record_timeout_failure("timeout") == 60.0


def test_binding_session_state_zeroes_the_failure_counter(session_db):
    session_db.create_session("s1", "telegram")
    compressor = ContextCompressor()
    compressor.bind_session_state(session_db, "s1")
    assert [compressor.record_timeout_failure("t") for _ in range(2)] == [60.0, 300.0]
    compressor.bind_session_state(session_db, "s1")
    assert compressor._consecutive_timeout_failures == 0
    assert compressor.record_timeout_failure("t") == 60.0


def test_in_agent_ladder_cannot_escalate_when_gateway_builds_a_fresh_agent_per_run(session_db):
    """The original bug: the gateway builds and binds a fresh agent for every hygiene run, so
    the in-agent counter is 1 on every failure and the cooldown never leaves 60 s, while the
    gateway's own per-chat ladder over the same failures escalates."""
    session_db.create_session("s1", "telegram", session_key="chat-1")
    runner = GatewayRunner(session_db)
    in_agent, gateway = [], []
    for _ in range(4):
        agent = ContextCompressor()  # what the gateway does per hygiene run
        agent.bind_session_state(session_db, "s1")
        before = time.time()
        agent.record_timeout_failure("summary model timed out")
        in_agent.append(_recorded_cooldown_seconds(session_db, "s1", before))
        assert agent._consecutive_timeout_failures == 1
        gateway.append(_hygiene_cooldown_for_failure(runner, "chat-1", 300.0))
    assert in_agent == [60, 60, 60, 60]
    assert gateway == [300.0, 900.0, 2700.0, 2700.0]


@pytest.mark.parametrize("failures", [1, 2, 3, 7])
def test_rebinding_after_any_number_of_failures_restarts_at_60(failures):
    compressor = ContextCompressor()
    for _ in range(failures):
        compressor.record_timeout_failure("t")
    compressor.bind_session_state(None, "")
    assert compressor.record_timeout_failure("t") == 60.0
