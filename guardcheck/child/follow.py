"""Following a test into the processes it starts: subprocesses and multiprocessing workers.

A child (the baseline, a forked mutant, a fresh run) puts a `Follower` in
place before its tests run. Every process they start inherits two things
through the environment: `PYTHONPATH` led by a guardcheck-owned folder holding
only `sitecustomize.py` (see `bootstrap.py`), and `GUARDCHECK_FOLLOW` naming a
`FollowSpec` file. A Python interpreter started from there, while `site`
initialises, before any user code:

- baseline: is measured by coverage.py (followcov.py), its lines attributed to
  the test named by `GUARDCHECK_FOLLOW_TEST` (set before each test);
- mutant: serves the mutated modules from memory (followed.py), and the
  evidence marker appends to a file instead of a set in memory.

Forked workers (multiprocessing's fork start method, `os.fork`) inherit the
code swap and the coverage tracer; `os.register_at_fork` makes their markers
reach the file, and followcov.py makes a measured one write what it saw before
it goes. The child reads it all back after each test.

A process that cannot be followed (a Python run with -I, -S or -E, an
environment without the bootstrap, a bootstrap that failed) is recorded as
"unfollowed": the lab then refuses to call the mutant survived or uncovered.
"""

from __future__ import annotations

import builtins
import contextlib
import json
import os
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from guardcheck.child.followed import (
    COVERAGE_PREFIX,
    EVIDENCE,
    FROM_DISK,
    PROBLEMS,
    SOURCE_READS,
    STARTED,
    FileMarker,
    FollowSpec,
)
from guardcheck.messages import FOLLOW_ENV, FOLLOW_TEST_ENV, MARKER, SwapFile

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
        Path(self.spec_file).write_text(json.dumps(spec), encoding="utf-8")
        self.evidence_file = str(folder / EVIDENCE)
        self.problems: dict[str, str] = {}  # test -> why, seen by the audit hook here
        self.current = ""
        self.started: set[str] = set()  # tests that started or forked a process

    @classmethod
    def for_baseline(cls, folder: Path, boot: Path, source: list[str]) -> Follower:
        spec = FollowSpec(
            mode="baseline", out=str(folder), source=source, trees={}, texts={}, on_disk=False
        )
        return cls(folder, boot, spec)

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
            mode="mutant",
            out=str(folder),
            source=[],
            trees=trees or {},
            texts=texts or {},
            on_disk=on_disk,
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
            if not (self.folder / f"{COVERAGE_PREFIX}{pid}.json").exists():
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
        for path in sorted(self.folder.glob(f"{COVERAGE_PREFIX}*.json")):
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
