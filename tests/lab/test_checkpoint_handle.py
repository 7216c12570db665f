"""The lab's handle on a checkpoint (guardcheck/lab/execute/checkpoints.py), on a real
process standing in for the paused pytest session."""

from __future__ import annotations

import os
import subprocess

from guardcheck.lab.execute.checkpoints import Checkpoint
from guardcheck.lab.execute.processes import ForkedRun


def test_a_checkpoint_stopped_twice_kills_its_session_and_closes_its_pidfd_once(tmp_path):
    """Regression: a checkpoint whose fork failed was stopped there and again when its
    mutants next asked for it, and the second stop closed its pidfd's number again, by
    then another file's."""
    session = subprocess.Popen(["sleep", "60"], start_new_session=True)
    pidfd = os.pidfd_open(session.pid)
    run = ForkedRun(session.pid, pidfd, tmp_path / "exit-status")
    checkpoint = Checkpoint(run, "guardcheck-test-unused", "tests/test_x.py", tmp_path / "log")
    checkpoint.stop()
    assert session.wait(timeout=5) == -9  # its process group was killed
    other = os.open(tmp_path / "other", os.O_CREAT | os.O_WRONLY, 0o600)
    checkpoint.stop()
    os.fstat(other)  # still open: raises OSError if the second stop closed it
    os.close(other)
    assert not checkpoint.ready()  # and it serves no run


def test_a_checkpoint_that_is_not_listening_yet_is_not_ready(tmp_path):
    session = subprocess.Popen(["sleep", "60"], start_new_session=True)
    run = ForkedRun(session.pid, os.pidfd_open(session.pid), tmp_path / "exit-status")
    checkpoint = Checkpoint(run, "guardcheck-test-nobody-listens", "t.py", tmp_path / "log")
    try:
        assert not checkpoint.ready()
        assert not checkpoint.failed  # still starting: the lab asks again later
    finally:
        checkpoint.stop()
    assert session.wait(timeout=5) == -9
