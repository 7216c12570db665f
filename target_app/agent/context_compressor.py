"""The in-agent compressor's failure state and its own cooldown ladder.

This ladder (60 -> 300 -> 900 s) counts failures on the agent object, and
`bind_session_state` zeroes that count. The gateway builds a fresh agent for
every hygiene run and binds it, so from the gateway the count is always 1 and
the ladder never leaves 60 s. That is the structural bug the gateway's own
ladder (`target_app.gateway.run`) exists to fix; this module keeps the
original behaviour so tests can demonstrate it.
"""

from __future__ import annotations

import logging
import time
from typing import Protocol

logger = logging.getLogger(__name__)

IN_AGENT_COOLDOWN_LADDER_SECONDS: tuple[float, ...] = (60.0, 300.0, 900.0)


class CooldownRecorder(Protocol):
    """The part of `SessionDB` the compressor writes to."""

    def record_compression_failure_cooldown(
        self, session_id: str, cooldown_until: float, error: str | None = None
    ) -> None: ...


def in_agent_cooldown_seconds(consecutive_failures: int) -> float:
    """Cooldown for the Nth consecutive failure, saturating at the last rung."""
    rung = min(max(consecutive_failures, 1), len(IN_AGENT_COOLDOWN_LADDER_SECONDS))
    return IN_AGENT_COOLDOWN_LADDER_SECONDS[rung - 1]


class ContextCompressor:
    """Failure bookkeeping for one agent's context compression."""

    def __init__(self) -> None:
        self._consecutive_timeout_failures = 0
        self._session_db: CooldownRecorder | None = None
        self._session_id = ""

    def bind_session_state(
        self, session_db: CooldownRecorder | None = None, session_id: str = ""
    ) -> None:
        """Attach the agent to a session row. Zeroes the failure count (see module doc)."""
        self._session_db = session_db
        self._session_id = session_id
        self._consecutive_timeout_failures = 0

    def record_timeout_failure(self, error: str) -> float:
        """Count a timed-out compression and record the ladder's cooldown.

        Returns the cooldown in seconds. Writes it to the bound DB row when a
        DB and a session id are bound; a failing write is logged, not raised,
        because the caller is already handling a failure.
        """
        self._consecutive_timeout_failures += 1
        seconds = in_agent_cooldown_seconds(self._consecutive_timeout_failures)
        if self._session_db is not None and self._session_id:
            try:
                self._session_db.record_compression_failure_cooldown(
                    self._session_id, time.time() + seconds, error
                )
            except Exception:
                logger.warning("could not record in-agent compression cooldown", exc_info=True)
        return seconds
