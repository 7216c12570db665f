"""What watching import and collection costs the host (guardcheck/child/importwatch.py).

    .venv/bin/python bench/importwatch_bench.py [--rounds 5] [PYTEST_ARGS...]

Whole-process `pytest --collect-only -q` of this repository's own suite
(default: tests/), plain and with the ImportWatch running from before pytest
starts to the end of collection, as the host runs it. Rounds alternate the two;
figures are medians.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
WATCHED = """
import sys, pytest
from guardcheck.child.importwatch import ImportWatch
watch = ImportWatch({root!r}, [{root!r}])
watch.start()
code = pytest.main(sys.argv[1:])
print("watched functions:", len(watch.stop() or []), file=sys.stderr)
sys.exit(code)
"""
PLAIN = "import sys, pytest\nsys.exit(pytest.main(sys.argv[1:]))\n"


def timed(script: str, args: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-c", script, "--collect-only", "-q", "-p", "no:cacheprovider", *args],
        cwd=REPO,
        capture_output=True,
        check=True,
    )
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("pytest_args", nargs="*", default=["tests"])
    args = parser.parse_args()
    watched = WATCHED.format(root=str(REPO))
    plain, watching = [], []
    for _ in range(args.rounds):
        plain.append(timed(PLAIN, args.pytest_args))
        watching.append(timed(watched, args.pytest_args))
    a, b = statistics.median(plain), statistics.median(watching)
    print(f"collect-only {' '.join(args.pytest_args)}, median of {args.rounds}:")
    print(f"  plain {a:.2f} s, watched {b:.2f} s, ratio {b / a:.2f}")


if __name__ == "__main__":
    main()
