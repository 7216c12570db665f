"""Process helpers (child/procs.py): exit descriptions, and killing a whole process group."""

from __future__ import annotations

import signal
import subprocess

import pytest
from support.processes import alive, descendants, wait_until

from guardcheck.child.procs import describe_exit, describe_returncode, kill_group


@pytest.mark.parametrize(
    ("code", "text"),
    [
        (0, "exit code 0"),
        (3, "exit code 3"),
        (-11, "SIGSEGV"),
        (-9, "SIGKILL"),
        (-200, "signal 200"),
    ],
)
def test_describe_returncode(code, text):
    assert describe_returncode(code) == text


@pytest.mark.parametrize(
    ("status", "text"),
    [(3 << 8, "exit code 3"), (0, "exit code 0"), (signal.SIGSEGV, "SIGSEGV")],
)
def test_describe_exit_reads_a_waitpid_status(status, text):
    assert describe_exit(status) == text


@pytest.mark.slow
def test_kill_group_ends_the_leader_and_everything_it_started():
    # A shell leading its own group, with two sleeps below it (what a test's subprocesses are).
    leader = subprocess.Popen(["sh", "-c", "sleep 60 & sleep 60 & wait"], start_new_session=True)
    try:
        assert wait_until(lambda: len(descendants(leader.pid)) == 2), descendants(leader.pid)
        group = descendants(leader.pid) | {leader.pid}
        kill_group(leader.pid)
        assert leader.wait(timeout=10) == -signal.SIGKILL
        assert wait_until(lambda: not any(alive(pid) for pid in group))
    finally:
        if leader.poll() is None:
            leader.kill()
            leader.wait()
    kill_group(leader.pid)  # a group that is gone is fine
