"""Types of the session-hygiene call site: the compactor protocol and the outcome.

A compaction is driven by polling, so the runner's wait loop (in `run.py`) can
use an injectable clock and sleep and tests never wait for real time:

1. `Compactor.start(session_id, messages)` begins compacting and returns a job.
2. The runner polls `job.result()` (None while running) and `job.progress()`
   (a counter that grows whenever the summary model produces output; the wait
   is extended only while output keeps coming).
3. On a final timeout the runner calls `job.cancel()`: True means it was
   cancelled before committing anything; False means the compaction had
   already committed, and `job.result()` must then return that result.

Any exception from the compactor is treated as an abort whose reason is the
exception's text.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

Message = Mapping[str, Any]


@dataclass(frozen=True)
class CompactionResult:
    """What a finished compaction reports.

    `new_session_id` is set when the compaction rotated the session (a new id
    for the same chat); `in_place` when it rewrote the transcript under the same
    id. Neither set means nothing was rewritten, whatever the counts say.
    """

    new_count: int
    new_tokens: int
    new_session_id: str | None = None
    in_place: bool = False
    aborted: bool = False
    error: str | None = None


class CompactionJob(Protocol):
    """One running compaction."""

    def progress(self) -> int:
        """Output produced so far; any change counts as activity."""
        ...

    def result(self) -> CompactionResult | None:
        """The final result, or None while still running."""
        ...

    def cancel(self) -> bool:
        """Stop the job. True when nothing was committed; False when it already had."""
        ...


class Compactor(Protocol):
    """Starts compactions; the gateway runner is constructed with one."""

    def start(self, session_id: str, messages: Sequence[Message]) -> CompactionJob: ...


class HygieneFence:
    """Lets the owner of a hygiene run stop its wait early (e.g. gateway shutdown).

    Once cancelled, the wait is never extended again, however busy the
    compactor looks; the run ends like a final timeout.
    """

    def __init__(self) -> None:
        self._cancelled = False

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def cancel(self) -> None:
        self._cancelled = True


class HygieneStatus(enum.StrEnum):
    SKIPPED = "skipped"  # an active cooldown: compaction did not run
    RECOVERED = "recovered"  # rewritten with real progress; the streak was reset
    ABORTED = "aborted"  # the compactor reported an abort or raised
    TIMED_OUT = "timed_out"  # cancelled before committing after the wait ran out
    NO_PROGRESS = "no_progress"  # finished without recovering; nothing changed


@dataclass(frozen=True)
class HygieneOutcome:
    """What one `run_session_hygiene` call did.

    `session_id` is the id to continue the chat with (the new one after a
    rotation); `new_session_id` is set only when the session rotated.
    `cooldown_seconds` is the cooldown recorded, None when none was.
    """

    status: HygieneStatus
    session_id: str
    new_session_id: str | None = None
    cooldown_seconds: float | None = None
    reason: str | None = None
