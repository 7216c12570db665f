"""The process table, read from /proc: for tests that prove no child process outlives a run."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path


def parent_table() -> dict[int, int]:
    """pid -> parent pid, for every process visible in /proc."""
    table = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        table[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    return table


def descendants(pid: int) -> set[int]:
    """Every process below `pid` in the process tree (children, grandchildren, ...)."""
    table = parent_table()
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, parent in table.items() if parent in frontier} - found
        found |= frontier
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has exited; only its reaping is pending


def wait_until(condition: Callable[[], bool], seconds: float = 10.0) -> bool:
    """Poll `condition` until it holds or `seconds` pass; its final value."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()
