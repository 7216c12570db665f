"""Small process-control helpers shared by the lab, the host and its children."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys

_PR_SET_PDEATHSIG = 1


def set_pdeathsig(sig: int) -> None:
    """Linux: deliver `sig` to this process when its parent dies (no-op elsewhere)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, sig, 0, 0, 0)
    except (OSError, AttributeError):
        pass


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
