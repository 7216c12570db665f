"""SessionDB: sessions, compression cooldowns and the per-chat hygiene streak, on real SQLite."""

from __future__ import annotations

import sqlite3
import threading
import time

import pytest

from target_app.session_db import SessionDB


class StepClock:
    """Epoch clock for SessionDB that tests move by hand."""

    def __init__(self, now: float = 1_700_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def stepped(db_path):
    clock = StepClock()
    db = SessionDB(db_path, clock=clock)
    yield db, clock
    db.close()


# -- construction and durability ------------------------------------------------


def test_accepts_a_str_path_as_db_path(tmp_path):
    db = SessionDB(db_path=str(tmp_path / "s.db"))
    try:
        assert db.create_session("s1", "cli") == "s1"
    finally:
        db.close()


def test_uses_wal_journal_and_enforces_foreign_keys(db_path, session_db):
    session_db.create_session("s1", "cli")
    with sqlite3.connect(db_path) as probe:
        assert probe.execute("PRAGMA journal_mode").fetchone()[0].lower() == "wal"
    with pytest.raises(sqlite3.IntegrityError):
        session_db.create_session("child", "cli", parent_session_id="no-such-parent")
    assert session_db.get_session("child") is None


def test_state_survives_close_and_reopen(db_path):
    db = SessionDB(db_path)
    db.create_session("s1", "telegram", session_key="chat-1")
    db.record_compression_failure_cooldown("s1", time.time() + 600, "timed out")
    db.increment_hygiene_failure_streak("chat-1")
    db.increment_hygiene_failure_streak("chat-1")
    db.close()
    reopened = SessionDB(db_path)
    try:
        assert reopened.get_session("s1")["session_key"] == "chat-1"
        assert reopened.get_compression_failure_cooldown("s1")["error"] == "timed out"
        assert reopened.get_hygiene_failure_streak("chat-1") == 2
    finally:
        reopened.close()


def test_close_is_idempotent_and_use_after_close_raises(db_path):
    db = SessionDB(db_path)
    db.close()
    db.close()
    with pytest.raises(sqlite3.ProgrammingError):
        db.get_session("s1")


def test_context_manager_closes(db_path):
    with SessionDB(db_path) as db:
        db.create_session("s1", "cli")
    with pytest.raises(sqlite3.ProgrammingError):
        db.get_session("s1")


# -- sessions -----------------------------------------------------------------------


def test_create_session_returns_the_id_and_stores_every_column(stepped):
    db, clock = stepped
    db.create_session("parent", "telegram")
    assert db.create_session("s1", "telegram", session_key="k", parent_session_id="parent") == "s1"
    assert db.get_session("s1") == {
        "id": "s1",
        "source": "telegram",
        "session_key": "k",
        "parent_session_id": "parent",
        "started_at": clock.now,
        "compression_failure_cooldown_until": None,
        "compression_failure_error": None,
    }


def test_get_session_of_unknown_id_is_none(session_db):
    assert session_db.get_session("missing") is None


def test_create_session_again_never_overwrites(stepped):
    db, clock = stepped
    db.create_session("p", "cli")
    db.create_session("s1", "telegram", session_key="k1")
    started = db.get_session("s1")["started_at"]
    clock.now += 50
    db.create_session("s1", "discord", session_key="k2")
    row = db.get_session("s1")
    assert (row["source"], row["session_key"], row["started_at"]) == ("telegram", "k1", started)


def test_create_session_again_fills_only_null_columns(session_db):
    session_db.create_session("p", "cli")
    session_db.create_session("s1", "telegram")
    session_db.create_session("s1", "telegram", session_key="k1", parent_session_id="p")
    row = session_db.get_session("s1")
    assert (row["session_key"], row["parent_session_id"]) == ("k1", "p")


def test_create_session_keeps_an_existing_cooldown(session_db):
    session_db.create_session("s1", "cli")
    session_db.record_compression_failure_cooldown("s1", time.time() + 60, "boom")
    session_db.create_session("s1", "cli")
    assert session_db.get_compression_failure_cooldown("s1")["error"] == "boom"


def test_create_session_rejects_an_empty_id(session_db):
    with pytest.raises(ValueError, match="session_id"):
        session_db.create_session("", "cli")


# -- compression cooldown --------------------------------------------------------


def test_active_cooldown_reports_deadline_remaining_and_error(stepped):
    db, clock = stepped
    db.create_session("s1", "cli")
    db.record_compression_failure_cooldown("s1", clock.now + 300, "timed out")
    clock.now += 100
    assert db.get_compression_failure_cooldown("s1") == {
        "cooldown_until": clock.now + 200,
        "remaining_seconds": pytest.approx(200),
        "error": "timed out",
    }


def test_cooldown_is_none_once_its_deadline_passes(stepped):
    db, clock = stepped
    db.create_session("s1", "cli")
    db.record_compression_failure_cooldown("s1", clock.now + 300, "timed out")
    clock.now += 300
    assert db.get_compression_failure_cooldown("s1") is None


def test_cooldown_is_none_without_row_or_deadline(session_db):
    session_db.create_session("s1", "cli")
    assert session_db.get_compression_failure_cooldown("s1") is None
    assert session_db.get_compression_failure_cooldown("missing") is None


def test_recording_without_error_clears_a_previous_reason(session_db):
    session_db.create_session("s1", "cli")
    session_db.record_compression_failure_cooldown("s1", time.time() + 60, "first reason")
    session_db.record_compression_failure_cooldown("s1", time.time() + 60)
    row = session_db.get_session("s1")
    assert row["compression_failure_error"] is None
    assert row["compression_failure_cooldown_until"] is not None


def test_recording_on_a_missing_row_is_a_no_op(session_db):
    session_db.record_compression_failure_cooldown("ghost", time.time() + 60, "x")
    assert session_db.get_session("ghost") is None


def test_clear_cooldown_removes_deadline_and_reason(session_db):
    session_db.create_session("s1", "cli")
    session_db.record_compression_failure_cooldown("s1", time.time() + 60, "x")
    session_db.clear_compression_failure_cooldown("s1")
    row = session_db.get_session("s1")
    assert row["compression_failure_cooldown_until"] is None
    assert row["compression_failure_error"] is None
    assert session_db.get_compression_failure_cooldown("s1") is None


# -- hygiene failure streak -------------------------------------------------------


def test_streak_increments_from_one_and_returns_the_new_value(session_db):
    assert [session_db.increment_hygiene_failure_streak("chat-1") for _ in range(4)] == [1, 2, 3, 4]
    assert session_db.get_hygiene_failure_streak("chat-1") == 4


def test_streaks_are_per_session_key(session_db):
    session_db.increment_hygiene_failure_streak("chat-1")
    session_db.increment_hygiene_failure_streak("chat-1")
    assert session_db.increment_hygiene_failure_streak("chat-2") == 1
    assert session_db.get_hygiene_failure_streak("chat-1") == 2


def test_unknown_streak_reads_zero(session_db):
    assert session_db.get_hygiene_failure_streak("never-failed") == 0


def test_empty_key_increment_returns_one_and_writes_nothing(db_path, session_db):
    assert session_db.increment_hygiene_failure_streak("") == 1
    assert session_db.increment_hygiene_failure_streak("") == 1
    with sqlite3.connect(db_path) as probe:
        assert probe.execute("SELECT COUNT(*) FROM gateway_hygiene_state").fetchone()[0] == 0


def test_reset_streak_deletes_the_row(db_path, session_db):
    session_db.increment_hygiene_failure_streak("chat-1")
    session_db.reset_hygiene_failure_streak("chat-1")
    assert session_db.get_hygiene_failure_streak("chat-1") == 0
    with sqlite3.connect(db_path) as probe:
        assert probe.execute("SELECT COUNT(*) FROM gateway_hygiene_state").fetchone()[0] == 0
    assert session_db.increment_hygiene_failure_streak("chat-1") == 1


def test_concurrent_increments_from_threads_are_all_counted(session_db):
    def bump():
        for _ in range(25):
            session_db.increment_hygiene_failure_streak("chat-1")

    threads = [threading.Thread(target=bump) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert session_db.get_hygiene_failure_streak("chat-1") == 200


def test_two_connections_share_one_streak(db_path, session_db):
    other = SessionDB(db_path)
    try:
        session_db.increment_hygiene_failure_streak("chat-1")
        assert other.increment_hygiene_failure_streak("chat-1") == 2
    finally:
        other.close()
