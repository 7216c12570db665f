"""What the private copy of the project costs (guardcheck/lab/sandbox/projectcopy.py).

    .venv/bin/python bench/copy_bench.py [--files N] [--rounds R]

Times `private_copy` on (1) this repository, first copy and reuse, and (2) a generated
git project of N Python files (default 5,000, ~4 KB each, 100 packages), first copy,
reuse with nothing changed, and reuse after touching one file. Medians of R rounds.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from guardcheck.lab.sandbox.projectcopy import TREE, private_copy
from guardcheck.options import RunOptions, load_options

REPO = Path(__file__).resolve().parents[1]
ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "b",
    "GIT_AUTHOR_EMAIL": "b@b",
    "GIT_COMMITTER_NAME": "b",
    "GIT_COMMITTER_EMAIL": "b@b",
}


def timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def median(rounds: int, prepare: Callable[[], object], action: Callable[[], object]) -> float:
    samples = []
    for _ in range(rounds):
        prepare()
        samples.append(timed(action))
    return statistics.median(samples)


def generated(folder: Path, files: int) -> Path:
    body = "".join(f"def f{i}(x):\n    return x + {i}\n\n\n" for i in range(120))  # ~4 KB
    for n in range(files):
        package = folder / f"pkg{n % 100}"
        package.mkdir(parents=True, exist_ok=True)
        (package / f"mod{n}.py").write_text(body, encoding="utf-8")
    (folder / "pyproject.toml").write_text("[project]\nname = 'big'\n", encoding="utf-8")
    subprocess.run(["git", "init", "-q"], cwd=folder, check=True, env=ENV)
    subprocess.run(["git", "add", "-A"], cwd=folder, check=True, env=ENV)
    subprocess.run(["git", "commit", "-qm", "big"], cwd=folder, check=True, env=ENV)
    return folder


def measure(name: str, options: RunOptions, rounds: int, touch: Path | None = None) -> None:
    tree = options.output_dir / TREE

    def fresh() -> None:
        shutil.rmtree(options.output_dir, ignore_errors=True)
        options.output_dir.mkdir(parents=True)

    first = median(rounds, fresh, lambda: private_copy(options))
    reuse = median(rounds, lambda: None, lambda: private_copy(options))
    line = f"{name}: first copy {first * 1000:.0f} ms, reuse {reuse * 1000:.0f} ms"
    if touch is not None:
        one = median(
            rounds,
            lambda: touch.write_text(touch.read_text() + "#\n"),
            lambda: private_copy(options),
        )
        line += f", reuse after editing one file {one * 1000:.0f} ms"
    files = sum(1 for p in tree.rglob("*") if p.is_file() and ".git" not in p.parts)
    print(f"{line} ({files} files)")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="copy-bench-") as scratch:
        bundled = load_options(REPO).with_overrides(output=Path(scratch) / "bundled-out")
        measure("bundled project (this repository)", bundled, args.rounds)
        big = generated(Path(scratch) / "big", args.files)
        options = RunOptions(root=big.resolve())
        measure(
            f"generated git project, {args.files} files",
            options,
            args.rounds,
            touch=big / "pkg0" / "mod0.py",
        )


if __name__ == "__main__":
    main()
