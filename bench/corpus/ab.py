"""The sweep of this checkout against an older commit's, on corpus libraries: walls and
every verdict compared.

For a change that should alter speed and nothing else. Each library's project (set up
by run.py) is swept by both, alternating within each round (this checkout first in odd
rounds); the older commit runs from a git worktree put first on `PYTHONPATH`, so the
library's venv and editable install stay as they are. Prints, per library, the walls of
each side and every mutant whose verdict differs (the last round's reports):

    .venv/bin/python bench/corpus/ab.py --base 6b9ca1d --only blinker,dep-logic --rounds 2
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import run as corpus  # the corpus: its libraries, their venvs and environments

ROOT = Path(__file__).resolve().parents[2]


def verdicts(report: Path) -> dict[str, tuple[str, str]]:
    """Mutant id -> (verdict, execution path)."""
    data = json.loads(report.read_text(encoding="utf-8"))
    return {
        m["guardcheck"]["id"]: (m["guardcheck"]["verdict"], m["guardcheck"]["executionPath"])
        for f in data["files"].values()
        for m in f["mutants"]
    }


def sweep(lib: corpus.Library, report: Path, base: Path | None) -> float:
    env = {**os.environ, **corpus.lib_env(lib)}
    if base is not None:
        env["PYTHONPATH"] = str(base)
    argv = [str(lib.bin("guardcheck")), "sweep", *lib.mutate, "--json", str(report)]
    started = time.perf_counter()
    subprocess.run(
        [*argv, "-j", "2", "--no-cache", "-q"],
        cwd=lib.project,
        env=env,
        capture_output=True,
        check=False,
    )
    if not report.exists():
        raise SystemExit(f"{lib.name}: no report from {' '.join(argv)}")
    return round(time.perf_counter() - started, 2)


def compare(lib: corpus.Library, rounds: int, base: Path, out: Path) -> None:
    corpus.point_editable_at(lib, lib.project)
    walls: dict[str, list[float]] = {"head": [], "base": []}
    for number in range(rounds):
        sides = ["head", "base"] if number % 2 == 0 else ["base", "head"]
        for side in sides:
            report = out / f"{lib.name}-{side}.json"
            report.unlink(missing_ok=True)
            walls[side].append(sweep(lib, report, base if side == "base" else None))
    old = verdicts(out / f"{lib.name}-base.json")
    new = verdicts(out / f"{lib.name}-head.json")
    differ = sorted(
        i for i in old.keys() | new.keys() if old.get(i, ("",))[0] != new.get(i, ("",))[0]
    )
    fresh = sum(1 for _, path in new.values() if path != "fork")
    print(
        f"{lib.name}: {len(new)} mutants ({fresh} not forked), {len(differ)} verdicts differ; "
        f"base {walls['base']} s, head {walls['head']} s",
        flush=True,
    )
    for mutant in differ:
        print(f"    {mutant}: base {old.get(mutant)}, head {new.get(mutant)}", flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="the older commit")
    parser.add_argument("--only", required=True, help="comma list of library names")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args(argv)
    libraries = {lib.name: lib for lib in corpus.load_libraries()}
    chosen = [libraries[name] for name in args.only.split(",")]
    missing = [lib.name for lib in chosen if not lib.project.exists()]
    if missing:
        raise SystemExit(
            f"not set up: {', '.join(missing)}; fix: run.py --only {','.join(missing)}"
        )
    with tempfile.TemporaryDirectory() as scratch:
        base = Path(scratch) / "base"
        subprocess.run(["git", "worktree", "add", "-q", str(base), args.base], cwd=ROOT, check=True)
        # Compiled now, as this checkout's is: not in the first sweep's wall.
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(base / "guardcheck")])
        try:
            for lib in chosen:
                compare(lib, args.rounds, base, Path(scratch))
        finally:
            subprocess.run(
                ["git", "worktree", "remove", "--force", str(base)], cwd=ROOT, check=False
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
