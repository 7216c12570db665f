"""Small process-control helpers shared by the lab, the host and its children."""

from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import signal
import sys
import time

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36


def _prctl(option: int, value: int) -> None:
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(option, value, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def set_subreaper(on: bool = True) -> None:
    """Linux: orphans below this process are re-parented to it, not to init.

    A test's `Popen(..., start_new_session=True)` escapes every process group
    we kill; as the subreaper we still find it (our descendant) and kill it.
    """
    _prctl(_PR_SET_CHILD_SUBREAPER, int(on))


def _parents() -> dict[int, int]:
    table: dict[int, int] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return table
    for entry in entries:
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as handle:
                    stat = handle.read()
            except OSError:
                continue
            table[int(entry)] = int(stat.rsplit(b")", 1)[1].split()[1])
    return table


def children_of(pid: int) -> set[int] | None:
    """`pid`'s direct children from /proc/PID/task/*/children (one small read per
    thread); None where the kernel does not provide it."""
    found: set[int] = set()
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found  # gone: no children
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children", "rb") as handle:
                found.update(int(c) for c in handle.read().split())
        except FileNotFoundError:
            if not os.path.exists(f"/proc/{pid}/task/{task}"):
                continue  # the thread ended while we looked
            return None  # CONFIG_PROC_CHILDREN is off
        except OSError:
            continue
    return found


def descendants(pid: int, *, spare: frozenset[int] = frozenset()) -> list[int]:
    """Every process below `pid`, read from /proc; `spare` pids and their subtrees left out."""
    found: list[int] = []
    frontier = {pid}
    table: dict[int, int] | None = None
    while frontier:
        step: set[int] = set()
        for parent in frontier:
            kids = children_of(parent) if table is None else None
            if kids is None:
                table = table if table is not None else _parents()
                kids = {c for c, p in table.items() if p == parent}
            step |= kids
        frontier = step - spare - set(found)
        found.extend(frontier)
    return found


def kill_descendants(pid: int, *, spare: frozenset[int] = frozenset(), reap: bool = True) -> int:
    """SIGKILL every descendant of `pid` (but `spare`) until none is left; how many.

    Repeated because a dying process's children re-parent (to us, the
    subreaper) while we look. With `reap`, our own children among them are
    reaped so no zombie stays; pass False where another owner waits for them.
    """
    killed = 0
    for _ in range(50):
        found = descendants(pid, spare=spare)
        if not found:
            break
        for child in found:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(child, signal.SIGKILL)
                killed += 1
        if reap:
            for child in found:
                with contextlib.suppress(ChildProcessError, OSError):
                    os.waitpid(child, 0)  # not our child: ChildProcessError at once
        else:
            time.sleep(0.01)
    return killed


def set_pdeathsig(sig: int) -> None:
    """Linux: deliver `sig` to this process when its parent dies (no-op elsewhere)."""
    _prctl(_PR_SET_PDEATHSIG, sig)


def limit_address_space(megabytes: int) -> None:
    """RLIMIT_AS for this process: a runaway allocation raises MemoryError (or the
    process dies) at once, instead of swapping the machine until the timeout."""
    if megabytes <= 0:
        return
    limit = megabytes << 20
    _soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def kill_group(pgid: int, sig: int = signal.SIGKILL) -> None:
    """Signal a whole process group; a group that is already gone is fine."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def describe_exit(status: int) -> str:
    """A waitpid status as a person reads it: 'SIGSEGV', 'exit code 3'."""
    return describe_returncode(os.waitstatus_to_exitcode(status))


def describe_returncode(code: int) -> str:
    """A returncode (negative: killed by that signal) as a person reads it."""
    if code < 0:
        try:
            return signal.Signals(-code).name
        except ValueError:
            return f"signal {-code}"
    return f"exit code {code}"


def unlink_own_semaphores() -> None:
    """Unlink the named semaphores this process's multiprocessing locks created.

    A spawn or forkserver context's locks are named POSIX semaphores (/dev/shm/sem.mp-*),
    unlinked by an exit-time finalizer or else by multiprocessing's resource tracker. A
    forked child leaves by os._exit (no finalizers) and the host then kills its process
    group, the tracker with it: each spawn pool a test made stayed behind. Only these
    finalizers run here: each unlinks a name and cannot block. A finalizer inherited
    from the host does nothing in the child (multiprocessing checks the pid).
    """
    util = sys.modules.get("multiprocessing.util")
    synchronize = sys.modules.get("multiprocessing.synchronize")
    if util is None or synchronize is None:
        return
    cleanup = getattr(synchronize.SemLock, "_cleanup", None)
    if cleanup is None:
        return
    registry = getattr(util, "_finalizer_registry", {})
    for finalizer in list(registry.values()):
        if getattr(finalizer, "_callback", None) is cleanup:
            with contextlib.suppress(Exception):
                finalizer()
