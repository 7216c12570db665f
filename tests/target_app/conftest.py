"""Fixtures for target_app's behaviour tests: a real SessionDB, a fake clock, scripted compactors.

Nothing here sleeps: the runner's wait loop is driven by `FakeClock.sleep`,
which advances the clock instantly, and scripted jobs read that clock.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from target_app.gateway.hygiene import CompactionResult, Message
from target_app.gateway.run import GatewayRunner
from target_app.session_db import SessionDB


class FakeClock:
    """A monotonic clock that only moves when the code under test sleeps."""

    def __init__(self, start: float = 1_000.0) -> None:
        self.now = start
        self.started = start
        self.sleep_calls = 0
        self.on_sleep: list[Callable[[float], None]] = []

    def __call__(self) -> float:
        return self.now

    @property
    def elapsed(self) -> float:
        return self.now - self.started

    async def sleep(self, seconds: float) -> None:
        self.sleep_calls += 1
        self.now += seconds
        for hook in self.on_sleep:
            hook(self.elapsed)


@dataclass
class Script:
    """How one scripted compaction behaves, in fake-clock seconds since it started."""

    result: CompactionResult | None = None
    finish_after: float | None = 0.0  # None: never finishes on its own
    output_every: float | None = None  # None: the summary model stays silent
    output_until: float | None = None  # stop producing output after this
    committed_on_cancel: CompactionResult | None = None  # commit race: cancel() is too late
    raise_on_start: Exception | None = None
    raise_on_result: Exception | None = None


class ScriptedJob:
    def __init__(self, script: Script, clock: FakeClock) -> None:
        self.script = script
        self.clock = clock
        self.started_at = clock.now
        self.cancel_calls = 0
        self.cancelled = False
        self.committed: CompactionResult | None = None

    def _elapsed(self) -> float:
        return self.clock.now - self.started_at

    def progress(self) -> int:
        if self.script.output_every is None:
            return 0
        elapsed = self._elapsed()
        if self.script.output_until is not None:
            elapsed = min(elapsed, self.script.output_until)
        return int(elapsed // self.script.output_every)

    def result(self) -> CompactionResult | None:
        if self.cancelled:
            return self.committed
        if self.script.raise_on_result is not None:
            raise self.script.raise_on_result
        finish_after = self.script.finish_after
        if finish_after is not None and self._elapsed() >= finish_after:
            return self.script.result
        return None

    def cancel(self) -> bool:
        self.cancel_calls += 1
        self.cancelled = True
        if self.script.committed_on_cancel is not None:
            self.committed = self.script.committed_on_cancel
            return False
        return True


class ScriptedCompactor:
    """Plays `scripts` in order, one per `start`; the last one repeats."""

    def __init__(self, clock: FakeClock, *scripts: Script) -> None:
        assert scripts, "a scripted compactor needs at least one script"
        self.clock = clock
        self.scripts = list(scripts)
        self.starts: list[tuple[str, int]] = []
        self.jobs: list[ScriptedJob] = []

    def start(self, session_id: str, messages: Sequence[Message]) -> ScriptedJob:
        script = self.scripts[min(len(self.starts), len(self.scripts) - 1)]
        self.starts.append((session_id, len(messages)))
        if script.raise_on_start is not None:
            raise script.raise_on_start
        job = ScriptedJob(script, self.clock)
        self.jobs.append(job)
        return job


def make_transcript(count: int = 100, chars: int = 40) -> list[dict[str, Any]]:
    """`count` messages of `chars` characters: 100 x 40 estimates to 1000 tokens."""
    return [{"role": "user", "content": "x" * chars} for _ in range(count)]


@pytest.fixture
def transcript() -> Callable[..., list[dict[str, Any]]]:
    """`transcript(count=100, chars=40)`: a transcript whose size the tests control."""
    return make_transcript


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "sessions.db"


@pytest.fixture
def session_db(db_path: Path) -> Iterator[SessionDB]:
    db = SessionDB(db_path)
    yield db
    db.close()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def make_compactor(clock: FakeClock) -> Callable[..., ScriptedCompactor]:
    """`make_compactor(**Script fields)` for one behaviour repeated on every start, or
    `make_compactor(scripts=[{...}, {...}])` for a sequence (the last one repeats)."""

    def make(scripts: Sequence[dict[str, Any]] = (), **single: Any) -> ScriptedCompactor:
        plays = [Script(**fields) for fields in scripts] or [Script(**single)]
        return ScriptedCompactor(clock, *plays)

    return make


@pytest.fixture
def make_runner(clock: FakeClock) -> Callable[..., GatewayRunner]:
    """A runner on the fake clock; keyword arguments go to `GatewayRunner`."""

    def make(session_db: Any = None, compactor: Any = None, **kwargs: Any) -> GatewayRunner:
        return GatewayRunner(session_db, compactor, clock=clock, sleep=clock.sleep, **kwargs)

    return make


class EpochClock:
    """Epoch seconds for SessionDB that tests can jump forward to expire cooldowns.

    Deadlines are written with the real `time.time()`, so this starts at real time.
    """

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset

    def advance(self, seconds: float) -> None:
        self.offset += seconds


@pytest.fixture
def epoch() -> EpochClock:
    return EpochClock()


@pytest.fixture
def timed_db(db_path: Path, epoch: EpochClock) -> Iterator[SessionDB]:
    """A SessionDB whose notion of "now" follows `epoch`."""
    db = SessionDB(db_path, clock=epoch)
    yield db
    db.close()
