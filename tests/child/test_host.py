"""The pytest host (child/host.py) driven directly over its socket, as the lab drives it."""

from __future__ import annotations

import selectors
from collections.abc import Iterator

import pytest
from support.lab import mutant
from support.processes import alive, descendants, wait_until

from guardcheck import messages
from guardcheck.lab.execute.processes import HostProcess
from guardcheck.lab.prepare.classify import classify
from guardcheck.model import ExecutionPath, TestOutcome
from guardcheck.options import RunOptions

pytestmark = pytest.mark.slow

T = "tests/test_adder.py::"


def next_message(host: HostProcess, seconds: float = 60.0) -> messages.Message:
    """The host's next message, waiting for it on the socket (not a sleep)."""
    selector = selectors.DefaultSelector()
    selector.register(host.fileno(), selectors.EVENT_READ)
    try:
        while not host.inbox:
            assert selector.select(seconds), f"no message from the host in {seconds} s"
            host.receive()
    finally:
        selector.close()
    return host.inbox.popleft()


@pytest.fixture
def host(project, tmp_path) -> Iterator[tuple[HostProcess, RunOptions]]:
    root = project("tiny")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    options = RunOptions(root=root)
    host = HostProcess(options, scratch, [str(root / "tiny")])
    try:
        yield host, options
    finally:
        if host.process.poll() is None:
            host.stop(urgent=True)


def test_the_host_collects_runs_the_baseline_then_a_mutant_and_stops_cleanly(host):
    host_process, options = host
    root = options.root
    target = root / "tiny" / "adder.py"
    untouched = target.stat().st_mtime_ns, target.stat().st_size

    collected = next_message(host_process)
    assert isinstance(collected, messages.Collected)
    assert [t.nodeid for t in collected.tests] == [T + "test_add", T + "test_add_zero"]
    assert collected.rootdir == str(root)

    baseline = next_message(host_process)
    assert isinstance(baseline, messages.ChildEnded)
    assert (baseline.baseline, baseline.key, baseline.timed_out, baseline.exit) == (
        True,
        1,
        None,
        None,
    )
    assert baseline.report is not None
    assert [(t.nodeid, t.outcome) for t in baseline.report.tests] == [
        (T + "test_add", TestOutcome.PASSED),
        (T + "test_add_zero", TestOutcome.PASSED),
    ]
    coverage = baseline.report.coverage or {}
    adder = str(root / "tiny" / "adder.py")
    assert sorted(coverage[adder]["2"]) == [0, 1]  # `return a + b`: run by both tests, by index

    activation = classify(
        mutant(root, "add", "return a + b", "return a - b", path="tiny/adder.py"), root
    )
    assert activation.mode is ExecutionPath.FORK
    tests = [T + "test_add_zero", T + "test_add"]  # the first passes, the second catches it
    run = messages.RunMutant(
        key=7,
        files=[f.to_message() for f in activation.files],
        tests=tests,
        matrix=False,
        timeout=30.0,
    )
    host_process.queue(run)
    ended = next_message(host_process)
    assert isinstance(ended, messages.ChildEnded)
    assert (ended.baseline, ended.key, ended.timed_out, ended.exit) == (False, 7, None, None)
    assert ended.report is not None
    assert [(t.nodeid, t.outcome) for t in ended.report.tests] == [
        (T + "test_add_zero", TestOutcome.PASSED),
        (T + "test_add", TestOutcome.FAILED),
    ]
    assert "assert -1 == 5" in ended.report.tests[1].message
    assert ended.report.evidence == ["add", "add#reached"]  # entered, and the changed line ran

    pids = descendants(host_process.process.pid) | {host_process.process.pid}
    host_process.stop(urgent=False)
    assert host_process.process.returncode is not None
    assert wait_until(lambda: not any(alive(pid) for pid in pids)), "processes left behind"
    # The mutant lived in memory only: the target file was never rewritten.
    assert (target.stat().st_mtime_ns, target.stat().st_size) == untouched
