"""Kill -9, Ctrl-C and crashing tests: no orphan processes, a clean tree, a working next run.

Each test drives run_lab from a real separate Python process, so it can be
killed like a user's terminal would, and checks the process table afterwards.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from support.lab import T, mutant, run
from support.processes import alive, descendants, parent_table, wait_until
from support.projects import commit, copy_project, git_status, write_files

from guardcheck.lab.execute.baseline import BaselineFailed
from guardcheck.model import Status

pytestmark = pytest.mark.slow

DRIVER = Path(__file__).parents[1] / "support" / "lab_driver.py"


def sleepers(folder: Path) -> list[list[str]]:
    """Two hanging mutants, each leaving a mark in `folder` once it is where it hangs."""
    fork, fresh = folder / "fork-hangs", folder / "fresh-hangs"
    return [
        # Forked by the host: hangs inside a test.
        ["sleep-fork", "return a + b", f"return (open({str(fork)!r}, 'w').close(), {SLEEP})"],
        # Fresh interpreter: hangs while importing the mutated module.
        ["sleep-fresh", "LIMIT = 10", f"LIMIT = (open({str(fresh)!r}, 'w').close(), {SLEEP})"],
    ]


SLEEP = "__import__('time').sleep(60)"  # a hang in the fixture program, not a wait of ours


def start_driver(
    tmp_path: Path, mutants: list[list[str]], options: dict[str, object]
) -> tuple[Path, Path, subprocess.Popen]:
    """A project, plus a driver process running `mutants` on it with run_lab `options`."""
    root = copy_project(tmp_path / "calc", "calc", git=True)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"mutants": mutants, "options": options}), encoding="utf-8")
    driver = subprocess.Popen(
        [sys.executable, str(DRIVER), str(root), str(spec)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "TMPDIR": str(scratch)},  # where the lab's scratch folder goes
        # Ctrl-C as a terminal delivers it: a suite started in the background of a
        # non-interactive shell (nohup, `&`) inherits SIGINT ignored, and so would the lab.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    return root, scratch, driver


def wait_started(driver: subprocess.Popen, count: int) -> None:
    started = set()
    while len(started) < count:
        line = driver.stdout.readline()
        assert line, "driver exited early"
        started.add(line.split()[1])


def host_of(driver: subprocess.Popen) -> int:
    """The pytest host: the lab's own child; its forked children share its command line."""
    parents = parent_table()
    return next(
        p
        for p in descendants(driver.pid)
        if parents.get(p) == driver.pid
        and "guardcheck.child.host" in Path(f"/proc/{p}/cmdline").read_text()
    )


@pytest.fixture
def driven(tmp_path):
    """A project, plus a driver process running two hanging mutants on it."""
    mutants = sleepers(tmp_path)
    root, scratch, driver = start_driver(tmp_path, mutants, {"jobs": 2, "timeout_constant": 60.0})
    wait_started(driver, 2)

    def both_hanging() -> bool:
        # The fork child is inside its test and the fresh pytest inside its import; the
        # host, its forked child and the fresh pytest are all below the driver.
        marks = (tmp_path / "fork-hangs", tmp_path / "fresh-hangs")
        return all(m.exists() for m in marks) and len(descendants(driver.pid)) >= 3

    assert wait_until(both_hanging, seconds=60)
    try:
        yield root, scratch, driver
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()


def assert_clean_afterwards(root: Path, scratch: Path, pids: set[int]) -> None:
    assert wait_until(lambda: not any(alive(p) for p in pids)), "orphan processes remain"
    assert wait_until(lambda: not any(scratch.iterdir())), list(scratch.iterdir())
    assert git_status(root) == ""
    again = run(root, [mutant(root, "add", "return a + b", "return a - b")], jobs=1)
    assert again.results[0].status is Status.CAUGHT


def test_kill_9_of_the_lab_leaves_no_orphans_and_a_clean_tree(driven):
    root, scratch, driver = driven
    pids = descendants(driver.pid)
    driver.send_signal(signal.SIGKILL)
    driver.wait()
    assert_clean_afterwards(root, scratch, pids)


def test_kill_9_of_the_pytest_host_ends_the_run_incomplete_and_no_orphans(driven):
    """Regression: the host dying mid-run raised a usage error (exit 2, "nothing was run")
    and lost the results of the mutants that had finished."""
    root, scratch, driver = driven
    pids = descendants(driver.pid)
    os.kill(host_of(driver), signal.SIGKILL)
    out, _ = driver.communicate(timeout=20)
    lines = out.strip().splitlines()
    assert lines[-1] == "finished"
    assert lines[-2].startswith("incomplete pytest (the guardcheck host) stopped unexpectedly")
    assert not any(alive(p) for p in pids)
    assert_clean_afterwards(root, scratch, pids)


def test_kill_9_of_a_mutant_worker_is_a_crash_verdict_and_the_run_goes_on(tmp_path):
    """Issue 4's reliability list: a worker (a mutant's forked child) killed with -9."""
    # The first hangs in its first test, after leaving a mark (outside the project) that it
    # is there; the others are ordinary mutants queued behind it (one job).
    mark = tmp_path / "hanging"
    mutants = [
        ["hangs", "return a + b", f"return (open({str(mark)!r}, 'w').close(), {SLEEP})"],
        ["after-clamp", "if x > LIMIT", "if x < LIMIT"],
        ["after-square", "return x * x", "return x + x"],
    ]
    root, scratch, driver = start_driver(tmp_path, mutants, {"jobs": 1, "timeout_constant": 60.0})
    try:
        wait_started(driver, 1)
        assert wait_until(mark.exists, seconds=30), "the mutant never reached its test"
        host = host_of(driver)
        workers = {p for p, parent in parent_table().items() if parent == host and alive(p)}
        assert len(workers) == 1, workers  # the hanging mutant's child, nothing else
        pids = descendants(driver.pid)
        os.kill(workers.pop(), signal.SIGKILL)
        out, _ = driver.communicate(timeout=60)
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()
    lines = out.strip().splitlines()
    assert lines[-1] == "finished", out
    results = {
        ident: (status, reason)
        for _, ident, status, reason in (
            line.split(" ", 3) for line in lines if line.startswith("result ")
        )
    }
    status, reason = results["hangs"]
    assert status == "caught"
    assert reason.startswith(f"crash: SIGKILL during {T}test_add"), reason
    assert results["after-clamp"][0] == "caught"
    assert results["after-square"][0] == "caught"
    assert_clean_afterwards(root, scratch, pids)


def test_ctrl_c_returns_an_interrupted_report_after_every_child_is_dead(driven):
    root, scratch, driver = driven
    pids = descendants(driver.pid)
    driver.send_signal(signal.SIGINT)
    out, _ = driver.communicate(timeout=20)
    assert out.strip().splitlines()[-1] == "interrupted"
    assert not any(alive(p) for p in pids)  # already dead when run_lab returned
    assert_clean_afterwards(root, scratch, pids)


def test_sigterm_is_handled_like_ctrl_c(driven):
    root, scratch, driver = driven
    pids = descendants(driver.pid)
    driver.send_signal(signal.SIGTERM)
    out, _ = driver.communicate(timeout=20)
    assert out.strip().splitlines()[-1] == "interrupted"
    assert_clean_afterwards(root, scratch, pids)


def test_a_test_calling_os_exit_in_the_baseline_is_a_red_baseline_not_a_hang(project):
    root = project("calc")
    write_files(root, {"tests/test_exit.py": "import os\n\ndef test_exit():\n    os._exit(0)\n"})
    commit(root)
    with pytest.raises(BaselineFailed) as info:
        run(root, [mutant(root, "add", "return a + b", "return a - b")])
    assert "crashed (exit code 0) during tests/test_exit.py::test_exit" in str(info.value)
    assert git_status(root) == ""


def test_a_mutant_calling_os_exit_leaves_the_next_mutants_working(project):
    root = project("calc", git=True)
    mutants = [
        mutant(root, "exit", "return a + b", "return __import__('os')._exit(0)"),
        mutant(root, "after", "if x > LIMIT", "if x < LIMIT"),
    ]
    first, after = run(root, mutants, jobs=1).results
    # Plain pytest exits 0 with it (issue 22 case 10): nothing caught it.
    assert first.status is Status.ERROR
    assert first.reason.startswith(f"the test process exited with status 0 during {T}test_add")
    assert after.status is Status.CAUGHT
    assert git_status(root) == ""
