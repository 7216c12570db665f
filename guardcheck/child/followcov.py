"""coverage.py in the processes a baseline test starts, and in forked workers.

A measured process writes its lines (file -> line -> test ids) into the follow
folder when it ends, however it ends: atexit, `os._exit` (a forked
multiprocessing worker), SIGTERM (`Pool.terminate`). `terminate_until_gone`
makes sure a worker that missed its SIGTERM gets another. Imported by the
bootstrap only in the baseline, where coverage.py is loaded anyway.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from guardcheck.child.followed import (
    COVERAGE_PREFIX,
    SOURCE_READS,
    STARTED,
    FollowSpec,
    append_line,
)
from guardcheck.child.sourcereads import SourceReads
from guardcheck.messages import FOLLOW_TEST_ENV

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


def measure(spec: FollowSpec) -> None:
    """Inside a process a baseline test started: measure it, note what it reads."""
    cov = measuring(spec["source"])
    cov.set_option("run:disable_warnings", QUIET)
    cov.start()
    test = os.environ.get(FOLLOW_TEST_ENV, "")
    append_line(os.path.join(spec["out"], STARTED), f"{os.getpid()}\t{test}")
    dump_coverage_at_exit(cov, spec["out"], owner=None, context=lambda _: test)
    reads_file = os.path.join(spec["out"], SOURCE_READS)
    reads = SourceReads(spec["source"], lambda who, real: append_line(reads_file, f"{who}\t{real}"))
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
            target = os.path.join(out, f"{COVERAGE_PREFIX}{pid}.json")
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
