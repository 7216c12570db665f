"""End to end through `GatewayRunner.run_session_hygiene` with scripted compactors.

The DB is real; the runner's wait runs on a fake clock, and SessionDB's "now"
(`epoch`) can jump forward to let a cooldown expire between runs.
"""

from __future__ import annotations

import asyncio
import time

import pytest

from target_app.gateway import run
from target_app.gateway.hygiene import HygieneFence
from target_app.gateway.run import (
    HYGIENE_TIMEOUT_REASON,
    CompactionResult,
    GatewayRunner,
    HygieneOutcome,
    HygieneStatus,
)
from target_app.session_db import SessionDB

KEY, SID = "chat-1", "sess-1"

# 100 messages x 40 chars = 1000 estimated tokens before compaction.
IN_PLACE_PROGRESS = CompactionResult(new_count=10, new_tokens=200, in_place=True)
IN_PLACE_NO_PROGRESS = CompactionResult(new_count=100, new_tokens=1000, in_place=True)
# Counts that read as progress on their own, but nothing was rewritten.
PROGRESS_COUNTS_NOTHING_REWRITTEN = CompactionResult(new_count=10, new_tokens=200)

SILENT = {"finish_after": None}  # never finishes, never produces output
STREAMING_FOREVER = {"finish_after": None, "output_every": 1.0}


def hygiene(runner, transcript, key=KEY, sid=SID, **kwargs) -> HygieneOutcome:
    return asyncio.run(runner.run_session_hygiene(key, sid, transcript(), **kwargs))


def remaining_cooldown(db, sid=SID):
    """Whole seconds left on the session's recorded deadline, None when there is none."""
    row = db.get_session(sid)
    until = row["compression_failure_cooldown_until"]
    return None if until is None else round(until - time.time())


def streaks(runner, db, key=KEY):
    state = runner._peek_session_state(key)
    memory = None if state is None else state.persistent.hygiene_failure_streak
    return memory, db.get_hygiene_failure_streak(key)


def fail_twice(runner, timed_db, epoch, transcript):
    """Two timeouts through the call site, expiring each cooldown; leaves streak 2."""
    for _ in range(2):
        assert hygiene(runner, transcript).status is HygieneStatus.TIMED_OUT
        epoch.advance(3600 + 1)
    assert streaks(runner, timed_db) == (2, 2)


@pytest.fixture
def row(timed_db):
    timed_db.create_session(SID, "telegram", session_key=KEY)
    return timed_db


# -- (1) the cooldown gate -----------------------------------------------------------------


def test_active_cooldown_skips_compaction_and_changes_nothing(
    row, make_runner, make_compactor, transcript
):
    """Regression 19: cooldown gate ignored — compaction must not run while cooling down."""
    row.increment_hygiene_failure_streak(KEY)
    row.increment_hygiene_failure_streak(KEY)
    deadline = time.time() + 900
    row.record_compression_failure_cooldown(SID, deadline, "earlier timeout")
    compactor = make_compactor(result=IN_PLACE_PROGRESS)
    outcome = hygiene(make_runner(row, compactor), transcript)
    assert outcome == HygieneOutcome(HygieneStatus.SKIPPED, SID, reason="earlier timeout")
    assert compactor.starts == []
    assert row.get_hygiene_failure_streak(KEY) == 2
    assert row.get_session(SID)["compression_failure_cooldown_until"] == deadline


def test_skip_during_cooldown_does_not_escalate_the_streak(
    row, make_runner, make_compactor, transcript
):
    """Regression 19: repeated calls during one cooldown must not each count as a failure."""
    runner = make_runner(row, make_compactor(**SILENT))
    assert hygiene(runner, transcript).status is HygieneStatus.TIMED_OUT
    for _ in range(3):
        assert hygiene(runner, transcript).status is HygieneStatus.SKIPPED
    assert streaks(runner, row) == (1, 1)


def test_expired_cooldown_lets_compaction_run(row, epoch, make_runner, make_compactor, transcript):
    row.record_compression_failure_cooldown(SID, time.time() + 60, "old")
    epoch.advance(61)
    compactor = make_compactor(result=IN_PLACE_PROGRESS)
    assert hygiene(make_runner(row, compactor), transcript).status is HygieneStatus.RECOVERED
    assert compactor.starts == [(SID, 100)]


# -- (2)/(3) waiting and timing out ---------------------------------------------------------


def test_silent_compactor_times_out_at_the_idle_timeout_and_is_cancelled(
    row, clock, make_runner, make_compactor, transcript
):
    """Regression 18: the timeout path must record a cooldown. Regression 17: an inclusive idle
    bound would wait one slice past the 30 s idle timeout."""
    compactor = make_compactor(**SILENT)
    outcome = hygiene(make_runner(row, compactor), transcript)
    assert outcome == HygieneOutcome(
        HygieneStatus.TIMED_OUT, SID, cooldown_seconds=300.0, reason=HYGIENE_TIMEOUT_REASON
    )
    assert clock.elapsed == 30.0
    assert compactor.jobs[0].cancel_calls == 1
    assert remaining_cooldown(row) == 300
    assert row.get_compression_failure_cooldown(SID)["error"] == HYGIENE_TIMEOUT_REASON
    assert row.get_hygiene_failure_streak(KEY) == 1


def test_timeout_records_an_epoch_deadline_that_gates_the_next_run(
    row, make_runner, make_compactor, transcript
):
    """Regression 13: relative deadline — a deadline of "300" would already have passed."""
    runner = make_runner(row, make_compactor(**SILENT))
    hygiene(runner, transcript)
    cooldown = row.get_compression_failure_cooldown(SID)
    assert cooldown is not None
    assert cooldown["remaining_seconds"] == pytest.approx(300, abs=5)
    assert hygiene(runner, transcript).status is HygieneStatus.SKIPPED


def test_output_keeps_extending_the_wait_past_the_idle_timeout(
    row, clock, make_runner, make_compactor, transcript
):
    compactor = make_compactor(result=IN_PLACE_PROGRESS, finish_after=100.0, output_every=1.0)
    assert hygiene(make_runner(row, compactor), transcript).status is HygieneStatus.RECOVERED
    assert clock.elapsed == 100.0
    assert compactor.jobs[0].cancel_calls == 0


def test_wait_times_out_once_output_stops_for_the_idle_timeout(
    row, clock, make_runner, make_compactor, transcript
):
    compactor = make_compactor(finish_after=None, output_every=1.0, output_until=50.0)
    assert hygiene(make_runner(row, compactor), transcript).status is HygieneStatus.TIMED_OUT
    assert clock.elapsed == 80.0


def test_streaming_compactor_stops_at_the_total_ceiling(
    row, clock, make_runner, make_compactor, transcript
):
    """Regression 17: an inclusive ceiling would wait one slice past the 600 s ceiling."""
    compactor = make_compactor(**STREAMING_FOREVER)
    assert hygiene(make_runner(row, compactor), transcript).status is HygieneStatus.TIMED_OUT
    assert clock.elapsed == 600.0
    assert compactor.jobs[0].cancel_calls == 1


def test_idle_timeout_and_ceiling_are_configurable(
    row, clock, make_runner, make_compactor, transcript
):
    runner = make_runner(row, make_compactor(**SILENT), idle_timeout_seconds=5.0)
    hygiene(runner, transcript)
    assert clock.elapsed == 5.0
    row.create_session("sess-2", "telegram", session_key="chat-2")
    start = clock.now
    runner = make_runner(row, make_compactor(**STREAMING_FOREVER), wait_ceiling_seconds=40.0)
    hygiene(runner, transcript, key="chat-2", sid="sess-2")
    assert clock.now - start == 40.0


def test_cancelled_fence_stops_the_wait_even_while_output_flows(
    row, clock, make_runner, make_compactor, transcript
):
    """Regression 16: the wait must not extend after the fence is cancelled."""
    fence = HygieneFence()
    clock.on_sleep.append(lambda elapsed: fence.cancel() if elapsed >= 5 else None)
    compactor = make_compactor(**STREAMING_FOREVER)
    outcome = hygiene(make_runner(row, compactor), transcript, fence=fence)
    assert outcome.status is HygieneStatus.TIMED_OUT
    assert clock.elapsed == 5.0
    assert compactor.jobs[0].cancel_calls == 1


def test_commit_before_cancel_lands_goes_through_recovery(
    row, epoch, make_runner, make_compactor, transcript
):
    """A commit race: the compaction committed, so it is a completion, not a timeout."""
    runner = make_runner(row, make_compactor(**SILENT))
    fail_twice(runner, row, epoch, transcript)
    runner._compactor = make_compactor(finish_after=None, committed_on_cancel=IN_PLACE_PROGRESS)
    outcome = hygiene(runner, transcript)
    assert outcome == HygieneOutcome(HygieneStatus.RECOVERED, SID)
    assert streaks(runner, row) == (0, 0)
    assert row.get_compression_failure_cooldown(SID) is None


def test_commit_race_without_progress_changes_nothing(row, make_runner, make_compactor, transcript):
    compactor = make_compactor(finish_after=None, committed_on_cancel=IN_PLACE_NO_PROGRESS)
    runner = make_runner(row, compactor)
    assert hygiene(runner, transcript).status is HygieneStatus.NO_PROGRESS
    assert remaining_cooldown(row) is None
    assert row.get_hygiene_failure_streak(KEY) == 0


# -- escalation through the call site ----------------------------------------------------


def test_repeated_timeouts_escalate_the_recorded_cooldown(
    row, epoch, make_runner, make_compactor, transcript
):
    """Regression 1: flat cooldown, seen end to end (300, 900, 2700, 2700). Regression 18: each
    timeout must record its cooldown."""
    runner = make_runner(row, make_compactor(**SILENT))
    recorded = []
    for _ in range(4):
        outcome = hygiene(runner, transcript)
        recorded.append((outcome.cooldown_seconds, remaining_cooldown(row)))
        epoch.advance(3600 + 1)
    assert recorded == [(300.0, 300), (900.0, 900), (2700.0, 2700), (2700.0, 2700)]


def test_escalated_cooldown_is_capped_through_the_call_site(
    row, epoch, make_runner, make_compactor, transcript
):
    """Regression 3: removed cap."""
    runner = make_runner(row, make_compactor(**SILENT), base_cooldown_seconds=600.0)
    recorded = []
    for _ in range(3):
        recorded.append(hygiene(runner, transcript).cooldown_seconds)
        epoch.advance(3600 + 1)
    assert recorded == [600.0, 1800.0, 3600.0]
    assert remaining_cooldown(row) == 3600


def test_another_chat_starts_at_the_base_while_one_is_wedged(
    row, epoch, make_runner, make_compactor, transcript
):
    """Regression 4: global streak."""
    row.create_session("sess-2", "telegram", session_key="chat-2")
    runner = make_runner(row, make_compactor(**SILENT))
    fail_twice(runner, row, epoch, transcript)
    other = hygiene(runner, transcript, key="chat-2", sid="sess-2")
    assert other.cooldown_seconds == 300.0
    assert hygiene(runner, transcript).cooldown_seconds == 2700.0


def test_streak_survives_turn_ends_without_a_db(make_runner, make_compactor, transcript):
    """Regression 8: streak on TurnState — ending a turn must not restart the ladder."""
    runner = make_runner(None, make_compactor(**SILENT))
    recorded = []
    for _ in range(3):
        recorded.append(hygiene(runner, transcript).cooldown_seconds)
        runner.end_turn(KEY)
        runner.reset_conversation(KEY)
    assert recorded == [300.0, 900.0, 2700.0]


def test_restarted_gateway_continues_the_ladder_from_the_db(
    db_path, epoch, clock, make_compactor, transcript
):
    """Regression 15: durable streak ignored — a fresh runner on the same DB file continues the
    ladder; another chat does not."""
    first_db = SessionDB(db_path, clock=epoch)
    first_db.create_session(SID, "telegram", session_key=KEY)
    first_db.create_session("sess-2", "telegram", session_key="chat-2")
    first = GatewayRunner(first_db, make_compactor(**SILENT), clock=clock, sleep=clock.sleep)
    fail_twice(first, first_db, epoch, transcript)
    first_db.close()

    db = SessionDB(db_path, clock=epoch)
    try:
        restarted = GatewayRunner(db, make_compactor(**SILENT), clock=clock, sleep=clock.sleep)
        assert hygiene(restarted, transcript).cooldown_seconds == 2700.0
        assert remaining_cooldown(db) == 2700
        assert restarted._peek_session_state(KEY).persistent.hygiene_failure_streak == 3
        assert hygiene(restarted, transcript, key="chat-2", sid="sess-2").cooldown_seconds == 300.0
    finally:
        db.close()


def test_zero_base_records_no_wait_and_never_blocks_the_next_run(
    row, make_runner, make_compactor, transcript
):
    """Regression 14: invented minimum cooldown."""
    compactor = make_compactor(**SILENT)
    runner = make_runner(row, compactor, base_cooldown_seconds=0.0)
    first = hygiene(runner, transcript)
    second = hygiene(runner, transcript)
    assert (first.cooldown_seconds, second.cooldown_seconds) == (0.0, 0.0)
    assert second.status is HygieneStatus.TIMED_OUT
    assert len(compactor.starts) == 2


def test_negative_base_disables_the_failure_path(row, make_runner, make_compactor, transcript):
    runner = make_runner(row, make_compactor(**SILENT), base_cooldown_seconds=-1.0)
    outcome = hygiene(runner, transcript)
    assert outcome == HygieneOutcome(
        HygieneStatus.TIMED_OUT, SID, cooldown_seconds=None, reason=HYGIENE_TIMEOUT_REASON
    )
    assert remaining_cooldown(row) is None
    assert streaks(runner, row) == (None, 0)
    runner._compactor = make_compactor(result=CompactionResult(10, 10, aborted=True, error="x"))
    assert hygiene(runner, transcript).cooldown_seconds is None
    assert row.get_hygiene_failure_streak(KEY) == 0


# -- (4) aborts -----------------------------------------------------------------------------------


def test_abort_records_an_escalated_cooldown_with_the_compactor_reason(
    row, epoch, make_runner, make_compactor, transcript
):
    """Regression 12: reason dropped — users must see why compaction is cooling down."""
    aborted = CompactionResult(100, 1000, aborted=True, error="summary model returned 503")
    runner = make_runner(row, make_compactor(result=aborted))
    first = hygiene(runner, transcript)
    assert first == HygieneOutcome(
        HygieneStatus.ABORTED, SID, cooldown_seconds=300.0, reason="summary model returned 503"
    )
    assert row.get_compression_failure_cooldown(SID)["error"] == "summary model returned 503"
    epoch.advance(3600 + 1)
    assert hygiene(runner, transcript).cooldown_seconds == 900.0


def test_abort_that_also_reports_a_rewrite_with_progress_does_not_reset(
    row, epoch, make_runner, make_compactor, transcript
):
    """Regression 9: an aborted run never counts as a recovery."""
    runner = make_runner(row, make_compactor(**SILENT))
    fail_twice(runner, row, epoch, transcript)
    runner._compactor = make_compactor(
        result=CompactionResult(10, 200, in_place=True, aborted=True, error="partial write")
    )
    outcome = hygiene(runner, transcript)
    assert outcome.status is HygieneStatus.ABORTED
    assert outcome.cooldown_seconds == 2700.0
    assert streaks(runner, row) == (3, 3)


def test_abort_without_a_reason_gets_a_default_one(row, make_runner, make_compactor, transcript):
    runner = make_runner(row, make_compactor(result=CompactionResult(100, 1000, aborted=True)))
    outcome = hygiene(runner, transcript)
    assert outcome.reason == run.DEFAULT_HYGIENE_ABORT_REASON
    assert row.get_compression_failure_cooldown(SID)["error"] == run.DEFAULT_HYGIENE_ABORT_REASON


@pytest.mark.parametrize("where", ["raise_on_start", "raise_on_result"])
def test_compactor_that_raises_is_an_abort_with_the_exception_text(
    where, row, make_runner, make_compactor, transcript
):
    runner = make_runner(row, make_compactor(**{where: RuntimeError("summary model crashed")}))
    outcome = hygiene(runner, transcript)
    assert outcome.status is HygieneStatus.ABORTED
    assert outcome.reason == "summary model crashed"
    assert row.get_compression_failure_cooldown(SID)["error"] == "summary model crashed"
    assert row.get_hygiene_failure_streak(KEY) == 1


def test_runner_without_a_compactor_is_a_configuration_error(row, transcript):
    with pytest.raises(RuntimeError, match="compactor"):
        hygiene(GatewayRunner(row), transcript)


# -- (5) recovery resets, (6) anything else changes nothing ----------------------------


def test_genuine_in_place_compaction_resets_the_streak_in_memory_and_db(
    row, epoch, make_runner, make_compactor, transcript
):
    """Regression 5: deleted call-site wiring — the reset must happen at the call site."""
    runner = make_runner(row, make_compactor(**SILENT))
    fail_twice(runner, row, epoch, transcript)
    runner._compactor = make_compactor(result=IN_PLACE_PROGRESS)
    outcome = hygiene(runner, transcript)
    assert outcome == HygieneOutcome(HygieneStatus.RECOVERED, SID)
    assert streaks(runner, row) == (0, 0)
    runner._compactor = make_compactor(**SILENT)
    assert hygiene(runner, transcript).cooldown_seconds == 300.0


def test_genuine_in_place_compaction_calls_the_reset(
    monkeypatch, row, make_runner, make_compactor, transcript
):
    """Regression 5: deleted call-site wiring, pinned with a spy on the reset helper."""
    calls = []
    real_reset = run._reset_hygiene_failure_streak
    monkeypatch.setattr(
        run,
        "_reset_hygiene_failure_streak",
        lambda gateway, key: (calls.append(key), real_reset(gateway, key)),
    )
    runner = make_runner(row, make_compactor(result=IN_PLACE_PROGRESS))
    assert hygiene(runner, transcript).status is HygieneStatus.RECOVERED
    assert calls == [KEY]


def test_in_place_compaction_without_progress_keeps_the_streak(
    row, epoch, make_runner, make_compactor, transcript
):
    """Regression 2: ungated reset — a completed run that did not recover must not reset.
    Regression 17: an inclusive count rule would call an unchanged count progress."""
    runner = make_runner(row, make_compactor(**SILENT))
    fail_twice(runner, row, epoch, transcript)
    runner._compactor = make_compactor(result=IN_PLACE_NO_PROGRESS)
    outcome = hygiene(runner, transcript)
    assert outcome == HygieneOutcome(HygieneStatus.NO_PROGRESS, SID)
    assert streaks(runner, row) == (2, 2)
    assert remaining_cooldown(row) is not None  # the old, expired deadline is untouched


def test_nothing_rewritten_keeps_the_streak_even_when_counts_read_as_progress(
    row, epoch, make_runner, make_compactor, transcript
):
    """Regression 7: removed rewrite guard, end to end; regression 2 too."""
    runner = make_runner(row, make_compactor(**SILENT))
    fail_twice(runner, row, epoch, transcript)
    runner._compactor = make_compactor(result=PROGRESS_COUNTS_NOTHING_REWRITTEN)
    assert hygiene(runner, transcript).status is HygieneStatus.NO_PROGRESS
    assert streaks(runner, row) == (2, 2)


def test_sub_five_percent_in_place_shrink_keeps_the_streak(
    row, epoch, make_runner, make_compactor, transcript
):
    """Regression 6: hand-rolled comparison, end to end (1000 -> 990 tokens is no recovery)."""
    runner = make_runner(row, make_compactor(**SILENT))
    fail_twice(runner, row, epoch, transcript)
    runner._compactor = make_compactor(result=CompactionResult(100, 990, in_place=True))
    assert hygiene(runner, transcript).status is HygieneStatus.NO_PROGRESS
    assert streaks(runner, row) == (2, 2)


def test_no_progress_records_no_cooldown(row, make_runner, make_compactor, transcript):
    runner = make_runner(row, make_compactor(result=IN_PLACE_NO_PROGRESS))
    outcome = hygiene(runner, transcript)
    assert outcome.cooldown_seconds is None
    assert remaining_cooldown(row) is None
    assert row.get_hygiene_failure_streak(KEY) == 0


# -- rotation ----------------------------------------------------------------------------------


def test_rotation_creates_the_child_row_and_recovers(
    row, epoch, make_runner, make_compactor, transcript
):
    runner = make_runner(row, make_compactor(**SILENT))
    fail_twice(runner, row, epoch, transcript)
    runner._compactor = make_compactor(
        result=CompactionResult(new_count=12, new_tokens=300, new_session_id="sess-2")
    )
    outcome = hygiene(runner, transcript)
    assert outcome == HygieneOutcome(HygieneStatus.RECOVERED, "sess-2", new_session_id="sess-2")
    child = row.get_session("sess-2")
    assert (child["source"], child["session_key"], child["parent_session_id"]) == (
        "telegram",
        KEY,
        SID,
    )
    assert streaks(runner, row) == (0, 0)


def test_rotation_without_progress_still_records_the_new_row(
    row, make_runner, make_compactor, transcript
):
    result = CompactionResult(new_count=100, new_tokens=1000, new_session_id="sess-2")
    outcome = hygiene(make_runner(row, make_compactor(result=result)), transcript)
    assert outcome == HygieneOutcome(HygieneStatus.NO_PROGRESS, "sess-2", new_session_id="sess-2")
    assert row.get_session("sess-2")["parent_session_id"] == SID


def test_rotation_from_a_missing_parent_row_creates_an_unlinked_row(
    timed_db, make_runner, make_compactor, transcript
):
    result = CompactionResult(new_count=5, new_tokens=100, new_session_id="sess-2")
    outcome = hygiene(make_runner(timed_db, make_compactor(result=result)), transcript)
    assert outcome.status is HygieneStatus.RECOVERED
    child = timed_db.get_session("sess-2")
    assert (child["parent_session_id"], child["session_key"]) == (None, KEY)


def test_same_session_id_reported_back_is_not_a_rotation(
    row, make_runner, make_compactor, transcript
):
    result = CompactionResult(new_count=5, new_tokens=100, new_session_id=SID)
    outcome = hygiene(make_runner(row, make_compactor(result=result)), transcript)
    assert outcome == HygieneOutcome(HygieneStatus.NO_PROGRESS, SID)


def test_rotation_cooldowns_and_streak_follow_the_chat_not_the_session_id(
    row, epoch, make_runner, make_compactor, transcript
):
    """The streak is keyed by chat: failures after a rotation continue the same ladder."""
    runner = make_runner(
        row,
        make_compactor(
            scripts=[
                SILENT,
                {"result": CompactionResult(100, 1000, new_session_id="sess-2")},
                SILENT,
            ]
        ),
    )
    assert hygiene(runner, transcript).cooldown_seconds == 300.0
    epoch.advance(3600 + 1)
    assert hygiene(runner, transcript).session_id == "sess-2"
    assert hygiene(runner, transcript, sid="sess-2").cooldown_seconds == 900.0
    assert remaining_cooldown(row, "sess-2") == 900
