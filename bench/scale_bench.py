"""Scale benchmark (issue 13 §4): `guardcheck sweep` on a generated project.

    .venv/bin/python bench/scale_bench.py [--modules 10] [--functions 100] [--tests-per 5]

The project (bench/work/scale/, git-ignored) has MODULES x FUNCTIONS small functions
`def f_i(x, y): return x + y`, each of which mutmut's operators mutate exactly once
(`+` -> `-`), and TESTS_PER tests per function: by default 1,000 mutants and 5,000
tests. Timed, each as a whole process under rss_launcher.py (see run_bench.py):

1. a full sweep that fills the cache, with `--json` (its size is reported);
2. the same sweep again with nothing changed (served from the cache);
3. one function's body edited (`return x + y` -> `return y + x` in pkg/mod_0.py's
   f_0, same mutants), the sweep again: the baseline runs, only f_0's mutant re-runs;
4. `--shard 1/2` and `--shard 2/2` with `--no-cache --json`, then `guardcheck merge`;
   the merged verdicts must equal the full run's.

Baseline seconds and per-mutant cost are read from the full run's JSON. Peak memory:
the top (parent) process from getrusage at exit; the largest single process of the
tree (the pytest host / a worker) from wait4's rusage. Results print as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

from run_bench import Timed, timed_run

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
WORK = BENCH / "work" / "scale"
GUARDCHECK = Path(sys.executable).parent / "guardcheck"


def generate(root: Path, modules: int, functions: int, tests_per: int) -> None:
    if root.exists():
        shutil.rmtree(root)
    (root / "pkg").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pyproject.toml").write_text(
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\npythonpath = ["."]\n'
        '[tool.guardcheck]\nsource = ["pkg"]\ntests = ["tests"]\n'
    )
    # Its own git repository: shard reports record the revision, and the bench folder
    # lives inside guardcheck's checkout, whose HEAD may move while the bench runs.
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for m in range(modules):
        funcs = [f"def f_{i}(x, y):\n    return x + y\n" for i in range(functions)]
        (root / "pkg" / f"mod_{m}.py").write_text("\n\n".join(funcs))
        tests = [f"from pkg.mod_{m} import *  # noqa: F403\n"]
        for i in range(functions):
            for t in range(tests_per):
                tests.append(f"def test_f_{i}_{t}():\n    assert f_{i}({t}, 1) == {t + 1}\n")
        (root / "tests" / f"test_mod_{m}.py").write_text("\n\n".join(tests))


def commit(root: Path) -> None:
    env = {"GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.invalid"}
    env |= {"GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@example.invalid"}
    git = ["git", "-C", str(root)]
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "generated"], check=True, env={**os.environ, **env})


def run(name: str, *args: str) -> Timed:
    logs = WORK.parent / "scale-logs"
    logs.mkdir(exist_ok=True)
    timed = timed_run(
        [str(GUARDCHECK), *args],
        cwd=WORK,
        log=logs / f"{name}.log",
        rss_file=logs / f"{name}.rss",
        timeout_s=3600,
    )
    print(f"{name}: exit {timed.exit_code} in {timed.wall_s:.1f} s", file=sys.stderr)
    return timed


def verdicts(path: Path) -> dict[str, str]:
    doc = json.loads(path.read_text())
    return {
        m["guardcheck"]["id"]: m["guardcheck"]["verdict"]
        for f in doc["files"].values()
        for m in f["mutants"]
    }


def mib(kib: int | None) -> float | None:
    return None if kib is None else round(kib / 1024, 1)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--modules", type=int, default=10)
    parser.add_argument("--functions", type=int, default=100)
    parser.add_argument("--tests-per", type=int, default=5)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--skip-shards", action="store_true")
    # Per-mutant cost vs number of tests: only the full run, for side-by-side sizes.
    parser.add_argument("--full-only", action="store_true")
    opts = parser.parse_args()
    generate(WORK, opts.modules, opts.functions, opts.tests_per)
    commit(WORK)
    jobs = ("-j", str(opts.jobs))
    out = WORK.parent
    figures: dict[str, object] = {
        "functions": opts.modules * opts.functions,
        "tests": opts.modules * opts.functions * opts.tests_per,
    }
    full = run("full", "sweep", "-q", *jobs, "--json", str(out / "full.json"))
    doc = json.loads((out / "full.json").read_text())
    mutants = [m for f in doc["files"].values() for m in f["mutants"]]
    top = doc["guardcheck"]
    fork_ms = [m["guardcheck"]["record"]["seconds"] * 1000 for m in mutants]
    figures["full"] = {
        "exit": full.exit_code,
        "wall_s": round(full.wall_s, 1),
        "mutants": len(mutants),
        "baseline_s": round(top["baselineSeconds"], 1),
        "mutant_phase_s": round(top["wallSeconds"] - top["baselineSeconds"], 1),
        "median_mutant_ms": round(statistics.median(fork_ms), 1) if fork_ms else None,
        "parent_peak_mib": mib(full.parent_rss_kib),
        "largest_process_peak_mib": mib(full.tree_rss_kib),
        "json_report_mib": round((out / "full.json").stat().st_size / 2**20, 1),
        "outcomes_jsonl_mib": round(
            (WORK / ".guardcheck" / "outcomes.jsonl").stat().st_size / 2**20, 1
        ),
        "cache_mib": round(
            sum(p.stat().st_size for p in (WORK / ".guardcheck" / "cache").rglob("*.json")) / 2**20,
            1,
        ),
    }
    if opts.full_only:
        print(json.dumps(figures, indent=2))
        return
    again = run("cached", "sweep", "-q", *jobs)
    figures["no_change_rerun"] = {
        "exit": again.exit_code,
        "wall_s": round(again.wall_s, 2),
        "parent_peak_mib": mib(again.parent_rss_kib),
        "summary": (out / "scale-logs" / "cached.log").read_text().strip().splitlines()[-1],
    }
    mod_0 = WORK / "pkg" / "mod_0.py"
    mod_0.write_text(mod_0.read_text().replace("return x + y", "return y + x", 1))
    edited = run("edited", "sweep", "-q", *jobs, "--json", str(out / "edited.json"))
    edited_doc = json.loads((out / "edited.json").read_text())
    edited_top = edited_doc["guardcheck"]
    figures["one_function_edited"] = {
        "exit": edited.exit_code,
        "wall_s": round(edited.wall_s, 1),
        "baseline_s": round(edited_top["baselineSeconds"], 1),
        "parent_peak_mib": mib(edited.parent_rss_kib),
        "summary": (out / "scale-logs" / "edited.log").read_text().strip().splitlines()[-1],
        "verdicts_equal_full": verdicts(out / "edited.json") == verdicts(out / "full.json"),
    }
    mod_0.write_text(mod_0.read_text().replace("return y + x", "return x + y", 1))
    if not opts.skip_shards:
        shards = []
        for k in (1, 2):
            shard = run(
                f"shard{k}",
                "sweep", "-q", *jobs, "--no-cache", "--shard", f"{k}/2",
                "--json", str(out / f"shard{k}.json"),
            )  # fmt: skip
            shards.append(round(shard.wall_s, 1))
        merged = run(
            "merge", "merge", str(out / "shard1.json"), str(out / "shard2.json"),
            "--json", str(out / "merged.json"),
        )  # fmt: skip
        figures["shards"] = {
            "walls_s": shards,
            "merge_wall_s": round(merged.wall_s, 1),
            "merge_exit": merged.exit_code,
            "merged_equals_full": merged.exit_code == 0
            and verdicts(out / "merged.json") == verdicts(out / "full.json"),
        }
    print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
