"""Run a console-script entry point in this process and record this process's peak RSS.

Used by run_bench.py as ``python bench/rss_launcher.py OUT_FILE SCRIPT_PATH [ARGS...]``:
the tool's own entry point (the one its ``.venv/bin/<name>`` script calls) runs in this
very process, so this process *is* the tool's top (parent) process. When it exits,
``getrusage(RUSAGE_SELF).ru_maxrss`` (the kernel's high-water mark of this process alone,
not of its forked children) is written to OUT_FILE in KiB.

Forked children inherit the exit hook; it only writes from the original pid. A tool that
leaves its top process through ``os._exit`` skips the hook; run_bench.py then falls back
to the last ``VmHWM`` it polled from /proc.
"""

from __future__ import annotations

import atexit
import os
import resource
import sys
from importlib.metadata import entry_points
from pathlib import Path


def main() -> None:
    out_file, script, *args = sys.argv[1:]
    name = Path(script).name
    found = entry_points(group="console_scripts", name=name)
    if not found:
        sys.exit(f"rss_launcher: no console script named {name!r}")
    entry = next(iter(found))
    pid = os.getpid()

    def record() -> None:
        if os.getpid() != pid:  # a forked child running our hook: not the top process
            return
        peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        Path(out_file).write_text(f"{peak_kib}\n")

    atexit.register(record)
    sys.argv = [script, *args]  # what the console script itself would see
    func = entry.load()
    sys.exit(func())


if __name__ == "__main__":
    main()
