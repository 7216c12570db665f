"""Time `guardcheck equiv` as whole processes: median of several runs (not a test).

Two figures:
  trials: 200,000 inputs of a 4-argument int predicate against an equivalent rewrite
          (target: under 30 s on 2 cores);
  find:   the hand-rolled `new_tokens < approx_tokens` gate against target_app's
          hygiene_compaction_recovered, until the shrunk disagreement is printed
          (target: under 5 s).

    .venv/bin/python bench/equiv_bench.py [--rounds 3] [--examples 200000]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
GATES = REPO / "tests" / "fixtures" / "projects" / "equiv_gates"
PREDICATES = """
def gate(a: int, b: int, c: int, d: int) -> bool:
    return a < b and (c * 0.95 > d or a + d == 7)


def gate_rewritten(a: int, b: int, c: int, d: int) -> bool:
    return not (a >= b) and (d < 0.95 * c or d + a == 7)
"""


def timed(cmd: list[str], cwd: Path, expect: int) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != expect:
        sys.exit(f"{' '.join(cmd)} exited {done.returncode}:\n{done.stdout}{done.stderr}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--examples", type=int, default=200_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch) / "gates"
        shutil.copytree(GATES, root)
        # Its pythonpath names the repository root relative to where it lives in it.
        pyproject = root / "pyproject.toml"
        pyproject.write_text(pyproject.read_text().replace('"../../../.."', f'"{REPO.as_posix()}"'))
        (root / "gatekit" / "bench_predicates.py").write_text(PREDICATES)
        guardcheck = [sys.executable, "-m", "guardcheck", "equiv"]
        trials = [
            *guardcheck,
            "gatekit.bench_predicates:gate",
            "gatekit.bench_predicates:gate_rewritten",
            "--examples",
            str(args.examples),
        ]
        find = [
            *guardcheck,
            "target_app.gateway.run:hygiene_compaction_recovered",
            "gatekit.recovery:hand_rolled_recovered",
        ]
        runs = {"trials": [], "find": []}
        for _ in range(args.rounds):
            runs["trials"].append(timed(trials, root, expect=0))
            runs["find"].append(timed(find, root, expect=1))
    for name, times in runs.items():
        shown = ", ".join(f"{t:.2f}" for t in times)
        print(f"{name:<7} median {statistics.median(times):6.2f} s  (runs: {shown})")


if __name__ == "__main__":
    main()
