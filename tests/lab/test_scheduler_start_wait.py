"""The scheduler's wait for the start checkpoint (lab/execute/scheduler.py).

The host and the checkpoints stand in: the race is between two looks at the
checkpoint, which no real process can be made to hit on cue.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections import deque
from pathlib import Path

from guardcheck.lab.execute.processes import HostInfo
from guardcheck.lab.execute.scheduler import Scheduler, _Job
from guardcheck.lab.plan import RunPlan
from guardcheck.lab.prepare.classify import Activation
from guardcheck.model import ExecutionPath, FileChange, Mutant, Where
from guardcheck.options import RunOptions


class SilentHost:
    """A host with nothing to say: its descriptor never becomes readable until closed."""

    def __init__(self) -> None:
        self.read_end, self.write_end = os.pipe()
        self.wants_write = False
        self.inbox: deque[object] = deque()
        self.roots: list[str] = []

    def fileno(self) -> int:
        return self.read_end

    def receive(self) -> None:
        pass


class ListeningOnSecondLook:
    """The start checkpoint on its way at the first look, listening from the second on."""

    def __init__(self) -> None:
        self.looks = 0

    def starting(self) -> bool:
        self.looks += 1
        return self.looks == 1


class RunStarted(Exception):
    pass


def fresh_job(index: int) -> _Job:
    change = FileChange("m.py", "X = 1\n", "X = 2\n", Where("m.py", 1))
    plan = RunPlan(Mutant("m", "m", (change,)), ("t.py::t",), (), 5.0)
    return _Job(index, plan, Activation(ExecutionPath.FRESH, "module level"))


def test_a_run_held_for_the_start_checkpoint_starts_once_it_listens(tmp_path: Path) -> None:
    """Regression (CI of stop 45, tests/e2e/test_verdicts.py timed out): the only run
    left was held because the start checkpoint was still on its way; the wait then
    looked again, found it listening, and so waited on the silent host for ever."""
    host = SilentHost()
    info = HostInfo(tmp_path, None, {}, startup=0.1)
    scheduler = Scheduler(
        RunOptions(root=tmp_path, jobs=2), _no_events(), host, info, tmp_path, {}, {}
    )
    scheduler._checkpoints = ListeningOnSecondLook()  # type: ignore[assignment]
    started: list[int] = []

    def start(job: _Job) -> None:
        started.append(job.index)
        raise RunStarted  # all this test asks: it left the queue

    def run() -> None:
        with contextlib.suppress(RunStarted):
            scheduler.run()

    scheduler._start = start  # type: ignore[method-assign]
    scheduler.pending.append(fresh_job(0))
    loop = threading.Thread(target=run, daemon=True)
    loop.start()
    loop.join(timeout=10)
    waited_for_ever = loop.is_alive()
    os.close(host.write_end)  # ends a wait on the host, should it be stuck there
    loop.join(timeout=10)
    os.close(host.read_end)
    assert not waited_for_ever
    assert started == [0]


def _no_events():  # type: ignore[no-untyped-def]
    class NoEvents:
        def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
            return lambda *args, **kwargs: None

    return NoEvents()
