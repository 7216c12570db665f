"""pytest plugin for a checkpoint (`-p guardcheck.child.checkpoint`): a session paused
just before pytest collects one test file, forked once per mutant run.

For a mutant whose changed code ran only while pytest collected certain test files
(a parametrize list built by calling it: lab/prepare/classify.py's `collected_in`),
everything pytest did before the first of those files is what a fresh run with the
mutant would do again: configuration, plugins, conftest.py files, the test files
collected earlier and the imports they made. None of it ran the changed statements
(the host watched: child/importwatch.py), so only the code itself differs, and a
code swap puts that in place exactly as the host does for its forked children.

So the lab starts, from the warm interpreter, a pytest session over the whole suite
with this plugin. When that session is about to collect the file, it listens on an
abstract socket and answers each request as the warm interpreter does (a supervisor
forking the run: child/zygote.py), and each run swaps the mutant's code in and
returns into pytest, which collects that file and every file after it with the
mutant active, each imported once and in collection order, as by hand. The run's
tests are then chosen and reported as in a fresh interpreter (child/freshrun.py).

The start checkpoint (an empty `file`) pauses earlier, before pytest loads any
conftest.py (`pytest_load_initial_conftests`), where nothing of the project needs to
be imported yet: a run there begins as `-p guardcheck.child.freshrun` does in a fresh
interpreter (the mutated text served on its first import), for any mutant whose
files nothing before the pause imported or read (the session lists those as it
pauses, and the lab sends no other mutant there).

What it must not miss, and how it declines: a read of a mutated file from disk
before the pause (linecache, inspect, a doctest's line numbers) saw the original
where the file by hand holds the mutant. The session records every source file read
other than by an import, and a run of a mutant of such a file reports that read as a
doubt, which sends the mutant to a run with its file on disk.
"""

from __future__ import annotations

import json
import os
import socket
import sys
from collections.abc import Generator
from pathlib import Path
from typing import NoReturn

import pytest

from guardcheck import messages
from guardcheck.child import freshrun, zygote
from guardcheck.child.bootstrap import write_bootstrap
from guardcheck.child.bytecode import keep_bytecode
from guardcheck.child.codeswap import (
    LiveFunctions,
    NeedsFileOnDisk,
    SwapEvidence,
    activate,
    install_marker,
)
from guardcheck.child.diskreads import DiskReads
from guardcheck.child.follow import Follower
from guardcheck.child.freshrun import FreshRun, register
from guardcheck.child.hypothesis_constants import see_mutated_constants
from guardcheck.child.itemrun import SlotCapture, use_capture


class SourceReads:
    """Every `.py` file this process opened other than to import it (real paths)."""

    def __init__(self) -> None:
        self.read: set[str] = set()
        self.watching = True  # until the pause: a run has DiskReads of its own
        sys.addaudithook(self._audit)

    def _audit(self, event: str, args: tuple[object, ...]) -> None:
        if event != "open" or not args or not self.watching:
            return
        path = args[0]
        if not isinstance(path, str | bytes | os.PathLike):
            return
        name = os.fsdecode(path)
        if not name.endswith(".py"):
            return
        caller = sys._getframe(1).f_code.co_filename
        if caller.startswith("<frozen importlib"):
            return  # an import: the code swap stands for what it read
        self.read.add(os.path.realpath(name))


_PACKAGE_FILES = frozenset({"__init__.py", "conftest.py"})


class OnlyFiles:
    """Only the test files the run's tests are in, as a fresh interpreter given just those
    files has: the later ones are not collected, the earlier ones' items are dropped
    before any plugin sees them (pytest's fixture reordering alone took ~40 ms a run
    over dep-logic's 2,458 items)."""

    def __init__(self, rootdir: Path, files: set[str]) -> None:
        self._names = files  # as in node ids
        self._files = {os.path.realpath(rootdir / f) for f in files}

    def pytest_ignore_collect(self, collection_path: Path) -> bool | None:
        if (
            collection_path.name in _PACKAGE_FILES  # (pytest 7 makes its Package of one)
            or collection_path.is_dir()
            or os.path.realpath(collection_path) in self._files
        ):
            return None  # pytest decides, as ever
        return True

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        items[:] = [item for item in items if item.nodeid.split("::")[0] in self._names]


def _load() -> messages.CheckpointSpec | None:
    raw = os.environ.pop(messages.CHECKPOINT_ENV, None)  # not for the tests to see
    return messages.CheckpointSpec(**json.loads(raw)) if raw else None


keep_bytecode()
_spec = _load()
_reads = SourceReads() if _spec is not None else None
# The import system's first finder as this plugin loads: where `-p guardcheck.child.freshrun`,
# loaded at the same point of a fresh run, would have put its import hook.
_first_finder = sys.meta_path[0] if sys.meta_path else None
_live: LiveFunctions | None = None  # built at the pause: every run inherits the index
_resumed = False  # this process is a run forked at the checkpoint
_own_capture: SlotCapture | None = None  # a run's capture files (see _resume)


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_load_initial_conftests(
    early_config: pytest.Config, args: list[str]
) -> Generator[None, None, None]:
    """The start: before any conftest.py is imported, output is captured or the
    `pythonpath` setting applies (each a plugin's part of this hook, which run inside
    this outermost wrapper). All before it is pytest's start-up and its plugins."""
    if _spec is not None and not _spec.file:
        request = _serve(_spec)
        global _resumed
        _resumed = True
        _resume_at_start(early_config, args, request)  # in the run: pytest goes on from here
    yield


@pytest.hookimpl(tryfirst=True)
def pytest_collectstart(collector: pytest.Collector) -> None:
    global _resumed
    # Once resumed, never again: with --doctest-modules a test file is collected twice (a
    # Module and a DoctestModule), and a second pause in a run would bind the
    # checkpoint's address again, which a sibling run then fails to (pytest INTERNALERROR).
    if _spec is None or not _spec.file or _resumed or not isinstance(collector, pytest.File):
        return
    if os.path.realpath(collector.path) != os.path.realpath(_spec.file):
        return
    request = _serve(_spec)
    _resumed = True
    _resume(collector.session, request)  # in the run: pytest collects on from here


def pytest_collection_finish() -> None:
    """The file never came (this session collects otherwise): the lab's requests fail and
    its mutants run in fresh interpreters instead."""
    if _spec is not None and not _resumed:
        print(f"guardcheck checkpoint: {_spec.file} was not collected", file=sys.stderr)
        os._exit(3)


def _serve(spec: messages.CheckpointSpec) -> messages.ForkRun:
    """Wait for the lab, answer its requests; returns only in a run forked for one."""
    global _live
    if spec.file:  # (at the start nothing of the project is loaded to swap)
        _live = LiveFunctions()
    assert _reads is not None
    _reads.watching = False  # what was read before the pause is all a run asks about
    if spec.before:
        _write_before(Path(spec.before), _reads.read)
    zygote.warm_failure_reports()
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind("\0" + spec.address)
    listener.listen(1)
    control, _ = listener.accept()
    listener.close()
    request = zygote.serve(control)
    if request is None:  # the lab closed its end: the session is over
        os._exit(0)
    return request


def _enter(request: messages.ForkRun) -> messages.FreshSpec:
    """The run's log, folder and environment; its spec."""
    old_log = os.fstat(1)
    zygote.enter_run(request)
    _repoint(old_log)
    return messages.fresh_spec(
        json.loads(Path(os.environ[messages.FRESH_ENV]).read_text(encoding="utf-8"))
    )


def _resume(session: pytest.Session, request: messages.ForkRun) -> None:
    """In the run: its log, folder and environment, the mutant in place, the fresh-run
    plugin registered; pytest then goes on collecting."""
    spec = _enter(request)
    # The session configured itself before the pause: what its plugins took out of the
    # environment then, the run's environment brought back.
    os.environ.pop(messages.RANDOMLY_SEED_ENV, None)
    # Its own capture files under the session's capture objects: sibling runs of this
    # checkpoint would otherwise write at one shared offset. Kept referenced: collected
    # during a test, they would warn (ResourceWarning) under `filterwarnings = error`.
    global _own_capture
    _own_capture = SlotCapture.new()
    use_capture(session.config, _own_capture)
    try:
        _put_in_place(session, spec)
    except NeedsFileOnDisk as exc:  # the lab runs it again with its file on disk
        _give_up(spec, f"could not put the mutant in place at the checkpoint: {exc}", True)
    except BaseException as exc:  # whatever it was, no test may run as if it were in place
        _give_up(spec, f"could not put the mutant in place at the checkpoint: {exc!r}")


def _write_before(path: Path, read: set[str]) -> None:
    """The real paths of the files imported as modules or read as source so far."""
    files = set(read)
    for module in list(sys.modules.values()):
        name = getattr(module, "__file__", None)
        if isinstance(name, str):
            files.add(os.path.realpath(name))
    path.write_text(json.dumps(sorted(files)), encoding="utf-8")


def _resume_at_start(config: pytest.Config, args: list[str], request: messages.ForkRun) -> None:
    """In a run forked at the start: its log, folder and environment, then what loading
    `-p guardcheck.child.freshrun` does in a fresh run (the mutated text served on its
    first import); pytest then loads the conftest files and collects the run's files."""
    spec = _enter(request)
    try:
        # The command line is parsed into options after this hook: the run's own basetemp.
        args[:] = [a for a in args if not a.startswith("--basetemp=")]
        args.append(f"--basetemp={spec.basetemp}")
        freshrun.begin(_read_before(spec), _first_finder, "resumed at the start checkpoint")
        config.pluginmanager.register(freshrun, "guardcheck.child.freshrun")
        wanted = {nodeid.split("::")[0] for nodeid in spec.tests}
        config.pluginmanager.register(OnlyFiles(config.rootpath, wanted), "guardcheck-only-files")
    except BaseException as exc:  # no test may run as if the mutant were served
        _give_up(spec, f"could not start the run at the checkpoint: {exc!r}")
    out = os.open(spec.results, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    messages.send(out, messages.TestStarted(""))  # see _put_in_place
    os.close(out)


def _put_in_place(session: pytest.Session, spec: messages.FreshSpec) -> None:
    config = session.config
    config.option.basetemp = spec.basetemp  # as the run's own `--basetemp` would say
    config._tmp_path_factory._basetemp = Path(spec.basetemp)  # type: ignore[attr-defined]
    seen = install_marker()
    assert _live is not None
    applied = activate(spec.swaps, _live)
    see_mutated_constants({os.path.realpath(f.filename): f.mutated for f in spec.files})
    folder = Path(spec.results).parent
    follower = Follower.for_swapped(folder / "follow", write_bootstrap(folder / "boot"), spec.swaps)
    reads = DiskReads(f.filename for f in spec.files)
    reads.found.update(_read_before(spec))
    run = FreshRun(spec, SwapEvidence(seen, applied.reexecuted), follower, reads)
    run.session = session
    run.recorder.log.append("; ".join(["resumed at a checkpoint", *applied.notes]))
    register(config, run)
    wanted = {nodeid.split("::")[0] for nodeid in spec.tests}
    config.pluginmanager.register(OnlyFiles(config.rootpath, wanted), "guardcheck-only-files")
    # The mutant is in place: from here on, an end without a report is the run's own
    # (lab/execute/processes.py tells the two apart by this line).
    messages.send(run.out, messages.TestStarted(""))


def _give_up(spec: messages.FreshSpec, why: str, on_disk: bool = False) -> NoReturn:
    """No test runs: the report says why, which makes the verdict `error`, or (`on_disk`)
    sends the mutant to a run with its file written on disk."""
    out = os.open(spec.results, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    report = messages.ChildReport(unfollowed={"": why}, from_disk=[""] if on_disk else [], log=why)
    messages.send(out, report)
    os._exit(0)


def _read_before(spec: messages.FreshSpec) -> dict[str, str]:
    """The doubt a read of a mutated file before the checkpoint leaves ("" -> why)."""
    assert _reads is not None
    for file in spec.files:
        real = os.path.realpath(file.filename)
        if real in _reads.read:
            return {
                "": f"read {real} from disk before the checkpoint, where the original is "
                "(by hand it holds the mutant)"
            }
    return {}


def _repoint(old: os.stat_result) -> None:
    """The run's log in place of every descriptor that still names the checkpoint's own
    (pytest's capture keeps a copy of the standard streams it restores)."""
    new = os.fstat(1)
    if os.path.samestat(old, new):
        return
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd <= 2:
            continue
        try:
            if os.path.samestat(os.fstat(fd), old):
                os.dup2(1, fd)
        except OSError:
            continue
