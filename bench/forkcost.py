"""What one forked run costs the kernel on this machine, before any test runs.

guardcheck forks a child per mutant run from a host that holds a collected pytest
session (~50-70 MB). Each run then pays, in kernel time: the fork (the parent copies
page tables), the child's exit (they are torn down), and a copy-on-write fault for
every page the child writes, which in CPython is every page holding an object whose
reference count it changes. A child's first test touches ~1,000 such pages (measured
on h11: bench/README.md). This measures the three costs in a process of that size,
so that runs on different machines can be compared:

    .venv/bin/python bench/forkcost.py --forks 200 --rounds 5

Per round, forks children that exit at once, then children that first write to
`--pages` distinct pages; prints the medians over rounds of the parent's system time
per fork, the child's system time per exit, and the system time per written page.
"""

from __future__ import annotations

import argparse
import gc
import os
import resource
import statistics
import sys
import time

PAGE = resource.getpagesize()


def heap(megabytes: int) -> list[bytearray]:
    """Objects spread over `megabytes` of the heap, as a collected session's are."""
    return [bytearray(PAGE - 64) for _ in range(megabytes * (1 << 20) // PAGE)]


def fork_round(blob: list[bytearray], forks: int, pages: int) -> tuple[float, float, float]:
    """Seconds per fork: wall, the parent's system time, the children's system time."""
    step = max(1, len(blob) // max(pages, 1))
    self0 = resource.getrusage(resource.RUSAGE_SELF)
    kids0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    for _ in range(forks):
        pid = os.fork()
        if pid == 0:
            for index in range(0, min(pages * step, len(blob)), step):
                blob[index][0] = 1
            os._exit(0)
        os.waitpid(pid, 0)
    wall = time.perf_counter() - started
    self1 = resource.getrusage(resource.RUSAGE_SELF)
    kids1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (
        wall / forks,
        (self1.ru_stime - self0.ru_stime) / forks,
        (kids1.ru_stime - kids0.ru_stime) / forks,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--forks", type=int, default=200, help="children per round (200)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--pages", type=int, default=1000, help="pages a child writes (1000)")
    parser.add_argument("--heap-mb", type=int, default=60, help="the parent's heap (60)")
    args = parser.parse_args(argv)
    blob = heap(args.heap_mb)
    gc.freeze()  # as the host does before forking
    quiet, touching = [], []
    for _ in range(args.rounds):
        quiet.append(fork_round(blob, args.forks, 0))
        touching.append(fork_round(blob, args.forks, args.pages))

    def ms(rows: list[tuple[float, float, float]], column: int) -> float:
        return 1000 * statistics.median(row[column] for row in rows)

    per_page_us = 1000 * (ms(touching, 2) - ms(quiet, 2)) / args.pages
    print(f"heap {args.heap_mb} MB, {args.forks} forks x {args.rounds} rounds, medians:")
    print(f"  fork + exit, wall:            {ms(quiet, 0):.2f} ms")
    print(f"  parent system time per fork:  {ms(quiet, 1):.2f} ms")
    print(f"  child system time per exit:   {ms(quiet, 2):.2f} ms")
    print(f"  system time per written page: {per_page_us:.2f} us")
    print(f"  a child writing {args.pages} pages: {ms(touching, 0):.2f} ms wall")
    return 0


if __name__ == "__main__":
    sys.exit(main())
