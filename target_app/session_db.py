"""SQLite store for session rows, compression cooldowns and the gateway's hygiene streak.

One connection shared across threads (`check_same_thread=False`) and serialised
by a lock; WAL mode so readers in other processes are not blocked by the
gateway's writes. Foreign keys are enforced so a rotated session can only point
at a parent row that exists.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable
from typing import Any

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    session_key TEXT,
    parent_session_id TEXT REFERENCES sessions(id),
    started_at REAL NOT NULL,
    compression_failure_cooldown_until REAL,
    compression_failure_error TEXT
);
CREATE TABLE IF NOT EXISTS gateway_hygiene_state (
    session_key TEXT PRIMARY KEY,
    failure_streak INTEGER NOT NULL DEFAULT 0
);
"""

_SESSION_COLUMNS = (
    "id",
    "source",
    "session_key",
    "parent_session_id",
    "started_at",
    "compression_failure_cooldown_until",
    "compression_failure_error",
)


class SessionDB:
    """Durable session state. Every method is safe to call from several threads."""

    def __init__(
        self, db_path: str | os.PathLike[str], *, clock: Callable[[], float] = time.time
    ) -> None:
        # `clock` is epoch seconds; injectable so tests can expire cooldowns
        # without sleeping.
        self._clock = clock
        self._lock = threading.RLock()
        self._conn: sqlite3.Connection | None = sqlite3.connect(
            os.fspath(db_path), check_same_thread=False, isolation_level=None, timeout=30.0
        )
        with self._lock:
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA foreign_keys=ON")
            self._conn.executescript(_SCHEMA)

    # -- lifecycle -----------------------------------------------------------

    def close(self) -> None:
        """Close the connection. Idempotent."""
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def __enter__(self) -> SessionDB:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _execute(self, sql: str, params: tuple[Any, ...] = ()) -> sqlite3.Cursor:
        if self._conn is None:
            raise sqlite3.ProgrammingError("SessionDB is closed")
        return self._conn.execute(sql, params)

    # -- sessions ------------------------------------------------------------

    def create_session(
        self,
        session_id: str,
        source: str,
        *,
        session_key: str | None = None,
        parent_session_id: str | None = None,
    ) -> str:
        """Insert a session row, or fill the NULL columns of an existing one.

        Idempotent and never overwrites: a second call cannot re-key or re-parent
        a session, it can only supply what was missing. Returns `session_id`.
        """
        if not session_id:
            raise ValueError("session_id must be a non-empty string")
        with self._lock:
            self._execute(
                """
                INSERT INTO sessions (id, source, session_key, parent_session_id, started_at)
                VALUES (?, ?, ?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET
                    session_key = COALESCE(sessions.session_key, excluded.session_key),
                    parent_session_id =
                        COALESCE(sessions.parent_session_id, excluded.parent_session_id)
                """,
                (session_id, source, session_key, parent_session_id, self._clock()),
            )
        return session_id

    def get_session(self, session_id: str) -> dict[str, Any] | None:
        """The session row as a dict keyed by column name, or None."""
        with self._lock:
            row = self._execute(
                f"SELECT {', '.join(_SESSION_COLUMNS)} FROM sessions WHERE id = ?",
                (session_id,),
            ).fetchone()
        return None if row is None else dict(zip(_SESSION_COLUMNS, row, strict=True))

    # -- compression cooldown (per session id) -------------------------------

    def record_compression_failure_cooldown(
        self, session_id: str, cooldown_until: float, error: str | None = None
    ) -> None:
        """Set the cooldown deadline (epoch seconds) and the reason.

        The reason is written unconditionally: None clears a previous one. A
        missing row is a no-op.
        """
        with self._lock:
            self._execute(
                """
                UPDATE sessions
                SET compression_failure_cooldown_until = ?, compression_failure_error = ?
                WHERE id = ?
                """,
                (cooldown_until, error, session_id),
            )

    def get_compression_failure_cooldown(self, session_id: str) -> dict[str, Any] | None:
        """The active cooldown, or None when there is no row, no deadline, or it has passed."""
        with self._lock:
            row = self._execute(
                """
                SELECT compression_failure_cooldown_until, compression_failure_error
                FROM sessions WHERE id = ?
                """,
                (session_id,),
            ).fetchone()
        if row is None or row[0] is None:
            return None
        cooldown_until, error = float(row[0]), row[1]
        remaining = cooldown_until - self._clock()
        if remaining <= 0:
            return None
        return {"cooldown_until": cooldown_until, "remaining_seconds": remaining, "error": error}

    def clear_compression_failure_cooldown(self, session_id: str) -> None:
        """Remove the deadline and the reason."""
        with self._lock:
            self._execute(
                """
                UPDATE sessions
                SET compression_failure_cooldown_until = NULL, compression_failure_error = NULL
                WHERE id = ?
                """,
                (session_id,),
            )

    # -- gateway hygiene streak (per session key, i.e. per chat) -------------
    # Keyed by the chat, not the session id: compaction rotates the id while
    # the chat, and its run of failures, stays the same.

    def increment_hygiene_failure_streak(self, session_key: str) -> int:
        """Atomically add one to the chat's streak and return the new value.

        An empty key cannot name a chat: it returns 1 and writes nothing.
        """
        if not session_key:
            return 1
        with self._lock:
            row = self._execute(
                """
                INSERT INTO gateway_hygiene_state (session_key, failure_streak) VALUES (?, 1)
                ON CONFLICT(session_key) DO UPDATE SET failure_streak = failure_streak + 1
                RETURNING failure_streak
                """,
                (session_key,),
            ).fetchone()
        return int(row[0])

    def reset_hygiene_failure_streak(self, session_key: str) -> None:
        """Forget the chat's streak (deletes its row)."""
        with self._lock:
            self._execute("DELETE FROM gateway_hygiene_state WHERE session_key = ?", (session_key,))

    def get_hygiene_failure_streak(self, session_key: str) -> int:
        """The chat's current streak; 0 when none is recorded."""
        with self._lock:
            row = self._execute(
                "SELECT failure_streak FROM gateway_hygiene_state WHERE session_key = ?",
                (session_key,),
            ).fetchone()
        return 0 if row is None else int(row[0])
