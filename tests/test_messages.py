"""messages.py: every message survives encode/decode, and what is not a message is refused."""

from __future__ import annotations

import json

import pytest

from guardcheck import messages
from guardcheck.messages import (
    ActivationFailed,
    ChildEnded,
    ChildReport,
    Collected,
    CollectedTest,
    CollectFailed,
    LineBuffer,
    RanFunction,
    RunMutant,
    Stop,
    Swap,
    SwapFile,
    TestFinished,
    TestStarted,
    decode,
    encode,
)
from guardcheck.model import TestOutcome, TestResult

REPORT = ChildReport(
    tests=[
        TestResult("t.py::test_a", TestOutcome.FAILED, 0.25, "t.py:3: assert 1 == 2"),
        TestResult("t.py::test_b", TestOutcome.PASSED, 0.5),
    ],
    evidence=["add"],
    coverage={"/p/m.py": {"2": [0, 1]}},
    collect_errors=["t.py: SyntaxError"],
    log="call failed: t.py::test_a",
    timing={"child": 1.0},
    crash="ValueError: boom",
)

EVERY_KIND = [
    RunMutant(
        key=7,
        files=[SwapFile("m.py", "/p/m.py", "x = 2\n", "dHJlZQ==", [Swap("add", [0, 1], "b3Jp")])],
        tests=["t.py::test_a"],
        matrix=True,
        timeout=2.5,
    ),
    Stop(),
    Collected(
        [CollectedTest("t.py::test_a", "/p/t.py")], rootdir="/p", inifile="/p/pyproject.toml"
    ),
    Collected([], rootdir="/p", inifile=None),
    Collected([], rootdir="/p", inifile=None, ran_before_tests=[RanFunction("m.py", "f", 3)]),
    Collected([], rootdir="/p", inifile=None, ran_before_tests=None),  # could not watch
    CollectFailed(["t.py: ImportError"]),
    TestStarted("t.py::test_a"),
    TestFinished(TestResult("t.py::test_a", TestOutcome.FAILED, 0.25, "assert 1 == 2"), True),
    REPORT,
    ChildReport(),
    ChildEnded(baseline=False, key=7, report=REPORT, current="t.py::test_a"),
    ChildEnded(baseline=True, key=1, report=None, current=None, timed_out=1.5, exit="SIGKILL"),
    ActivationFailed(key=7, error="could not activate the mutant", log="Traceback ..."),
]


@pytest.mark.parametrize("message", EVERY_KIND, ids=lambda m: type(m).__name__)
def test_every_message_round_trips_as_one_line(message):
    line = encode(message)
    assert line.endswith(b"\n")
    assert line.count(b"\n") == 1  # one frame, one line
    assert json.loads(line)["t"] == message.TAG
    assert decode(line) == message
    assert decode(line.decode()) == message  # text decodes too


def test_decoded_test_results_carry_their_outcome_enum():
    decoded = decode(encode(REPORT))
    assert isinstance(decoded, ChildReport)
    assert decoded.tests[0].outcome is TestOutcome.FAILED
    ended = decode(encode(ChildEnded(baseline=False, key=1, report=REPORT, current=None)))
    assert isinstance(ended, ChildEnded)
    assert isinstance(ended.report, ChildReport)
    assert ended.report.tests[1].outcome is TestOutcome.PASSED


@pytest.mark.parametrize(
    "line",
    [
        b"not json",
        b"[1, 2]",
        b'"just a string"',
        b'{"key": 1}',  # no type
        b'{"t": 3}',  # a type that is not a string
        b'{"t": "no-such-kind"}',
        b'{"t": "start"}',  # a field missing
        b'{"t": "start", "nodeid": "t.py::a", "extra": 1}',  # a field unknown
        b'{"t": "mutant", "key": 1, "files": [{"path": "m.py"}]}',  # a nested field missing
        b'{"t": "result", "tests": [{"nodeid": "t.py::a"}]}',
        b'{"t": "result", "tests": [{"nodeid": "a", "outcome": "exploded", "duration": 0}]}',
    ],
)
def test_decode_refuses_what_is_not_a_message_with_value_error(line):
    with pytest.raises(ValueError):  # noqa: PT011 - each line fails its own way
        decode(line)


def test_line_buffer_yields_messages_only_once_their_line_is_complete():
    buffer = LineBuffer()
    line = encode(TestStarted("t.py::test_a"))
    assert buffer.feed(line[:10]) == []
    assert buffer.feed(line[10:-1]) == []
    assert buffer.feed(line[-1:] + encode(Stop())) == [TestStarted("t.py::test_a"), Stop()]
    assert buffer.feed(b"") == []


def test_line_buffer_drops_torn_and_unknown_lines_and_keeps_going():
    """A child killed mid-write leaves a torn line; the next message must still arrive."""
    buffer = LineBuffer()
    torn = encode(REPORT)[:25] + b"\n"
    unknown = b'{"t": "no-such-kind"}\n'
    received = buffer.feed(torn + unknown + b"\n" + encode(TestStarted("t.py::test_b")))
    assert received == [TestStarted("t.py::test_b")]


def test_send_writes_the_whole_frame_to_a_descriptor(tmp_path):
    path = tmp_path / "frames"
    with open(path, "wb") as handle:
        messages.send(handle.fileno(), REPORT)
        messages.send(handle.fileno(), Stop())
    assert LineBuffer().feed(path.read_bytes()) == [REPORT, Stop()]
