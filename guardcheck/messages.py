"""Every message between guardcheck, its pytest host, the host's children and fresh runs.

One frozen dataclass per message; `encode` frames it as one JSON line with a
"t" (type) key and `decode` turns a line back into the dataclass. No other
module spells a "t" value or builds a message dict.

  lab -> host:    RunMutant, Stop (on purpose; see lab.execute.processes.HostProcess.stop)
  host -> lab:    Collected, CollectFailed, ChildEnded (one per baseline run, in
                  order, then one per mutant), ActivationFailed
  child -> host:  TestStarted, TestFinished, ChildReport (a fresh run appends the same to
                  a file); TestFinished lets a timeout keep the results recorded before it
  lab -> zygote:  ForkRun (a fresh run to fork); zygote -> lab: Forked (its pid, with the
                  pidfd sent beside the line)

Environment variables through which the lab hands a child its settings live
here too, so the parent never imports a pytest plugin module to read one.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any, ClassVar

from guardcheck.model import TestOutcome, TestResult

HOST_ENV = "GUARDCHECK_HOST"  # JSON HostConfig for `-p guardcheck.child.host`
FRESH_ENV = "GUARDCHECK_FRESH"  # path of a FreshSpec file for `-p guardcheck.child.freshrun`
PYCACHE_ENV = "GUARDCHECK_PYCACHE"  # where the host and fresh runs keep bytecode (child/bytecode)
# A marker name ending so says the changed statement itself was reached, not only its
# function entered (lab/prepare/instrument.py).
REACHED = "#reached"
MARKER = "__guardcheck_seen__"  # the evidence marker's builtin name, compiled in by the lab
# The processes a child's tests start (guardcheck/child/follow.py): the FollowSpec file
# (child/followed.py) they read, and the node id of the test that started them (their
# coverage context).
FOLLOW_ENV = "GUARDCHECK_FOLLOW"
FOLLOW_TEST_ENV = "GUARDCHECK_FOLLOW_TEST"
ZYGOTE_ENV = "GUARDCHECK_ZYGOTE"  # the zygote's end of its control socket (child/zygote.py)
# A CheckpointSpec as JSON, for `-p guardcheck.child.checkpoint`
CHECKPOINT_ENV = "GUARDCHECK_CHECKPOINT"
# Set when the lab chose PYTHONHASHSEED for its interpreters: "=" and the user's own
# value, or "" when they had none, put back before any test runs (child/hashseed.py).
HASHSEED_ENV = "GUARDCHECK_HASHSEED"
# The pytest-randomly seed every session of one invocation uses (child/randomseed.py).
RANDOMLY_SEED_ENV = "GUARDCHECK_RANDOMLY_SEED"


@dataclass(frozen=True)
class HostConfig:
    fd: int  # the host's end of the control socket
    parent: int  # the lab's pid: a host whose parent changed was orphaned
    scratch: str
    root: str
    source: list[str]  # folders coverage measures
    baseline_runs: int = 1
    baseline_timeout: float | None = None  # seconds per baseline run; None: no limit
    baseline_workers: int = 1  # run 1 (under coverage) split by test file over this many
    memory_limit_mb: int = 0  # RLIMIT_AS of mutant children; 0: none
    origin: str = ""  # the user's project root, of which `root` is the private copy


@dataclass(frozen=True)
class Swap:
    """One live function to patch: found by its original code, replaced from the tree."""

    qualname: str
    at: list[int]  # ordinal path of the replacement in the mutated tree's code objects
    original: str  # base64 of the marshalled original code object
    # base64 of marshalled (len(__defaults__), {index: value}, {name: value}) to set, or ""
    defaults: str = ""


@dataclass(frozen=True)
class SwapFile:
    path: str  # root-relative, for messages
    filename: str  # absolute path the trees were compiled with
    mutated: str  # the mutated source text (for linecache and tracebacks)
    tree: str  # base64 of the marshalled, instrumented mutated module code
    swaps: list[Swap]


@dataclass(frozen=True)
class ServedFile:
    filename: str
    mutated: str


@dataclass(frozen=True)
class FreshSpec:
    """What a fresh-interpreter run serves, runs and where it writes its messages."""

    files: list[ServedFile]
    tests: list[str]
    matrix: bool
    results: str  # file the run appends TestStarted and ChildReport lines to
    hold: list[str] = field(default_factory=list)  # run all of these before stopping early
    # The mutated files are written on disk for this run too: reading them is no doubt.
    on_disk: bool = False
    # A run resumed from a checkpoint (child/checkpoint.py): the code swap that puts the
    # mutant in place there, and the run's own pytest basetemp.
    swaps: list[SwapFile] = field(default_factory=list)
    basetemp: str = ""
    # A new interpreter (not forked from the zygote): with `on_disk`, a module imported
    # before the run's plugin loaded was imported from the mutated file.
    new_interpreter: bool = False


@dataclass(frozen=True)
class CheckpointSpec:
    """Where a checkpoint waits: before pytest collects `file`, or, with `file` empty,
    before it loads the first conftest.py (the start); it listens on `address`."""

    file: str  # absolute path of the test file; "": the start
    address: str  # an abstract AF_UNIX socket name (no leading NUL)
    # Where the start writes, as it pauses, the real paths of every module file imported
    # and every .py file read so far (a JSON list): their mutants cannot resume there.
    before: str = ""


# --- framed messages --------------------------------------------------------------------


@dataclass(frozen=True)
class RunMutant:
    TAG: ClassVar[str] = "mutant"
    key: int
    files: list[SwapFile]
    tests: list[str]
    matrix: bool
    timeout: float
    hold: list[str] = field(default_factory=list)  # run all of these before stopping early


@dataclass(frozen=True)
class Stop:
    TAG: ClassVar[str] = "stop"


@dataclass(frozen=True)
class CollectedTest:
    nodeid: str
    path: str  # absolute path of its test file


@dataclass(frozen=True)
class RanFunction:
    """A function of the source roots that ran in the host before the first test."""

    path: str  # root-relative posix path of its file
    qualname: str
    line: int  # co_firstlineno: the first decorator's line, else the def's
    # The test file (node id) whose collection alone ran it; "" when it ran elsewhere:
    # at plugin or conftest import, or in a window that imported other project modules.
    during: str = ""


@dataclass(frozen=True)
class Collected:
    TAG: ClassVar[str] = "collected"
    tests: list[CollectedTest]
    rootdir: str
    inifile: str | None
    # What ran at import and collection (its results outlive a code swap in a child);
    # None when the host could not watch (another profiler was installed).
    ran_before_tests: list[RanFunction] | None = field(default_factory=list)
    # The lines of each source file (root-relative) that ran then; None: not recorded.
    ran_lines: dict[str, list[int]] | None = None
    # Project modules imported from the user's tree instead of the copy: `name (path)`.
    foreign: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # said once to the user (stderr)
    randomly_seed: str = ""  # pytest-randomly's seed in every session; "" if not active


@dataclass(frozen=True)
class CollectFailed:
    TAG: ClassVar[str] = "collect_failed"
    errors: list[str]


@dataclass(frozen=True)
class TestStarted:
    __test__ = False  # not a pytest test class
    TAG: ClassVar[str] = "start"
    nodeid: str


@dataclass(frozen=True)
class TestFinished:
    """One test's result as soon as it is known, so a later timeout cannot discard it."""

    __test__ = False  # not a pytest test class
    TAG: ClassVar[str] = "finished"
    result: TestResult
    evidence: bool  # the mutated code had run in that child by the end of this test


@dataclass(frozen=True)
class ChildReport:
    """What a child says as it ends: the raw facts a verdict is judged from."""

    TAG: ClassVar[str] = "result"
    tests: list[TestResult] = field(default_factory=list)
    evidence: list[str] = field(default_factory=list)  # markers that fired / served modules run
    # Baseline only: real path -> line -> indices of the tests that executed it.
    coverage: dict[str, dict[str, list[int]]] | None = None
    collect_errors: list[str] = field(default_factory=list)
    log: str = ""
    timing: dict[str, float] = field(default_factory=dict)
    crash: str | None = None  # the child raised instead of reporting normally
    # test node id ("" outside any test) -> why a process it started could not be followed
    unfollowed: dict[str, str] = field(default_factory=dict)
    # Those of `unfollowed` whose only doubt was the disk: they read a mutated file, or ran
    # it as a script, where the original is (child/diskreads.py, child/follow.py).
    from_disk: list[str] = field(default_factory=list)
    spawners: list[str] = field(default_factory=list)  # baseline: tests that started processes
    # Baseline: real path of a source file -> the tests that opened it (child/sourcereads.py)
    source_reads: dict[str, list[str]] = field(default_factory=dict)
    # Baseline: those of `source_reads` whose every read in the test's own process went
    # through linecache, which a mutant's run fills with the mutated text
    linecache_reads: dict[str, list[str]] = field(default_factory=dict)
    # Baseline: root-relative path in the private copy -> the tests that wrote, created or
    # removed it (child/copywrites.py)
    copy_writes: dict[str, list[str]] = field(default_factory=dict)
    # Baseline: root-relative path in the private copy -> the tests that opened it at all
    copy_opens: dict[str, list[str]] = field(default_factory=dict)
    # Baseline: project modules the tests imported from the user's tree (child/origins.py)
    foreign: list[str] = field(default_factory=list)
    # A fresh run: mutated files whose module was imported before the run could serve
    # the mutant (child/preloaded.py); only a new interpreter with them on disk can.
    preloaded: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ChildEnded:
    """The host's word that a child is over: its report (if any) and how it ended."""

    TAG: ClassVar[str] = "ended"
    baseline: bool  # a baseline run (key = run number, 1-based) or a mutant (the lab's key)
    key: int
    report: ChildReport | None
    current: str | None  # the test it said it started last
    timed_out: float | None = None  # the budget that expired, when it did
    exit: str | None = None  # how it died, when it died without reporting
    # It ended with status 0 without reporting: a test called os._exit(0), which plain
    # pytest would end with the same status 0, the rest of its tests unrun.
    clean_exit: bool = False


@dataclass(frozen=True)
class ActivationFailed:
    TAG: ClassVar[str] = "activation_failed"
    key: int
    error: str
    log: str = ""
    # Why the mutant can run only with its file on disk (codeswap.NeedsFileOnDisk: pytest
    # rewrote the module's asserts, a decorator compiled a function again); "" otherwise.
    on_disk: str = ""


@dataclass(frozen=True)
class ForkRun:
    """Run `python -m pytest ARGS` in `cwd` with `env`, forked from the warm interpreter."""

    TAG: ClassVar[str] = "fork_run"
    args: list[str]
    cwd: str
    env: dict[str, str]
    log: str  # stdout and stderr go here
    status: str  # the supervisor writes the run's exit status here as it ends
    memory_limit_mb: int = 0  # RLIMIT_AS of the pytest process; 0: none


@dataclass(frozen=True)
class Forked:
    """The supervisor of a ForkRun: its pid (0 and `error` when the fork failed)."""

    TAG: ClassVar[str] = "forked"
    pid: int
    error: str = ""


Message = (
    RunMutant
    | Stop
    | Collected
    | CollectFailed
    | TestStarted
    | TestFinished
    | ChildReport
    | ChildEnded
    | ActivationFailed
    | ForkRun
    | Forked
)


def _tests(raw: list[dict[str, Any]]) -> list[TestResult]:
    return [
        TestResult(t["nodeid"], TestOutcome(t["outcome"]), t["duration"], t.get("message", ""))
        for t in raw
    ]


def _report(raw: dict[str, Any]) -> ChildReport:
    return ChildReport(**{**raw, "tests": _tests(raw.get("tests", []))})


def swap_file(raw: dict[str, Any]) -> SwapFile:
    return SwapFile(**{**raw, "swaps": [Swap(**s) for s in raw["swaps"]]})


def fresh_spec(raw: dict[str, Any]) -> FreshSpec:
    return FreshSpec(
        **{
            **raw,
            "files": [ServedFile(**f) for f in raw["files"]],
            "swaps": [swap_file(f) for f in raw.get("swaps", [])],
        }
    )


def _decode_fields(tag: str, raw: dict[str, Any]) -> Message:
    if tag == RunMutant.TAG:
        return RunMutant(**{**raw, "files": [swap_file(f) for f in raw["files"]]})
    if tag == Collected.TAG:
        ran = raw.get("ran_before_tests", [])
        return Collected(
            **{
                **raw,
                "tests": [CollectedTest(**t) for t in raw["tests"]],
                "ran_before_tests": None if ran is None else [RanFunction(**r) for r in ran],
            }
        )
    if tag == ChildReport.TAG:
        return _report(raw)
    if tag == TestFinished.TAG:
        return TestFinished(_tests([raw["result"]])[0], bool(raw["evidence"]))
    if tag == ChildEnded.TAG:
        report = raw.get("report")
        return ChildEnded(**{**raw, "report": _report(report) if report is not None else None})
    simple: dict[str, type] = {
        Stop.TAG: Stop,
        CollectFailed.TAG: CollectFailed,
        TestStarted.TAG: TestStarted,
        ActivationFailed.TAG: ActivationFailed,
        ForkRun.TAG: ForkRun,
        Forked.TAG: Forked,
    }
    if tag not in simple:
        raise ValueError(f"unknown message type {tag!r}")
    message: Message = simple[tag](**raw)
    return message


def encode(message: Message) -> bytes:
    data = {"t": message.TAG, **_fields(message)}
    return json.dumps(data, separators=(",", ":"), default=_fields).encode() + b"\n"


def _fields(value: Any) -> dict[str, Any]:
    """A dataclass's fields, one level down: json.dumps asks again for nested ones.

    Not dataclasses.asdict, which deep-copies every value on the way: a forked mutant
    sends three messages and the host relays one, and asdict showed in a child's
    profile (bench/README.md).
    """
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: getattr(value, f.name) for f in fields(value)}
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def decode(line: bytes | str) -> Message:
    """One framed line back to its dataclass; ValueError when it is not one."""
    data = json.loads(line)
    if not isinstance(data, dict) or not isinstance(data.get("t"), str):
        raise ValueError("not a guardcheck message")
    tag = data.pop("t")
    try:
        return _decode_fields(tag, data)
    except (TypeError, KeyError) as exc:
        raise ValueError(f"malformed {tag!r} message: {exc}") from None


def write_all(fd: int, data: bytes) -> None:
    """os.write until everything is out (pipes accept partial writes)."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def send(fd: int, message: Message) -> None:
    write_all(fd, encode(message))


class LineBuffer:
    """Accumulates raw bytes and yields the complete messages received so far."""

    def __init__(self) -> None:
        self._pending = b""

    def feed(self, data: bytes) -> list[Message]:
        self._pending += data
        *lines, self._pending = self._pending.split(b"\n")
        messages = []
        for line in lines:
            try:
                messages.append(decode(line))
            except ValueError:
                # A child killed mid-write leaves a torn line; it carries nothing usable.
                continue
        return messages


# -- guardcheck review: the audit plugin's settings (`-p guardcheck.child.audit`) --------
AUDIT_OUT_ENV = "GUARDCHECK_AUDIT_OUT"  # path the audit plugin writes {nodeid: [paths]} to
AUDIT_ROOTS_ENV = "GUARDCHECK_AUDIT_ROOTS"  # os.pathsep-separated absolute source roots
# -- end of guardcheck review ------------------------------------------------------------
