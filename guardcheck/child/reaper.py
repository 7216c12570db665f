"""`python -m guardcheck.child.reaper CMD...`: run CMD, then kill whatever it left behind.

A fresh-interpreter mutant is the lab's direct child. When the lab is killed
with -9, PR_SET_PDEATHSIG kills that pytest, but a `Popen(["sleep", "303"])`
of its tests would be re-parented to init and live on. This wrapper sits in
between: a child subreaper with PDEATHSIG=SIGTERM, so when the lab dies, or
CMD ends, or a timeout SIGTERMs/SIGKILLs the group, every descendant it can
still see dies. It mirrors CMD's end: the same exit code, or the same signal.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Callable

from guardcheck.child.procs import kill_descendants, set_pdeathsig, set_subreaper


def main(command: list[str]) -> int:
    set_subreaper()
    set_pdeathsig(signal.SIGTERM)
    child = subprocess.Popen(command)
    return supervise(child.wait)


def supervise(wait: Callable[[], int], on_end: Callable[[int], None] | None = None) -> int:
    """As the subreaper of a child just started: its end mirrored, what it left killed.

    `wait` blocks until the child ends and returns its returncode (negative: the
    signal that killed it); `on_end` hears it before this process mirrors it.
    The warm interpreter's supervisors (child/zygote.py) end the same way.
    """

    def stop(signum: int, frame: object) -> None:
        kill_descendants(os.getpid(), reap=False)
        os._exit(128 + signum)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the lab decides; it will SIGTERM us
    code = wait()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    kill_descendants(os.getpid())
    if on_end is not None:
        on_end(code)
    if code < 0:  # killed by a signal: die of the same one, so the lab names it
        signal.signal(-code, signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
