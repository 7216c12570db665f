"""No test subprocess outlives a run: kill -9 of guardcheck or of the host, mutant timeouts.

Each mutant starts `sleep 303.<token>` (a token unique to the test, so the process table
scan finds exactly ours) and then hangs; the checks read /proc (support/processes.py).
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.processes import alive, wait_until
from test_reliability import SLEEP, host_of, start_driver, wait_started

pytestmark = pytest.mark.slow


def sleeps(token: str) -> list[int]:
    """Pids of every live `sleep 303.<token>` on the machine."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            except OSError:
                continue
            if cmdline == f"sleep\0{token}\0".encode() and alive(int(entry)):
                found.append(int(entry))
    return found


def spawner(token: str, mark: Path, *, new_session: bool = False) -> str:
    """An expression that starts the sleep, leaves `mark`, then hangs (SLEEP)."""
    session = ", start_new_session=True" if new_session else ""
    popen = f"__import__('subprocess').Popen(['sleep', {token!r}]{session})"
    return f"({popen}, open({str(mark)!r}, 'w').close(), {SLEEP})"


@pytest.fixture
def token() -> str:
    token = f"303.{uuid.uuid4().int % 10**9}"
    yield token
    for pid in sleeps(token):  # never leave one behind, even when the test fails
        os.kill(pid, signal.SIGKILL)


@contextlib.contextmanager
def sleeping(
    tmp_path: Path, ident: str, find: str, template: str, token: str
) -> Iterator[subprocess.Popen]:
    """A driver running one mutant (`template` with {} for the spawner) until the sleep runs;
    the driver is killed on the way out whatever happened."""
    mark = tmp_path / "spawned"
    mutants = [[ident, find, template.format(spawner(token, mark))]]
    _, _, driver = start_driver(tmp_path, mutants, {"jobs": 1, "timeout_constant": 60.0})
    try:
        wait_started(driver, 1)
        assert wait_until(lambda: mark.exists() and sleeps(token), seconds=60)
        yield driver
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()


def test_kill_9_of_guardcheck_kills_a_fresh_mutants_test_subprocess(tmp_path, token):
    # A module-level change: it runs in a fresh interpreter, the lab's own child.
    with sleeping(tmp_path, "fresh-sleeps", "LIMIT = 10", "LIMIT = {}", token) as driver:
        driver.send_signal(signal.SIGKILL)
        driver.wait()
        assert wait_until(lambda: not sleeps(token), seconds=15), "sleep 303 survived"


def test_kill_9_of_the_host_kills_its_childrens_test_subprocesses(tmp_path, token):
    with sleeping(tmp_path, "fork-sleeps", "return a + b", "return {}", token) as driver:
        os.kill(host_of(driver), signal.SIGKILL)
        out, _ = driver.communicate(timeout=30)
        assert out.strip().splitlines()[-1] == "finished", out
        assert wait_until(lambda: not sleeps(token), seconds=15), "sleep 303 survived"


def test_a_new_session_subprocess_dies_with_its_timed_out_mutant(tmp_path, token):
    mark = tmp_path / "spawned"
    hangs = spawner(token, mark, new_session=True)
    mutants = [["fork-escapes", "return a + b", f"return {hangs}"]]
    _, _, driver = start_driver(tmp_path, mutants, {"jobs": 1, "timeout_constant": 3.0})
    try:
        out, _ = driver.communicate(timeout=90)
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()
    assert "result fork-escapes timeout" in out, out
    assert mark.exists()
    assert not sleeps(token), "the escaped sleep outlived its mutant's timeout"
