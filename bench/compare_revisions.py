"""Before/after benchmark: `guardcheck run` from two checkouts, alternating, on one machine.

    .venv/bin/python bench/compare_revisions.py OLD_CHECKOUT [--rounds N]

OLD_CHECKOUT is a second checkout of this repository (e.g. `git worktree add --detach
../old REV`) with its own `.venv`. Each round runs the old tool then the new one, each a
whole `guardcheck run -q` process in its own checkout on the bundled catalogue, so machine
load hits both alike; the medians of the wall times are printed side by side.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import time
from pathlib import Path

NEW = Path(__file__).resolve().parents[1]


def timed_run(checkout: Path, extra: list[str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(
        [str(checkout / ".venv" / "bin" / "guardcheck"), "run", "-q", *extra],
        cwd=checkout,
        capture_output=True,
        text=True,
        check=False,
    )
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{checkout}: guardcheck run exited {done.returncode}\n{done.stderr}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", type=Path, help="checkout of the revision to compare against")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--arg",
        action="append",
        default=[],
        help="an argument for both checkouts' runs, e.g. --arg=--no-cache",
    )
    parser.add_argument(
        "--new-arg",
        action="append",
        default=[],
        help="an argument for the new checkout's run only, e.g. --new-arg=--no-cache",
    )
    args = parser.parse_args()
    times: dict[str, list[float]] = {"old": [], "new": []}
    for round_ in range(1, args.rounds + 1):
        times["old"].append(timed_run(args.old.resolve(), args.arg))
        times["new"].append(timed_run(NEW, [*args.arg, *args.new_arg]))
        print(f"round {round_}: old {times['old'][-1]:.2f} s, new {times['new'][-1]:.2f} s")
    old, new = statistics.median(times["old"]), statistics.median(times["new"])
    print(
        f"median wall, {args.rounds} rounds: old {old:.2f} s, new {new:.2f} s "
        f"({100 * (new - old) / old:+.1f}%)"
    )


if __name__ == "__main__":
    main()
