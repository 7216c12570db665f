"""Does a mutant cost more in a bigger file? (issue 8 §C13)

    .venv/bin/python bench/filesize_bench.py [--sizes 1000,5000,20000] [--rounds 3]
        [--peer DIR]

For each size, a generated git project whose `pkg/big.py` has that many lines
(filler functions, then `total(a, b)` last) and two tests. Whole-process
`guardcheck check` on 21 entries on `total`, and `guardcheck run --no-cache`
with one of them and with all 21: per-mutant cost is (21 - one) / 20, which
leaves out what every run pays once (pytest start-up, importing the big file,
the baseline). Rounds alternate between the sizes, so machine load hits each
alike; every figure is the median of the rounds. With `--peer DIR` (a folder
holding another revision's `guardcheck/` package, e.g. from `git archive REV
guardcheck | tar -x -C DIR`), each measurement is taken with that package first
on PYTHONPATH too, right after this one's, and both are printed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "b",
    "GIT_AUTHOR_EMAIL": "b@b",
    "GIT_COMMITTER_NAME": "b",
    "GIT_COMMITTER_EMAIL": "b@b",
}
MANY = 21
# replacements of `a + b` in `total`; each one fails test_total
REPLACEMENTS = ["a - b", "a * b", "a", "b - a", *(f"a + b + {k}" for k in range(1, MANY - 3))]
TESTS = (
    "from pkg.big import total\n\n\n"
    "def test_total():\n    assert total(2, 3) == 5\n\n\n"
    "def test_zero():\n    assert total(0, 0) == 0\n"
)


def big_module(lines: int) -> str:
    """About `lines` lines: four-line filler functions, then the target, `total`."""
    count = max(0, (lines - 2) // 4)
    body = [f"def pad_{i}(value):\n    return value * {i}\n\n\n" for i in range(count)]
    return "".join(body) + "def total(a, b):\n    return a + b\n"


def entries(count: int) -> str:
    return "".join(
        f'[[mutation]]\nid = "m{n}"\nsummary = "total computes {new}"\n'
        f'file = "pkg/big.py"\nscope = "total"\nfind = "a + b"\nreplace = "{new}"\n\n'
        for n, new in enumerate(REPLACEMENTS[:count])
    )


def project(folder: Path, lines: int) -> Path:
    files = {
        "pyproject.toml": (
            '[tool.guardcheck]\ncatalogue = ["mutations/many.toml"]\ntests = ["tests"]\n'
        ),
        "pkg/__init__.py": "",
        "pkg/big.py": big_module(lines),
        "tests/test_big.py": TESTS,
        "mutations/one.toml": entries(1),
        "mutations/many.toml": entries(MANY),
    }
    for relative, text in files.items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_text(text, encoding="utf-8")
    (folder / ".gitignore").write_text(".guardcheck/\n", encoding="utf-8")
    for git in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "bench"]):
        subprocess.run(["git", *git], cwd=folder, check=True, env=ENV)
    return folder


def timed(root: Path, *args: str, peer: Path | None = None) -> float:
    env = {**ENV, "PYTHONPATH": str(peer)} if peer else ENV
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "guardcheck", *args],
        cwd=root,
        capture_output=True,
        text=True,
        env=env,
    )
    elapsed = time.perf_counter() - started
    if done.returncode != 0:  # every entry is valid and every mutant is caught
        raise SystemExit(f"guardcheck {' '.join(args)} in {root}: {done.stdout}{done.stderr}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,5000,20000")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--peer", type=Path, help="folder holding another guardcheck/ package")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    sides: dict[str, Path | None] = {"this": None}
    if args.peer:
        sides["peer"] = args.peer.resolve()
    samples: dict[tuple[str, int, str], list[float]] = {}
    with tempfile.TemporaryDirectory(prefix="filesize-bench-") as scratch:
        roots = {n: project(Path(scratch) / f"lines{n}", n) for n in sizes}
        for _ in range(args.rounds):
            for size, root in roots.items():  # alternate: load affects every size alike
                one = ("run", "--no-cache", "--catalogue", "mutations/one.toml")
                for what, command in (
                    ("check", ("check",)),
                    ("run1", one),
                    ("runN", ("run", "--no-cache")),
                ):
                    for side, peer in sides.items():  # side by side: the same load
                        seconds = timed(root, *command, peer=peer)
                        samples.setdefault((side, size, what), []).append(seconds)
    print(f"median of {args.rounds} rounds; seconds, whole process")
    print(
        f"{'side':>5} {'lines':>6} {'check':>7} {'run 1':>7} {f'run {MANY}':>7} {'per mutant':>11}"
    )
    for size in sizes:
        for side in sides:
            check, one, many = (
                statistics.median(samples[side, size, w]) for w in ("check", "run1", "runN")
            )
            per = (many - one) / (MANY - 1)
            print(f"{side:>5} {size:>6} {check:7.2f} {one:7.2f} {many:7.2f} {per:11.3f}")


if __name__ == "__main__":
    main()
