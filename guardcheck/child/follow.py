"""Following a test into the processes it starts: subprocesses and multiprocessing workers.

A child (the baseline, a forked mutant, a fresh run) puts a `Follower` in
place before its tests run. Every process they start inherits two things
through the environment: `PYTHONPATH` led by a guardcheck-owned folder holding
only `sitecustomize.py` (see `bootstrap.py`), and `GUARDCHECK_FOLLOW` naming a
`FollowSpec` file. A Python interpreter started from there runs
`start_followed` while `site` initialises, before any user code:

- baseline: coverage.py measures it, and its lines are attributed to the test
  named by `GUARDCHECK_FOLLOW_TEST` (set before each test);
- mutant: an import hook serves the mutated modules from memory, and the
  evidence marker appends to a file instead of a set in memory.

Forked workers (multiprocessing's fork start method, `os.fork`) inherit the
code swap and the coverage tracer; `os.register_at_fork` and a wrapped
`os._exit`, `atexit` and a SIGTERM handler (`Pool.terminate`) make them write
what they saw before they go (and `terminate_until_gone` makes sure a worker
that missed its SIGTERM gets another). The child reads it all back after each test.

A process that cannot be followed (a Python run with -I, -S or -E, an
environment without the bootstrap, a bootstrap that failed) is recorded as
"unfollowed": the lab then refuses to call the mutant survived or uncovered.
"""

from __future__ import annotations

import atexit
import base64
import builtins
import contextlib
import json
import marshal
import os
import signal
import sys
import types
from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

from guardcheck.child.preloaded import ImportsOf, imported_from, not_served_reason
from guardcheck.child.sourcereads import SourceReads, watch_text_reads
from guardcheck.messages import FOLLOW_ENV, FOLLOW_TEST_ENV, MARKER, FollowSpec, SwapFile

EVIDENCE = "evidence"  # one line per marker or served module first seen in a process
PROBLEMS = "problems"  # "test<TAB>why" per process that could not start guardcheck
FROM_DISK = "from-disk"  # "test<TAB>why" per process that ran or read a mutated file from disk
SOURCE_READS = "source-reads"  # baseline: "test<TAB>real path" per source file a process read
_COVERAGE_PREFIX = "cov-"
STARTED = "started"  # "pid<TAB>test" per measured process: one without coverage is unfollowed
_PROCESS_STARTS = frozenset({"subprocess.Popen", "os.posix_spawn", "os.exec", "os.spawn"})
_FORKS = frozenset({"os.fork", "os.forkpty"})
_NO_BOOTSTRAP_FLAGS = {
    "I": "-I (isolated mode)",
    "S": "-S (no site)",
    "E": "-E (PYTHON* variables ignored)",
}
_FLAGS_WITH_VALUE = ("-X", "-W", "--check-hash-based-pycs")
# Programs that may run the project's Python themselves: a stripped environment there
# loses the bootstrap. Other programs (git, compilers) are taken not to.
_LAUNCHERS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "env", "nice", "timeout", "xargs"})


def append_line(path: str, line: str) -> None:
    """One write with O_APPEND: lines from many processes never tear into each other.

    Called from inside the code under test (the marker): it must never raise there,
    or the test would fail because of guardcheck. A line lost costs evidence only,
    which can only turn a verdict into `error`.
    """
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, (line.replace("\n", " ") + "\n").encode())
        finally:
            os.close(fd)


def read_spec(path: str) -> FollowSpec:
    return FollowSpec(**json.loads(Path(path).read_text(encoding="utf-8")))


class FileMarker:
    """The evidence marker in a followed process: the first call per name reaches the file."""

    def __init__(self, path: str) -> None:
        self._path = path
        self._seen: set[str] = set()

    def __call__(self, name: str) -> None:
        if name not in self._seen:
            self._seen.add(name)
            append_line(self._path, name)


# -- inside a followed process -------------------------------------------------------


def start_followed() -> None:
    """Called by the bootstrap `sitecustomize`: measure (baseline) or serve (mutant)."""
    spec = read_spec(os.environ[FOLLOW_ENV])
    if spec.mode == "baseline":
        _measure(spec)
    else:
        serve_mutant(spec)


def serve_mutant(spec: FollowSpec) -> None:
    """Mutated modules from memory, and evidence to the shared file."""
    from guardcheck.child.importhook import ServedModules

    evidence = os.path.join(spec.out, EVIDENCE)
    modules: dict[str, types.CodeType | str] = {
        real: marshal.loads(base64.b64decode(tree)) for real, tree in spec.trees.items()
    }
    modules.update(spec.texts)
    texts = set(spec.texts)

    def executed(real: str) -> None:
        # A served text (module-level mutant) counts once run; a tree has markers inside.
        if real in texts:
            append_line(evidence, f"served {real}")

    test = os.environ.get(FOLLOW_TEST_ENV, "")
    from_disk = os.path.join(os.path.dirname(os.environ[FOLLOW_ENV]), FROM_DISK)
    if spec.on_disk:
        # The files hold the mutant: imported as usual (rewritten by pytest, for a pytest
        # plugin in a pytest subprocess), not served; an import of one is the evidence.
        imports = ImportsOf(modules)
        atexit.register(_imported_on_disk, imports, evidence)
    else:
        ServedModules(modules, on_exec=executed).install()
        # Imported at start by a .pth file, before this bootstrap: the original.
        if preloaded := imported_from(modules):
            append_line(from_disk, f"{test}\t{not_served_reason(preloaded)} (in a subprocess)")

        # A linter or a test's helper reading the file's text reads the original.
        def read(real: str) -> None:
            why = f"read {real} from disk, which holds the original (in a subprocess)"
            append_line(from_disk, f"{test}\t{why}")

        watch_text_reads(modules.__contains__, read)
    setattr(builtins, MARKER, FileMarker(evidence))
    script = sys.argv[0] if sys.argv and sys.argv[0] not in ("", "-c", "-m") else ""
    real_script = os.path.realpath(script) if script else ""
    if real_script in modules and spec.on_disk:
        # The lab wrote the mutant on disk for this run: the script about to run is it.
        # (Its code has no markers: running the file is the evidence, as for a text.)
        append_line(evidence, f"served {real_script} (run as a script, from disk)")
    elif real_script in modules:
        # `python pkg/cli.py`: Python reads the script from disk, which holds the
        # original; the import hook never sees it. A pass of this test proves nothing,
        # until the lab runs the mutant again written on disk (lab/execute/ondisk.py).
        why = f"ran {real_script} as a script, from disk, which holds the original"
        append_line(from_disk, f"{test}\t{why}")


def _imported_on_disk(imports: ImportsOf, evidence: str) -> None:
    for real in imports.seen():
        append_line(evidence, f"imported from the mutant on disk: {real}")


# coverage.py's warnings about what was or was not measured: ours to know, never the
# tests' (under `-W error` a warning raises).
QUIET = ["no-data-collected", "module-not-measured", "module-not-imported"]


def measuring(source: list[str]) -> Any:
    """A coverage.py `Coverage` measuring the source paths: folders, and module files.

    coverage.py takes a `source` entry that is no folder for a module name, so a
    single-module project (`source = ["parse.py"]`) was measured not at all and every
    mutant came out `no-coverage`. A file is given by its module name instead
    (`source_pkgs`), found from the packages around it.
    """
    from coverage import Coverage

    folders = [s for s in source if not os.path.isfile(s)]
    modules = [_module_name(Path(s)) for s in source if os.path.isfile(s)]
    return Coverage(
        data_file=None,
        source=folders,
        source_pkgs=modules,
        config_file=False,
        messages=False,
    )


def _module_name(path: Path) -> str:
    """`pkg.sub.mod` for pkg/sub/mod.py (`pkg` for pkg/__init__.py), by its packages."""
    parts = [] if path.stem == "__init__" else [path.stem]
    folder = path.parent
    while (folder / "__init__.py").is_file() and folder.parent != folder:
        parts.insert(0, folder.name)
        folder = folder.parent
    return ".".join(parts)


def _measure(spec: FollowSpec) -> None:
    cov = measuring(spec.source)
    cov.set_option("run:disable_warnings", QUIET)
    cov.start()
    test = os.environ.get(FOLLOW_TEST_ENV, "")
    append_line(os.path.join(spec.out, STARTED), f"{os.getpid()}\t{test}")
    dump_coverage_at_exit(cov, spec.out, owner=None, context=lambda _: test)
    reads_file = os.path.join(spec.out, SOURCE_READS)
    reads = SourceReads(spec.source, lambda who, real: append_line(reads_file, f"{who}\t{real}"))
    reads.current = test


_dumped: set[int] = set()  # pids that already wrote their coverage


def dump_coverage_at_exit(
    cov: Any, out: str, *, owner: int | None, context: Callable[[str], str]
) -> None:
    """Write `cov`'s lines (file -> line -> test ids) when this process or a fork ends.

    `owner` is a process that reports its coverage itself (the baseline child):
    only its forks write. Forked multiprocessing workers leave by os._exit, a
    terminated pool by SIGTERM, others through atexit: all three are covered.
    """

    def dump() -> None:
        pid = os.getpid()
        if pid == owner or pid in _dumped:
            return
        _dumped.add(pid)
        # A pool's terminate() may land while a worker is already writing on its way out:
        # hold SIGTERM off until the process is gone (it is leaving anyway).
        signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
        with contextlib.suppress(Exception):  # a dying process: never raise from here
            cov.stop()
            data = cov.get_data()
            lines: dict[str, dict[str, list[str]]] = {}
            for filename in data.measured_files():
                by_line = data.contexts_by_lineno(filename)
                lines[filename] = {
                    str(line): sorted({context(c) for c in contexts} - {""})
                    for line, contexts in by_line.items()
                }
            target = os.path.join(out, f"{_COVERAGE_PREFIX}{pid}.json")
            # The test that started it: a spawner, even when it ran no measured line.
            started_by = os.environ.get(FOLLOW_TEST_ENV, "")
            text = json.dumps({"started_by": started_by, "lines": lines})
            Path(target).write_text(text, encoding="utf-8")

    atexit.register(dump)
    real_fork = os.fork

    def fork_noted() -> int:
        # A forked worker that never writes its coverage (SIGKILL, its own SIGTERM
        # handler) must not pass for one that ran nothing: note that it exists.
        pid = real_fork()
        if pid == 0:
            test = os.environ.get(FOLLOW_TEST_ENV, "")
            append_line(os.path.join(out, STARTED), f"{os.getpid()}\t{test}")
        else:
            terminate_until_gone()
        return pid

    os.fork = fork_noted
    real_exit = os._exit

    def exit_after_dump(code: int) -> None:
        dump()
        real_exit(code)

    os._exit = exit_after_dump  # type: ignore[assignment]
    if signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None):

        def on_sigterm(signum: int, frame: object) -> None:
            dump()
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM})
            os.kill(os.getpid(), signal.SIGTERM)

        with contextlib.suppress(ValueError):  # not the main thread: no handler possible
            signal.signal(signal.SIGTERM, on_sigterm)


_NUDGE_SECONDS = 1.0


def terminate_until_gone() -> None:
    """Make multiprocessing's terminate-and-join survive our workers' SIGTERM handler.

    The handler above is Python code: the signal only sets a flag that the worker's
    main thread acts on at its next bytecode. A SIGTERM landing between that check and
    a blocking call (an idle pool worker about to wait on its queue's lock) is never
    acted on, and `Pool.terminate()` then joins that worker forever, where the default
    action would have killed it (a baseline hung 1 run in 20, two at a time). So in the
    process that started forked workers, a join after terminate() sends SIGTERM again
    every second until the worker is gone: a second signal interrupts the wait, and the
    handler runs. multiprocessing is patched only once it has forked a worker.
    """
    popen_fork = sys.modules.get("multiprocessing.popen_fork")
    if popen_fork is None or getattr(popen_fork.Popen, "_guardcheck_nudges", False):
        return
    cls = popen_fork.Popen
    send, wait = cls._send_signal, cls.wait

    def send_signal(self: Any, sig: int) -> None:
        if sig == signal.SIGTERM:
            self._guardcheck_terminated = True
        send(self, sig)

    def wait_nudging(self: Any, timeout: float | None = None) -> int | None:
        if timeout is not None or not getattr(self, "_guardcheck_terminated", False):
            return wait(self, timeout)  # type: ignore[no-any-return]
        while (code := wait(self, _NUDGE_SECONDS)) is None:
            send(self, signal.SIGTERM)
        return code  # type: ignore[no-any-return]

    cls._send_signal, cls.wait = send_signal, wait_nudging
    cls._guardcheck_nudges = True


# -- the child's side ------------------------------------------------------------------


class StartWatch:
    """For a mutant whose tests started no process in the baseline: notice if one does.

    Following costs a spec file per mutant, so it is kept for the tests that
    need it; a test that starts a process only against the mutant gets no
    bootstrap, and its run cannot prove survival.
    """

    def __init__(self) -> None:
        self.current = ""
        self.problems: dict[str, str] = {}
        sys.addaudithook(self._audit)

    def test_starting(self, nodeid: str) -> None:
        self.current = nodeid

    def has_evidence(self) -> bool:
        return False

    def evidence(self) -> list[str]:
        return []

    def unfollowed(self) -> dict[str, str]:
        return dict(self.problems)

    def from_disk(self) -> set[str]:
        return set()

    def _audit(self, event: str, args: tuple[Any, ...]) -> None:
        if event in _PROCESS_STARTS:
            why = "started a process, unlike in the baseline, so it was not followed"
            self.problems.setdefault(self.current, why)


class Follower:
    """Set up in a child before its tests: the environment they pass on, and what came back."""

    def __init__(self, folder: Path, boot: Path, spec: FollowSpec) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self.boot = str(boot)
        self.spec_file = str(folder / "spec.json")
        Path(self.spec_file).write_text(json.dumps(asdict(spec)), encoding="utf-8")
        self.evidence_file = str(folder / EVIDENCE)
        self.problems: dict[str, str] = {}  # test -> why, seen by the audit hook here
        self.current = ""
        self.started: set[str] = set()  # tests that started or forked a process

    @classmethod
    def for_baseline(cls, folder: Path, boot: Path, source: list[str]) -> Follower:
        return cls(folder, boot, FollowSpec("baseline", str(folder), source=source))

    @classmethod
    def for_swapped(cls, folder: Path, boot: Path, files: Iterable[SwapFile]) -> Follower:
        """Entered: the tests' subprocesses import the mutated trees, and forked workers,
        which inherit the swapped code, report its markers to the evidence file."""
        trees = {os.path.realpath(f.filename): f.tree for f in files}
        follower = cls.for_mutant(folder, boot, trees=trees)
        follower.enter()
        follower.mark_in_forks()
        return follower

    @classmethod
    def for_mutant(
        cls,
        folder: Path,
        boot: Path,
        *,
        trees: dict[str, str] | None = None,
        texts: dict[str, str] | None = None,
        on_disk: bool = False,
    ) -> Follower:
        spec = FollowSpec(
            "mutant", str(folder), trees=trees or {}, texts=texts or {}, on_disk=on_disk
        )
        return cls(folder, boot, spec)

    def enter(self) -> None:
        """From now on, processes started here inherit the bootstrap; watch for the rest."""
        os.environ[FOLLOW_ENV] = self.spec_file
        python_path = os.environ.get("PYTHONPATH")
        os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [self.boot, python_path]))
        sys.addaudithook(self._audit)

    def mark_in_forks(self) -> None:
        """Forked workers inherit the swapped code: their markers must reach the file."""
        os.register_at_fork(after_in_child=self._mark_to_file)

    def _mark_to_file(self) -> None:
        setattr(builtins, MARKER, FileMarker(self.evidence_file))

    def test_starting(self, nodeid: str) -> None:
        self.current = nodeid
        os.environ[FOLLOW_TEST_ENV] = nodeid

    def has_evidence(self) -> bool:
        return os.path.exists(self.evidence_file)  # one stat: created on the first line

    def evidence(self) -> list[str]:
        return [f"(in a subprocess) {line}" for line in _lines(self.evidence_file)]

    def unfollowed(self) -> dict[str, str]:
        """Test node id ("" outside any test) -> why a process it started went unfollowed."""
        found = dict(self.problems)
        for name in (PROBLEMS, FROM_DISK):
            for line in _lines(str(self.folder / name)):
                test, _, why = line.partition("\t")
                found.setdefault(test, why)
        for line in _lines(str(self.folder / STARTED)):
            pid, _, test = line.partition("\t")
            if not (self.folder / f"{_COVERAGE_PREFIX}{pid}.json").exists():
                why = f"a process it started (pid {pid}) ended without writing its coverage"
                found.setdefault(test, why)
        return found

    def source_reads(self) -> Iterator[tuple[str, str]]:
        """Baseline: (test, real path) for each source file a followed process read."""
        for line in _lines(str(self.folder / SOURCE_READS)):
            test, _, real = line.partition("\t")
            yield test, real

    def from_disk(self) -> set[str]:
        """The tests that ran a mutated file as a script, or read it, from disk."""
        return {line.partition("\t")[0] for line in _lines(str(self.folder / FROM_DISK))}

    def coverage(self) -> Iterator[tuple[str, dict[str, list[str]]]]:
        """(file, line -> test ids) from every followed process that ended."""
        for process in self._dumps():
            yield from process["lines"].items()

    def _dumps(self) -> Iterator[dict[str, Any]]:
        for path in sorted(self.folder.glob(f"{_COVERAGE_PREFIX}*.json")):
            with contextlib.suppress(OSError, ValueError):
                yield json.loads(path.read_text(encoding="utf-8"))

    def spawners(self) -> list[str]:
        """The tests that started processes: only their mutant runs need following."""
        found = set(self.started) | set(self.unfollowed())
        found.update(process["started_by"] for process in self._dumps())
        return sorted(found - {""})

    def _audit(self, event: str, args: tuple[Any, ...]) -> None:
        if event in _FORKS:
            self.started.add(self.current)
        if event not in _PROCESS_STARTS:
            return
        self.started.add(self.current)
        try:
            why = self._why_unfollowed(event, args)
        except Exception as exc:  # never break the test's own call; but never trust it either
            why = f"started a process guardcheck could not inspect ({type(exc).__name__}: {exc})"
        if why is not None:
            self.problems.setdefault(self.current, why)

    def _why_unfollowed(self, event: str, args: tuple[Any, ...]) -> str | None:
        if event == "subprocess.Popen":
            executable, argv, _cwd, env = args
        elif event == "os.spawn":
            _mode, executable, argv, env = args
        else:  # os.posix_spawn, os.exec: (path, argv, env)
            executable, argv, env = args
        argv = [os.fsdecode(a) for a in argv] if isinstance(argv, list | tuple) else [argv]
        program = os.fsdecode(executable) if executable is not None else str(argv[0])
        shown = " ".join(str(a) for a in argv)[:120]
        if env is not None and not self._bootstrapped(env) and _may_run_python(program):
            return f"started `{shown}` with an environment without guardcheck's bootstrap"
        flag = _blocking_flag(program, argv[1:])
        if flag is not None:
            return f"started `{shown}`: Python with {flag} cannot load guardcheck's bootstrap"
        return None

    def _bootstrapped(self, env: Any) -> bool:
        def get(name: str) -> str:
            for key in (name, name.encode()):
                with contextlib.suppress(TypeError):  # os.environ refuses bytes keys
                    if env.get(key):
                        return os.fsdecode(env[key])
            return ""

        return get(FOLLOW_ENV) == self.spec_file and self.boot in get("PYTHONPATH").split(
            os.pathsep
        )


def _is_python(program: str) -> bool:
    ours = os.path.realpath(program) == os.path.realpath(sys.executable)
    return os.path.basename(program).startswith("python") or ours


def _may_run_python(program: str) -> bool:
    return _is_python(program) or os.path.basename(program) in _LAUNCHERS


def _blocking_flag(program: str, args: list[str]) -> str | None:
    """The interpreter option that keeps sitecustomize from loading, if `program` is Python."""
    if not _is_python(program):
        return None
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        if arg in _FLAGS_WITH_VALUE:
            skip = True
            continue
        if not arg.startswith("-") or arg in ("-", "-c", "-m") or arg.startswith("--"):
            return None  # the script, the command or the module: the flags are over
        for letter in arg[1:]:
            if letter in _NO_BOOTSTRAP_FLAGS:
                return _NO_BOOTSTRAP_FLAGS[letter]
            if letter in "cm":  # -c/-m glued to its value: the flags are over
                return None
            if letter in "XW":  # glued to its value: the rest of this argument is not flags
                break
    return None


def _lines(path: str) -> list[str]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError:
        return []
    return list(dict.fromkeys(line for line in text.splitlines() if line))
