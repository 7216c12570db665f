"""Side-by-side benchmark: `guardcheck sweep` vs `mutmut run` (3.8.1) on the same mutant set.

    .venv/bin/python bench/sweep_bench.py [--rounds N] [--jobs N] [--targets LIST] [--json out]

Targets: `target_app` (this repo's demo app and tests/target_app) and `cachetools`, a real
pure-Python library whose pinned sdist (it ships its tests) is fetched into bench/work/ at
bench time and never committed. Each round, each tool gets a fresh scratch copy of the
target under bench/work/ with the same pyproject (`[tool.mutmut]` and `[tool.guardcheck]`
naming the same source and tests, the same pytest settings), and the tools alternate
(mutmut, guardcheck, mutmut, ...) so machine load hits both alike.

Mutants are matched between the tools by (file, mutated function, AST of the mutated
function): mutmut's mutated copies `x_f__mutmut_N` come from its own mutants/ folder, the
guardcheck mutant's from applying its splice (guardcheck.sweep.generate, the generator
the sweep ran) - so the match also checks that the two mutant sets really are equal.
See bench/README.md, "Sweep vs mutmut".
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import run_bench as rb  # the shared helpers: timed runs under rss_launcher, mutmut's meta files

# Mutants are paired by the sweep oracle test's own rule (tests/support/mutmut_oracle.py).
sys.path.insert(0, str(rb.ROOT / "tests"))
from support.mutmut_oracle import dump_as, mangled_functions

CACHETOOLS = "cachetools==5.5.2"  # sdist ships tests/ (216 unittest-style tests, ~2 s CPU)
TARGETS = ("target_app", "cachetools")
# guardcheck's sweep skips "arid" code by default; mutmut does not. Turning every rule off
# makes `guardcheck sweep` generate exactly mutmut's set (docs/sweep.md).
# Where the scratch copies go (--scratch-root); a list so that main() can set it.
SCRATCH = [rb.WORK]
ALL_ARID = ["logging", "docstring", "repr", "type-annotation", "assert-message"]

# Both tools' verdicts, reduced to what the requirement compares.
CAUGHT, NOT_CAUGHT, UNCOVERED, OTHER = "caught", "not caught", "no tests/no coverage", "other"
_MUTMUT_CLASS = {
    "killed": CAUGHT,
    "timeout": CAUGHT,
    "segfault": CAUGHT,
    "survived": NOT_CAUGHT,
    "no tests": UNCOVERED,
}
_GC_CLASS = {
    "caught": CAUGHT,
    "caught-elsewhere": CAUGHT,
    "timeout": CAUGHT,
    "survived": NOT_CAUGHT,
    "no-coverage": UNCOVERED,
}


@dataclass(frozen=True)
class Target:
    name: str
    origin: Path  # the project the scratch copies are made from
    copy: tuple[str, ...]  # folders/files (relative) copied into each scratch folder
    sources: tuple[str, ...]  # the package(s): mutmut's source_paths, guardcheck's source
    tests: tuple[str, ...]  # what both tools run
    pytest_options: dict[str, Any]
    # Files both tools mutate when narrower than `sources`: mutmut's `only_mutate` globs and
    # the PATHS of `guardcheck sweep`; empty = all of `sources`.
    mutate: tuple[str, ...] = ()


def target_app() -> Target:
    options = tomllib_load(rb.ROOT / "pyproject.toml").get("tool", {}).get("pytest", {})
    options = dict(options.get("ini_options", {}))
    options.pop("testpaths", None)  # both tools name the test folder themselves
    options.pop("markers", None)  # guardcheck's own test markers; target_app uses none
    # Not tests/conftest.py: it is guardcheck's own (imports tests/support), target_app's
    # tests need only tests/target_app/conftest.py.
    return Target(
        "target_app", rb.ROOT, ("target_app", "tests/target_app"), ("target_app",),
        ("tests/target_app",), options,
    )  # fmt: skip


def tomllib_load(path: Path) -> dict[str, Any]:
    import tomllib

    return tomllib.loads(path.read_text())


def fetch_cachetools(work: Path, files: Sequence[str]) -> Target:
    """The pinned sdist, downloaded with pip (sdist only) and extracted under bench/work/."""
    dest = work / "sdist"
    name, ver = CACHETOOLS.split("==")
    tree = dest / f"{name}-{ver}"
    if not tree.is_dir():
        dest.mkdir(parents=True, exist_ok=True)
        archive = dest / f"{name}-{ver}.tar.gz"
        if not archive.exists():
            cmd = [sys.executable, "-m", "pip", "download", "-q", "--no-deps"]
            cmd += ["--no-binary", ":all:", "-d", str(dest), CACHETOOLS]
            subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
        with tarfile.open(archive) as tar:
            tar.extractall(dest, filter="data")
    # src layout: pytest's pythonpath makes `import cachetools` find the copy's src/
    # (under mutmut, its mutants/src, since mutmut runs pytest inside mutants/).
    return Target(
        "cachetools", tree, ("src", "tests"), ("src/cachetools",), ("tests",),
        {"pythonpath": ["src"], "addopts": "-p no:cacheprovider"}, tuple(files),
    )  # fmt: skip


def pyproject(target: Target) -> str:
    t = rb._toml_value
    return "\n".join(
        [
            "# Written by bench/sweep_bench.py: the same files and tests for both tools.",
            "[tool.mutmut]",
            f"source_paths = {t(list(target.sources))}",
            f"pytest_add_cli_args_test_selection = {t(list(target.tests))}",
            *([f"only_mutate = {t(list(target.mutate))}"] if target.mutate else []),
            "",
            "[tool.guardcheck]",
            f"source = {t(list(target.sources))}",
            f"tests = {t(list(target.tests))}",
            f"mutate_arid = {t(ALL_ARID)}",
            "",
            "[tool.pytest.ini_options]",
            *(f"{k} = {t(v)}" for k, v in target.pytest_options.items()),
            "",
        ]
    )


def scratch_copy(target: Target, scratch: Path) -> None:
    if scratch.exists():
        shutil.rmtree(scratch)
    scratch.mkdir(parents=True)
    for rel in target.copy:
        src = target.origin / rel
        if src.is_dir():
            shutil.copytree(src, scratch / rel, ignore=rb._ignore_junk)
        else:
            shutil.copy2(src, scratch / rel)
    (scratch / "pyproject.toml").write_text(pyproject(target))
    # Its own (empty) repository, as a real project is: otherwise the scratch folder is
    # inside this repo's git-ignored bench/work/, and guardcheck's private copy (what git
    # sees, plus source and tests) leaves out the pyproject.toml, so pytest runs without
    # its settings (target_app: no `pythonpath`, every mutant no-coverage).
    subprocess.run(["git", "init", "-q", str(scratch)], check=True)


# --------------------------------------------------------------------------- runs


@dataclass
class Run:
    target: str
    tool: str
    round: int
    wall_s: float
    exit_code: int
    ok: bool
    mutants: int = 0
    statuses: dict[str, int] = field(default_factory=dict)  # the tool's own words
    phase_s: float | None = None  # the tool's own mutant-phase time, if it reports one
    median_overhead_ms: float | None = None  # guardcheck: fork-path duration minus tests
    parent_rss_mib: float | None = None
    tree_rss_mib: float | None = None
    log: str = ""
    scratch: str = ""
    note: str = ""
    profile: dict[str, Any] = field(default_factory=dict)  # guardcheck: guardcheck_profile()
    verdicts: dict[str, str] = field(default_factory=dict, repr=False)  # mutant key -> status


def _timed(
    target: Target,
    tool: str,
    rnd: int,
    argv: list[str],
    scratch: Path,
    timeout: float,
    env: dict[str, str] | None = None,
):
    name = f"{target.name}-{tool}"
    res = rb.timed_tool_run(name, rnd, argv, cwd=scratch, timeout_s=timeout, env=env)
    kib = res.parent_rss_kib
    return Run(
        target=target.name,
        tool=tool,
        round=rnd,
        wall_s=res.wall_s,
        exit_code=res.exit_code,
        ok=False,
        parent_rss_mib=None if kib is None else kib / 1024,
        tree_rss_mib=None if res.tree_rss_kib is None else res.tree_rss_kib / 1024,
        log=res.log,
        scratch=os.path.relpath(scratch, rb.ROOT),
    )


def run_mutmut(
    target: Target, rnd: int, jobs: int, timeout: float, tmpdir: Path | None = None
) -> Run:
    scratch = SCRATCH[0] / f"sweep-{target.name}-mutmut-{rnd}"
    scratch_copy(target, scratch)
    argv = [str(rb.VENV_BIN / "mutmut"), "run", "--max-children", str(jobs)]
    # --mutmut-tmpdir: pytest's basetemp (the tests' tmp_path) where guardcheck's goes.
    env = None if tmpdir is None else {"TMPDIR": str(tmpdir)}
    run = _timed(target, rb.MUTMUT, rnd, argv, scratch, timeout, env)
    status_of = rb._mutmut_status_map()
    for meta in rb._iter_meta(scratch / "mutants"):
        for key, code in meta["exit_code_by_key"].items():
            run.verdicts[key] = status_of(code)
    run.statuses = dict(Counter(run.verdicts.values()))
    run.mutants = len(run.verdicts)
    executed = run.mutants - sum(run.statuses.get(s, 0) for s in rb._MUTMUT_NOT_EXECUTED)
    rate = rb.re.findall(r"([\d.]+) mutations/second", (rb.ROOT / run.log).read_text("utf-8"))
    if rate and float(rate[-1]) > 0:  # mutmut times its mutant phase only; see run_bench
        run.phase_s = executed / float(rate[-1])
    run.ok = run.exit_code == 0 and run.mutants > 0 and run.statuses.get("killed", 0) > 0
    if not run.ok:
        run.note = f"mutmut exited {run.exit_code}, {run.mutants} mutants; see {run.log}"
    return run


def run_guardcheck(target: Target, rnd: int, jobs: int, timeout: float) -> Run:
    scratch = SCRATCH[0] / f"sweep-{target.name}-guardcheck-{rnd}"
    scratch_copy(target, scratch)
    report_path = scratch / "gc.json"
    argv = [str(rb.VENV_BIN / "guardcheck"), "sweep", *(target.mutate or target.sources)]
    argv += ["--json", str(report_path), "-j", str(jobs), "-q"]
    run = _timed(target, rb.GUARDCHECK, rnd, argv, scratch, timeout)
    if run.exit_code not in (0, 1) or not report_path.exists():  # 1 = gate failed: survivors
        run.note = f"guardcheck sweep exited {run.exit_code}; see {run.log}"
        return run
    report = json.loads(report_path.read_text())
    mutants = rb._guardcheck_mutants(report)
    for m in mutants:
        run.verdicts[m["guardcheck"]["id"]] = m["guardcheck"]["verdict"]
    run.statuses = dict(Counter(run.verdicts.values()))
    run.mutants = len(run.verdicts)
    run.phase_s = mutant_phase_s(scratch / ".guardcheck")
    overheads = rb._fork_overheads_ms(mutants)
    run.median_overhead_ms = statistics.median(overheads) if overheads else None
    run.profile = guardcheck_profile(scratch)
    run.ok = run.mutants > 0
    return run


def mutant_phase_s(out_dir: Path) -> float | None:
    """guardcheck's mutant phase: baseline.json written (baseline over) to the last mutant
    log written (each is written when its mutant finishes).

    Neither report field is that phase: `guardcheck.wallSeconds` starts once the host's
    collection is back, so it also holds the baseline's test run when the baseline comes
    later (cachetools: 21.8 s against 15 s of mutants), and the schema's
    `performance.mutation` subtracts the whole baseline from it, collection included
    (target_app: 162 s against 210 s of mutants), so both misstate the phase.
    """
    logs = [p.stat().st_mtime for p in (out_dir / "mutants").glob("*.log")]
    baseline = out_dir / "baseline.json"
    if not logs or not baseline.exists():
        return None
    return max(logs) - baseline.stat().st_mtime


def guardcheck_profile(scratch: Path) -> dict[str, Any]:
    """Where guardcheck's worker time went, from its own records in `.guardcheck/`: per
    execution path (fork vs a fresh `subprocess` interpreter) the mutant count, worker
    seconds and median ms, the reasons mutants left the fork path, and - with
    GUARDCHECK_TIMING=1 - the median of each step of a forked mutant's timing line."""
    out_dir = scratch / ".guardcheck"
    by_path: dict[str, list[float]] = defaultdict(list)
    outcomes = out_dir / "outcomes.jsonl"
    if outcomes.exists():
        for line in outcomes.read_text("utf-8").splitlines():
            row = json.loads(line)
            by_path[str(row.get("path"))].append(float(row.get("duration") or 0.0))
    why: Counter[str] = Counter()
    steps: dict[str, list[float]] = defaultdict(list)
    for log in (out_dir / "mutants").glob("*.log"):
        text = log.read_text("utf-8", errors="replace")
        head = text.split("\n", 1)[0]
        match = rb.re.search(r"\(subprocess: (?:[^:]+\.py: )?(.*)\)$", head)
        if match:  # "closure variables of f.<locals>.g changed" -> the kind, not the name
            why[rb.re.sub(r" of \S+", "", match.group(1))[:60]] += 1
        for timing in rb.re.findall(r"^timing ms: (.*)$", text, rb.re.MULTILINE):
            for part in timing.split(", "):
                name, _, ms = part.partition(" +")
                steps[name].append(float(ms))
    return {
        "paths": {
            k: {"mutants": len(v), "worker_s": round(sum(v), 2), "median_ms": round(
                statistics.median(v) * 1000, 1)}
            for k, v in by_path.items()
        },
        "subprocess_reasons": dict(why.most_common()),
        "fork_step_median_ms": {k: round(statistics.median(v), 2) for k, v in steps.items()},
    }  # fmt: skip


# --------------------------------------------------------------------------- matching


Fingerprint = tuple[str, str, str]  # (file, mangled function, AST dump of the mutated function)


def mutmut_fingerprints(scratch: Path, keys: Sequence[str]) -> dict[str, Fingerprint]:
    """mutmut key (`pkg.mod.x_f__mutmut_3`) -> fingerprint, from its mutated files."""
    by_name: dict[str, Fingerprint] = {}
    mutants_dir = scratch / "mutants"
    for meta in sorted(mutants_dir.rglob("*.py.meta")):
        py = meta.with_suffix("")  # mutants/<file>.py next to its .meta
        rel = py.relative_to(mutants_dir).as_posix()
        for _, function in mangled_functions(ast.parse(py.read_text("utf-8"))):
            # A mutant copy keeps the mangled name (`xǁClassǁm__mutmut_3`) even in its class.
            mangled = function.name
            key, marker, number = mangled.rpartition("__mutmut_")
            if not (marker and number.isdigit()):
                continue
            name = key.removeprefix("x_") if key.startswith("x_") else key.rpartition("ǁ")[2]
            by_name[f"{rel}::{mangled}"] = (rel, key, dump_as(function, name))
    files = {
        meta.with_suffix("").relative_to(mutants_dir).as_posix()
        for meta in mutants_dir.rglob("*.py.meta")
    }
    out: dict[str, Fingerprint] = {}
    for k in keys:
        mangled = k.rsplit(".", 1)[1]
        hits = [by_name[f"{f}::{mangled}"] for f in files if f"{f}::{mangled}" in by_name]
        # Same mangled name in two files: the module path in the key decides.
        hits = [h for h in hits if _module_of(h[0]) in k] or hits
        if hits:
            out[k] = hits[0]
    return out


def _module_of(rel: str) -> str:
    parts = rel.removesuffix(".py").split("/")
    if parts[0] == "src":
        parts = parts[1:]
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts) + "."


def guardcheck_fingerprints(scratch: Path, paths: Sequence[str]) -> dict[str, Fingerprint]:
    """guardcheck id -> fingerprint: regenerate the sweep's mutants (same generator, same
    ids) and take the mutated function around each splice."""
    from guardcheck.sweep import generate  # imported late: only after the timed runs

    old = Path.cwd()
    os.chdir(scratch)  # mutmut's global config (read by its generator) comes from the cwd
    try:
        sweep = generate(scratch, list(paths), arid_rules=())
    finally:
        os.chdir(old)
    out: dict[str, Fingerprint] = {}
    for mutant in sweep.mutants:
        (change,) = mutant.changes
        line = change.mutated.count("\n", 0, max(change.splices[0].start - 1, 0)) + 1
        for key, function in mangled_functions(ast.parse(change.mutated)):
            if function.lineno <= line <= (function.end_lineno or function.lineno):
                rel = Path(change.path).as_posix()
                rel = Path(rel).relative_to(scratch).as_posix() if rel.startswith("/") else rel
                out[mutant.id] = (rel, key, dump_as(function, function.name))
                break
    return out


@dataclass
class Pairing:
    pairs: list[tuple[str, str]]  # (mutmut key, guardcheck id)
    only_mutmut: list[str]
    only_guardcheck: list[str]


def pair(mm: dict[str, Fingerprint], gc: dict[str, Fingerprint]) -> Pairing:
    pool: dict[Fingerprint, list[str]] = defaultdict(list)
    for gid, fp in sorted(gc.items()):
        pool[fp].append(gid)
    pairs, only_mm = [], []
    for key, fp in sorted(mm.items(), key=lambda kv: _natural(kv[0])):
        if pool.get(fp):
            pairs.append((key, pool[fp].pop(0)))  # identical mutants: any pairing is exact
        else:
            only_mm.append(key)
    return Pairing(pairs, only_mm, sorted(g for ids in pool.values() for g in ids))


def _natural(key: str) -> tuple[str, int]:
    head, _, n = key.rpartition("__mutmut_")
    return head, int(n) if n.isdigit() else 0


# --------------------------------------------------------------------------- report


def _median(values: Sequence[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None


def summarise(runs: Sequence[Run]) -> dict[str, Any]:
    good = [r for r in runs if r.ok]
    if not good:
        return {}
    wall = statistics.median(r.wall_s for r in good)
    mutants = int(statistics.median(r.mutants for r in good))
    phase = _median([r.phase_s for r in good])
    return {
        "runs": len(good),
        "walls_s": [round(r.wall_s, 2) for r in good],
        "median_wall_s": wall,
        "mutants": mutants,
        "mutants_per_s": mutants / wall,
        "per_mutant_ms_all_in": wall / mutants * 1000,
        "median_phase_s": phase,
        "per_mutant_ms_phase": None if phase is None else phase / mutants * 1000,
        "median_fixed_s": None if phase is None else wall - phase,
        "median_overhead_ms": _median([r.median_overhead_ms for r in good]),
        "median_parent_rss_mib": _median([r.parent_rss_mib for r in good]),
        "median_tree_rss_mib": _median([r.tree_rss_mib for r in good]),
        "statuses": good[0].statuses if all(r.statuses == good[0].statuses for r in good)
        else {"varies": [r.statuses for r in good]},
    }  # fmt: skip


def side_by_side(summaries: dict[str, dict[str, Any]]) -> str:
    f = rb._fmt
    rows = [("tool", "mutants", "median wall s", "mutants/s", "all-in ms/mutant",
             "phase ms/mutant", "fixed s", "overhead ms", "parent RSS MiB", "tree RSS MiB",
             "runs")]  # fmt: skip
    for tool, s in summaries.items():
        if not s:
            rows.append((tool, *["-"] * 9, "0"))
            continue
        rows.append(
            (
                tool,
                str(s["mutants"]),
                f(s["median_wall_s"], ".2f"),
                f(s["mutants_per_s"], ".1f"),
                f(s["per_mutant_ms_all_in"], ".1f"),
                f(s["per_mutant_ms_phase"], ".1f"),
                f(s["median_fixed_s"], ".2f"),
                f(s["median_overhead_ms"], ".1f"),
                f(s["median_parent_rss_mib"], ".1f"),
                f(s["median_tree_rss_mib"], ".1f"),
                str(s["runs"]),
            )
        )
    return rb.format_rows(rows)


def agreement(
    mm_runs: Sequence[Run], gc_runs: Sequence[Run], pairing: Pairing
) -> tuple[dict[str, int], list[dict[str, Any]]]:
    """Cross-tab of (mutmut status, guardcheck verdict) over every paired mutant and round
    pair, and each mutant whose caught/not-caught class differs in any round pair."""
    cross: Counter[str] = Counter()
    disagreements: dict[tuple[str, str], dict[str, Any]] = {}
    for mm, gc in zip(
        mm_runs, gc_runs, strict=True
    ):  # round r of mutmut against round r of guardcheck
        if not (mm.ok and gc.ok):
            continue
        for key, gid in pairing.pairs:
            a, b = mm.verdicts.get(key, "missing"), gc.verdicts.get(gid, "missing")
            cross[f"{a} / {b}"] += 1
            if _MUTMUT_CLASS.get(a, OTHER) != _GC_CLASS.get(b, OTHER):
                d = disagreements.setdefault(
                    (key, gid), {"mutmut": key, "guardcheck": gid, "rounds": []}
                )
                d["rounds"].append({"round": mm.round, "mutmut": a, "guardcheck": b})
    return dict(cross), list(disagreements.values())


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description="Time `guardcheck sweep` vs `mutmut run`.")
    p.add_argument("--rounds", type=int, default=3, help="timed runs per tool (default 3)")
    p.add_argument("--jobs", "-j", type=int, default=2, help="workers for both tools (2)")
    p.add_argument("--targets", default=",".join(TARGETS), help="target_app,cachetools")
    p.add_argument("--json", type=Path, help="every run, the medians and the agreement")
    p.add_argument(
        "--cachetools-files",
        default="src/cachetools/keys.py",
        help="comma list of cachetools files both tools mutate (default: keys.py; the whole "
        "package takes guardcheck 17-30 s a round here, see bench/README.md)",
    )
    p.add_argument(
        "--gc-timing",
        action="store_true",
        help="set GUARDCHECK_TIMING=1 for guardcheck: a per-mutant timing line in its logs",
    )
    p.add_argument(
        "--mutmut-tmpdir",
        type=Path,
        help="run mutmut with TMPDIR=DIR (e.g. /dev/shm, where guardcheck puts its scratch "
        "folder and the tests' tmp_path when it is a roomy tmpfs): the same filesystem for "
        "both tools' test files",
    )
    p.add_argument(
        "--scratch-root",
        type=Path,
        default=rb.WORK,
        help="where both tools' scratch copies of the target go (default bench/work/; e.g. "
        "/dev/shm/bench: the same memory filesystem for both tools' project folders and "
        "outputs, out of reach of the disk's state)",
    )
    p.add_argument("--timeout", type=float, default=1800.0, help="kill a run after S s")
    args = p.parse_args(argv)
    args.targets = [t for t in args.targets.split(",") if t]
    if set(args.targets) - set(TARGETS) or args.rounds < 1 or args.jobs < 1:
        p.error(f"targets from {TARGETS}; --rounds and --jobs >= 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    SCRATCH[0] = args.scratch_root.resolve()
    if args.gc_timing:  # inherited by both tools; only guardcheck reads it
        os.environ["GUARDCHECK_TIMING"] = "1"
    (rb.WORK / "logs").mkdir(parents=True, exist_ok=True)
    env = rb.environment(args.jobs)
    env["guardcheck_bytecode_compiled"] = rb.compile_guardcheck()
    print(
        f"env: {env['date']}; {env['cores']} cores; Python {env['python']}; mutmut "
        f"{env['mutmut']}; guardcheck {env['guardcheck']}; pytest {env['pytest']}; "
        f"jobs {args.jobs}; commit {env['git_commit']}; load {env['loadavg_start']}",
        flush=True,
    )
    payload: dict[str, Any] = {"environment": env, "command": sys.argv, "targets": {}}
    for name in args.targets:
        if name == "target_app":
            target = target_app()
        else:
            target = fetch_cachetools(rb.WORK, args.cachetools_files.split(","))
        runs: dict[str, list[Run]] = {rb.MUTMUT: [], rb.GUARDCHECK: []}
        for rnd in range(1, args.rounds + 1):
            for tool in (rb.MUTMUT, rb.GUARDCHECK):
                if tool == rb.MUTMUT:
                    r = run_mutmut(target, rnd, args.jobs, args.timeout, args.mutmut_tmpdir)
                else:
                    r = run_guardcheck(target, rnd, args.jobs, args.timeout)
                runs[tool].append(r)
                print(
                    f"{name} round {rnd} {tool:<10} {r.wall_s:7.2f} s exit {r.exit_code} "
                    f"mutants {r.mutants} {r.statuses} load {os.getloadavg()[0]:.1f}"
                    + (f" !! {r.note}" if r.note else ""),
                    flush=True,
                )
        summaries = {tool: summarise(rs) for tool, rs in runs.items()}
        print(f"\n== {name}\n{side_by_side(summaries)}")
        mm_s, gc_s = summaries[rb.MUTMUT], summaries[rb.GUARDCHECK]
        speedup = mm_s["median_wall_s"] / gc_s["median_wall_s"] if mm_s and gc_s else None
        print(f"speedup (mutmut median wall / guardcheck median wall): {rb._fmt(speedup, '.2f')}x")
        for r in runs[rb.GUARDCHECK]:
            print(f"guardcheck round {r.round} profile: {json.dumps(r.profile)}")

        mm_ok = next((r for r in runs[rb.MUTMUT] if r.ok), None)
        gc_ok = next((r for r in runs[rb.GUARDCHECK] if r.ok), None)
        result: dict[str, Any] = {"summaries": summaries, "speedup": speedup}
        if mm_ok and gc_ok:
            mm_fp = mutmut_fingerprints(rb.ROOT / mm_ok.scratch, list(mm_ok.verdicts))
            gc_fp = guardcheck_fingerprints(
                rb.ROOT / gc_ok.scratch, target.mutate or target.sources
            )
            pairing = pair(mm_fp, gc_fp)
            cross, disagreements = agreement(runs[rb.MUTMUT], runs[rb.GUARDCHECK], pairing)
            print(
                f"mutant sets: {len(pairing.pairs)} paired, {len(pairing.only_mutmut)} only "
                f"mutmut, {len(pairing.only_guardcheck)} only guardcheck"
                + f" ({len(mm_ok.verdicts) - len(mm_fp)} mutmut keys without a mutated copy)"
            )
            print("verdicts (mutmut / guardcheck), summed over round pairs:")
            for k, v in sorted(cross.items(), key=lambda kv: -kv[1]):
                print(f"  {v:6d}  {k}")
            print(f"disagreements (caught vs not caught): {len(disagreements)} mutants")
            for d in disagreements:
                rounds = ", ".join(
                    f"r{x['round']}: {x['mutmut']}/{x['guardcheck']}" for x in d["rounds"]
                )
                print(f"  {d['mutmut']}  <->  {d['guardcheck']}  [{rounds}]")
            result.update(
                paired=len(pairing.pairs),
                only_mutmut=pairing.only_mutmut,
                only_guardcheck=pairing.only_guardcheck,
                crosstab=cross,
                disagreements=disagreements,
            )
        result["runs"] = [{k: v for k, v in asdict(r).items()} for rs in runs.values() for r in rs]
        payload["targets"][name] = result
        if args.json:  # after each target: a run stopped later keeps the finished targets
            args.json.parent.mkdir(parents=True, exist_ok=True)
            args.json.write_text(json.dumps(payload, indent=2) + "\n")
    env["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    print(f"load average at end: {env['loadavg_end']}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(payload, indent=2) + "\n")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main())
