"""The gateway runner's session hygiene: compaction before answering, and its failure ladder.

When compaction of an oversized chat keeps failing, the gateway must back off on
an escalating cooldown (x1, x3, x9 over the configured base, capped at an hour)
instead of retrying every few minutes forever. The failure streak that drives
the ladder is kept per chat (session key), outside the per-run agent, and in
SQLite when available, so it survives fresh agents, session-id rotation and
restarts. It is reset only after a compaction that really rewrote the
transcript and really shrank it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from target_app.agent.turn_context import compression_made_progress, estimate_messages_tokens
from target_app.gateway.hygiene import (
    CompactionJob,
    CompactionResult,
    Compactor,
    HygieneFence,
    HygieneOutcome,
    HygieneStatus,
    Message,
)
from target_app.gateway.session_state import SessionState, legacy_dict_property
from target_app.session_db import SessionDB

__all__ = [
    "DEFAULT_HYGIENE_FAILURE_COOLDOWN_SECONDS",
    "DEFAULT_HYGIENE_IDLE_TIMEOUT_SECONDS",
    "DEFAULT_HYGIENE_POLL_INTERVAL_SECONDS",
    "DEFAULT_HYGIENE_WAIT_CEILING_SECONDS",
    "HYGIENE_TIMEOUT_REASON",
    "CompactionJob",
    "CompactionResult",
    "Compactor",
    "GatewayRunner",
    "HygieneFence",
    "HygieneOutcome",
    "HygieneStatus",
    "hygiene_compaction_recovered",
    "hygiene_wait_should_extend",
    "logger",
]

logger = logging.getLogger(__name__)

_HYGIENE_COOLDOWN_LADDER_MULTIPLIERS = (1, 3, 9)
_HYGIENE_COOLDOWN_MAX_SECONDS = 3600.0
DEFAULT_HYGIENE_FAILURE_COOLDOWN_SECONDS = 300.0
DEFAULT_HYGIENE_IDLE_TIMEOUT_SECONDS = 30.0
DEFAULT_HYGIENE_WAIT_CEILING_SECONDS = 600.0
DEFAULT_HYGIENE_POLL_INTERVAL_SECONDS = 1.0

HYGIENE_TIMEOUT_REASON = (
    "session hygiene compression timed out with no output from the summary model"
)
DEFAULT_HYGIENE_ABORT_REASON = "session hygiene compression aborted"
# Source for a rotated session whose parent row is missing (it cannot be copied).
FALLBACK_SESSION_SOURCE = "gateway"


# -- the failure ladder --------------------------------------------------------


def _ladder_multiplier(streak: int) -> int:
    """x1 for the first failure, x3 for the second, x9 from the third on."""
    rung = min(max(streak, 1), len(_HYGIENE_COOLDOWN_LADDER_MULTIPLIERS))
    return _HYGIENE_COOLDOWN_LADDER_MULTIPLIERS[rung - 1]


def _session_db_of(gateway: Any) -> Any:
    try:
        return getattr(gateway, "_session_db", None)
    except Exception:
        return None


def _bump_durable_streak(gateway: Any, session_key: str) -> int | None:
    """Increment the streak in the DB; None when there is no DB support or it failed."""
    increment = getattr(_session_db_of(gateway), "increment_hygiene_failure_streak", None)
    if increment is None:
        return None
    try:
        return int(increment(session_key))
    except Exception:
        logger.warning("hygiene: durable failure streak unavailable", exc_info=True)
        return None


def _mirror_streak(gateway: Any, session_key: str, streak: int) -> None:
    """Copy the durable streak into memory; a failure here must not change the cooldown."""
    try:
        persistent = gateway._session_state(session_key).persistent
        persistent.hygiene_failure_streak = streak
    except Exception:
        logger.warning("hygiene: could not mirror the failure streak", exc_info=True)


def _bump_memory_streak(gateway: Any, session_key: str) -> int | None:
    """Increment the in-memory streak; None when the gateway cannot hold one."""
    try:
        persistent = gateway._session_state(session_key).persistent
        persistent.hygiene_failure_streak += 1
        return persistent.hygiene_failure_streak
    except Exception:
        logger.warning("hygiene: in-memory failure streak unavailable", exc_info=True)
        return None


def _bump_failure_streak(gateway: Any, session_key: str) -> int:
    # The durable count wins: it is the one that survives restarts and it
    # decides the cooldown even when mirroring it into memory fails.
    durable = _bump_durable_streak(gateway, session_key)
    if durable is not None:
        _mirror_streak(gateway, session_key, durable)
        return durable
    in_memory = _bump_memory_streak(gateway, session_key)
    if in_memory is not None:
        return in_memory
    # No streak at all: fall back to the first rung rather than no cooldown.
    return 1


def _hygiene_cooldown_for_failure(
    gateway: Any, session_key: str, base_cooldown_seconds: float
) -> float:
    """Count one more failure for this chat and return its cooldown in seconds.

    `min(base * multiplier, cap)`: base 300 gives 300, 900, 2700, 2700, ...; a
    base of 0 stays 0; a base above the cap returns the cap. Never raises: the
    caller records whatever this returns, and an exception would mean no
    cooldown at all, i.e. a hot retry loop.
    """
    streak = _bump_failure_streak(gateway, session_key)
    multiplier = _ladder_multiplier(streak)
    return min(base_cooldown_seconds * multiplier, _HYGIENE_COOLDOWN_MAX_SECONDS)


def _reset_hygiene_failure_streak(gateway: Any, session_key: str) -> None:
    """Forget this chat's failures, in memory and durably. Never raises.

    Peeks rather than get-or-creates: writing a zero is no reason to
    materialise a session entry (or the sessions map) that did not exist.
    """
    try:
        state = gateway._peek_session_state(session_key)
        if state is not None:
            state.persistent.hygiene_failure_streak = 0
    except Exception:
        logger.warning("hygiene: could not reset the in-memory failure streak", exc_info=True)
    reset = getattr(_session_db_of(gateway), "reset_hygiene_failure_streak", None)
    if reset is None:
        return
    try:
        reset(session_key)
    except Exception:
        logger.warning("hygiene: could not reset the durable failure streak", exc_info=True)


def _record_hygiene_cooldown(
    gateway: Any, session_id: str, cooldown_seconds: float, error: str | None = None
) -> None:
    """Record `cooldown_seconds` from now (an epoch deadline) on the session row. Never raises."""
    record = getattr(_session_db_of(gateway), "record_compression_failure_cooldown", None)
    if record is None:
        return
    try:
        # Positional, and `error` even when None: the DB writes the reason
        # column unconditionally, so leaving it out would clobber a reason
        # recorded elsewhere and users would see "unknown error".
        record(session_id, time.time() + cooldown_seconds, error)
    except Exception:
        logger.warning("hygiene: could not record the compression cooldown", exc_info=True)


# -- pure decisions --------------------------------------------------------------


def hygiene_compaction_recovered(
    *,
    aborted: bool,
    rotated: bool,
    in_place: bool,
    msg_count: int,
    new_count: int,
    approx_tokens: int,
    new_tokens: int,
) -> bool:
    """Did this compaction end the chat's failure streak?

    Only a run that was not aborted, that really rewrote the transcript
    (rotated or in place) and that made progress by the shared predicate.
    Counts that read as progress do not count when nothing was rewritten.
    """
    if aborted:
        return False
    if not (rotated or in_place):
        return False
    return compression_made_progress(msg_count, new_count, approx_tokens, new_tokens)


def hygiene_wait_should_extend(
    *, idle: float, timeout: float, waited: float, ceiling: float, fence_cancelled: bool = False
) -> bool:
    """Keep waiting for the compactor? Only while output keeps coming, under the ceiling,
    and never once the fence is cancelled."""
    return not fence_cancelled and idle < timeout and waited < ceiling


def _exception_text(exc: BaseException) -> str:
    return str(exc) or type(exc).__name__


# -- the runner ------------------------------------------------------------------


class GatewayRunner:
    """Holds per-chat state and runs session hygiene before a turn.

    Works without `__init__` (`object.__new__(GatewayRunner)`): every attribute
    has a class-level default and the sessions map is created lazily.
    """

    _session_db: SessionDB | None = None
    _compactor: Compactor | None = None
    _base_cooldown_seconds: float = DEFAULT_HYGIENE_FAILURE_COOLDOWN_SECONDS
    _idle_timeout_seconds: float = DEFAULT_HYGIENE_IDLE_TIMEOUT_SECONDS
    _wait_ceiling_seconds: float = DEFAULT_HYGIENE_WAIT_CEILING_SECONDS
    _poll_interval_seconds: float = DEFAULT_HYGIENE_POLL_INTERVAL_SECONDS
    _clock: Callable[[], float] = staticmethod(time.monotonic)
    _sleep: Callable[[float], Awaitable[None]] = staticmethod(asyncio.sleep)

    # Legacy dict names, now live views over SessionState fields.
    _running_agents = legacy_dict_property("_running_agents")
    _running_agents_ts = legacy_dict_property("_running_agents_ts")
    _busy_ack_ts = legacy_dict_property("_busy_ack_ts")
    _session_model_overrides = legacy_dict_property("_session_model_overrides")
    _session_reasoning_overrides = legacy_dict_property("_session_reasoning_overrides")
    _session_service_tier_overrides = legacy_dict_property("_session_service_tier_overrides")
    _last_resolved_model = legacy_dict_property("_last_resolved_model")
    _queued_events = legacy_dict_property("_queued_events")
    _pending_approvals = legacy_dict_property("_pending_approvals")
    _update_prompt_pending = legacy_dict_property("_update_prompt_pending")
    _pending_messages = legacy_dict_property("_pending_messages")
    _session_run_generation = legacy_dict_property("_session_run_generation")

    def __init__(
        self,
        session_db: SessionDB | None = None,
        compactor: Compactor | None = None,
        *,
        base_cooldown_seconds: float = DEFAULT_HYGIENE_FAILURE_COOLDOWN_SECONDS,
        idle_timeout_seconds: float = DEFAULT_HYGIENE_IDLE_TIMEOUT_SECONDS,
        wait_ceiling_seconds: float = DEFAULT_HYGIENE_WAIT_CEILING_SECONDS,
        poll_interval_seconds: float = DEFAULT_HYGIENE_POLL_INTERVAL_SECONDS,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        """`clock` (monotonic seconds) and `sleep` drive the compaction wait; tests fake both.

        A negative `base_cooldown_seconds` disables the failure path (no streak,
        no cooldown).
        """
        self._session_db = session_db
        self._compactor = compactor
        self._base_cooldown_seconds = base_cooldown_seconds
        self._idle_timeout_seconds = idle_timeout_seconds
        self._wait_ceiling_seconds = wait_ceiling_seconds
        self._poll_interval_seconds = poll_interval_seconds
        self._clock = clock
        self._sleep = sleep
        self._sessions: dict[str, SessionState] = {}

    # -- per-chat state ------------------------------------------------------

    def _sessions_map(self) -> dict[str, SessionState]:
        sessions = self.__dict__.get("_sessions")
        if sessions is None:
            sessions = self.__dict__["_sessions"] = {}
        return sessions

    def _session_state(self, session_key: str) -> SessionState:
        sessions = self._sessions_map()
        state = sessions.get(session_key)
        if state is None:
            state = sessions[session_key] = SessionState()
        return state

    def _peek_session_state(self, session_key: str) -> SessionState | None:
        sessions = self.__dict__.get("_sessions")
        if not sessions:
            return None
        return sessions.get(session_key)

    def begin_turn(self, session_key: str, agent: Any) -> int:
        """Start a turn with `agent`; returns the chat's new run generation."""
        state = self._session_state(session_key)
        state.turn.agent = agent
        state.turn.started_ts = time.time()
        state.persistent.run_generation += 1
        return state.persistent.run_generation

    def end_turn(self, session_key: str) -> None:
        state = self._peek_session_state(session_key)
        if state is not None:
            state.end_turn()

    def reset_conversation(self, session_key: str) -> None:
        """A conversation boundary (/new, /resume)."""
        state = self._peek_session_state(session_key)
        if state is not None:
            state.reset_conversation()

    # -- session hygiene -----------------------------------------------------

    async def run_session_hygiene(
        self,
        session_key: str,
        session_id: str,
        messages: Sequence[Message],
        *,
        fence: HygieneFence | None = None,
    ) -> HygieneOutcome:
        """Compact the chat's transcript, backing off on an escalating cooldown on failure.

        `fence` lets the caller stop the wait early; a cancelled fence ends the
        run like a final timeout.
        """
        # (1) A recent failure is cooling down: skip, and leave the streak alone.
        active_cooldown = self._active_cooldown(session_id)
        if active_cooldown is not None:
            return HygieneOutcome(
                HygieneStatus.SKIPPED, session_id, reason=active_cooldown.get("error")
            )

        compactor = self._compactor
        if compactor is None:
            raise RuntimeError("GatewayRunner was constructed without a compactor")
        msg_count = len(messages)
        approx_tokens = estimate_messages_tokens(messages)
        try:
            result = await self._run_compactor(
                compactor, session_id, messages, fence or HygieneFence()
            )
        except Exception as exc:
            # A compactor that raises is an abort; its text is the reason.
            result = CompactionResult(
                new_count=msg_count,
                new_tokens=approx_tokens,
                aborted=True,
                error=_exception_text(exc),
            )

        # (3) Final timeout, cancelled before anything was committed.
        if result is None:
            return HygieneOutcome(
                HygieneStatus.TIMED_OUT,
                session_id,
                cooldown_seconds=self._record_hygiene_failure(
                    session_key, session_id, HYGIENE_TIMEOUT_REASON
                ),
                reason=HYGIENE_TIMEOUT_REASON,
            )

        # (4) The compactor gave up.
        if result.aborted:
            reason = result.error or DEFAULT_HYGIENE_ABORT_REASON
            return HygieneOutcome(
                HygieneStatus.ABORTED,
                session_id,
                cooldown_seconds=self._record_hygiene_failure(session_key, session_id, reason),
                reason=reason,
            )

        new_session_id = result.new_session_id
        rotated = bool(new_session_id) and new_session_id != session_id
        if rotated:
            self._create_rotated_session(session_id, str(new_session_id), session_key)
        current_session_id = str(new_session_id) if rotated else session_id

        recovered = hygiene_compaction_recovered(
            aborted=result.aborted,
            rotated=rotated,
            in_place=result.in_place,
            msg_count=msg_count,
            new_count=result.new_count,
            approx_tokens=approx_tokens,
            new_tokens=result.new_tokens,
        )
        # (5) Only a genuine recovery ends the streak.
        if recovered:
            _reset_hygiene_failure_streak(self, session_key)
        # (6) Otherwise nothing changes: no cooldown, and the streak stands.
        return HygieneOutcome(
            HygieneStatus.RECOVERED if recovered else HygieneStatus.NO_PROGRESS,
            current_session_id,
            new_session_id=current_session_id if rotated else None,
        )

    def _active_cooldown(self, session_id: str) -> dict[str, Any] | None:
        get = getattr(self._session_db, "get_compression_failure_cooldown", None)
        if get is None:
            return None
        try:
            return get(session_id)
        except Exception:
            # An unreadable cooldown must not block hygiene for good.
            logger.warning("hygiene: could not read the compression cooldown", exc_info=True)
            return None

    async def _run_compactor(
        self,
        compactor: Compactor,
        session_id: str,
        messages: Sequence[Message],
        fence: HygieneFence,
    ) -> CompactionResult | None:
        """The compaction's result, or None after a final timeout that cancelled it in time."""
        job = compactor.start(session_id, messages)
        result = await self._await_compaction(job, fence)
        if result is not None:
            return result
        if job.cancel():
            return None
        # Commit race: the job committed before the cancellation landed. The
        # commit stands, so it goes through the normal recovery decision.
        committed = job.result()
        if committed is None:
            raise RuntimeError("compactor reported a commit on cancel but has no result")
        return committed

    async def _await_compaction(
        self, job: CompactionJob, fence: HygieneFence
    ) -> CompactionResult | None:
        """Poll `job` in slices; None when the wait should no longer be extended."""
        started = self._clock()
        last_progress = job.progress()
        last_progress_at = started
        while True:
            result = job.result()
            if result is not None:
                return result
            now = self._clock()
            progress = job.progress()
            if progress != last_progress:
                last_progress, last_progress_at = progress, now
            if not hygiene_wait_should_extend(
                idle=now - last_progress_at,
                timeout=self._idle_timeout_seconds,
                waited=now - started,
                ceiling=self._wait_ceiling_seconds,
                fence_cancelled=fence.cancelled,
            ):
                return None
            await self._sleep(self._poll_interval_seconds)

    def _record_hygiene_failure(
        self, session_key: str, session_id: str, reason: str
    ) -> float | None:
        """Escalate the chat's streak and record the cooldown; the seconds recorded, or None."""
        base = self._base_cooldown_seconds
        if base < 0:
            # A negative base is the operator's switch to turn the failure path off.
            return None
        cooldown = _hygiene_cooldown_for_failure(self, session_key, base)
        _record_hygiene_cooldown(self, session_id, cooldown, reason)
        return cooldown

    def _create_rotated_session(self, parent_id: str, new_id: str, session_key: str) -> None:
        """Record the rotated session: same chat, linked to its parent, same source."""
        db = self._session_db
        if db is None:
            return
        try:
            parent = db.get_session(parent_id)
            if parent is None:
                # Foreign keys forbid linking to a row that does not exist.
                logger.warning("hygiene: parent session %s missing; new row unlinked", parent_id)
                db.create_session(new_id, FALLBACK_SESSION_SOURCE, session_key=session_key)
            else:
                db.create_session(
                    new_id,
                    parent["source"],
                    session_key=session_key,
                    parent_session_id=parent_id,
                )
        except Exception:
            logger.warning("hygiene: could not record the rotated session", exc_info=True)
