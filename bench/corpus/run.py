"""Real-project corpus: guardcheck's verdicts against the mutant applied by hand.

    .venv/bin/python bench/corpus/run.py [--only LIB,..] [--sample N] [--quick] [--force]

For each library of bench/corpus/libraries.toml (pinned PyPI sdists, fetched at run time,
never committed), under $TMPDIR/guardcheck-corpus/<name>/
(--work; not inside this repository, whose pytest settings pytest would find):

1. setup: the sdist extracted into `project/` (its own git repository, `[tool.guardcheck]`
   added as a user would), a venv `venv/` with the CI's install line, its test
   requirements and guardcheck (`pip install -e <this repo>`) in one resolve.
2. plain: `python -m pytest` in `project/`: the baseline guardcheck must agree with.
3. sweep: `guardcheck sweep <mutate> --json` in `project/`, timed whole.
4. oracle: a seeded sample of the sweep's mutants plus every not-caught one (up to a
   cap), each written by hand into `oracle/` (a copy of `project/`; the venv's editable
   install is re-pointed at it for this step) and the whole suite run with plain
   `python -m pytest -x` (the project's own settings; `-x` only stops at the first
   failure); caught = nonzero exit or a timeout. The mutated text is guardcheck's own
   (`guardcheck.sweep.generate`, the generator the sweep ran, same ids).
5. mutmut: `mutmut run` (3.8.1, from the same venv) on a copy of `project/` with
   `[tool.mutmut]` naming the same files; verdicts paired with guardcheck's mutant for
   mutant (bench/sweep_bench.py's fingerprints) and both wall times.
6. report: bench/results/corpus.md (the table, the command, every disagreement) and
   bench/work/corpus/corpus.json.

Each step writes its result under `<name>/state/` and is skipped when that exists,
unless --force (or --redo STEP,...). See bench/results/corpus.md for what is measured.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import tomllib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(BENCH))

import run_bench as rb  # noqa: E402  timed runs under rss_launcher, mutmut's meta files
import sweep_bench as sb  # noqa: E402  verdict classes, mutant fingerprints and pairing

# Not under bench/work/ as other benches: pytest looks for its configuration upwards from
# the project, and a library without a pytest section of its own (cachetools, tabulate,
# iso8601) would then run under this repository's pyproject.toml (its pythonpath, addopts).
# A list so that main() can set it (--work).
WORKS = [Path(tempfile.gettempdir()) / "guardcheck-corpus"]
LIBRARIES = Path(__file__).resolve().parent / "libraries.toml"
RESULTS = BENCH / "results" / "corpus.md"
NOTES = Path(__file__).resolve().parent / "notes.md"
# Timed steps first for every library, the (untimed, long) oracle last.
STEPS = ("setup", "plain", "sweep", "mutmut", "oracle")
# Files a step leaves in a tree that are neither the project's nor the mutant's.
EXCLUDE = (
    "*.egg-info/",
    ".guardcheck/",
    "mutants/",
    "__pycache__/",
    ".pytest_cache/",
    ".hypothesis/",
    ".coverage*",
    "coverage.xml",
    "htmlcov/",
)


@dataclass(frozen=True)
class Library:
    name: str
    sdist: str
    import_name: str
    layout: str
    covers: tuple[str, ...]
    install: tuple[str, ...]
    requirements: tuple[str, ...]
    pytest_args: tuple[str, ...]
    source: tuple[str, ...]
    tests: tuple[str, ...]
    mutate: tuple[str, ...]
    patch: dict[str, str] = field(default_factory=dict)
    # Top-level functions/classes of `mutate` the sweep keeps, or `Class.method` (the
    # rest go to `exclude`): a big module cut to a size a 2-core run finishes in
    # minutes. mutmut cannot be cut the same way, so such a library has no mutmut side.
    sweep_only: tuple[str, ...] = ()

    @property
    def version(self) -> str:
        return self.sdist.split("==")[1]

    @property
    def home(self) -> Path:
        return WORKS[0] / self.name

    @property
    def project(self) -> Path:
        return self.home / "project"

    @property
    def oracle_tree(self) -> Path:
        return self.home / "oracle"

    @property
    def venv(self) -> Path:
        return self.home / "venv"

    def bin(self, name: str) -> str:
        return str(self.venv / "bin" / name)

    def state(self, step: str) -> Path:
        return self.home / "state" / f"{step}.json"


def load_libraries(path: Path = LIBRARIES) -> list[Library]:
    out = []
    for row in tomllib.loads(path.read_text())["library"]:
        tuples = {k: tuple(v) for k, v in row.items() if isinstance(v, list)}
        out.append(Library(**{**row, **tuples}))
    return out


# --------------------------------------------------------------------------- processes


def lib_env(lib: Library, **extra: str) -> dict[str, str]:
    """What a shell with the library's venv activated gives its commands. Values only
    (rb.timed_run merges them into os.environ), so PYTHONPATH is emptied, not removed."""
    env = {
        "PATH": f"{lib.venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
        "VIRTUAL_ENV": str(lib.venv),
        "PYTHONPATH": "",
        # setuptools_scm / hatch-vcs: the sdist's version, not one from our fresh git repo.
        "SETUPTOOLS_SCM_PRETEND_VERSION": lib.version,
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    return {**env, **extra}


def sh(
    lib: Library, cmd: Sequence[str], cwd: Path, timeout: float | None = None, **extra: str
) -> subprocess.CompletedProcess[str]:
    """Run a command in the library's environment; output captured, never raises on exit
    status (a TimeoutExpired is turned into returncode -9 with the note in stderr)."""
    env = {**os.environ, **lib_env(lib, **extra)}
    with subprocess.Popen(
        list(cmd),
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        start_new_session=True,  # its own process group: a timeout ends its workers too
    ) as proc:
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(OSError):
                os.killpg(proc.pid, signal.SIGKILL)
            out, _ = proc.communicate()
            return subprocess.CompletedProcess(list(cmd), -9, out, f"timeout after {timeout} s")
        finally:
            with contextlib.suppress(OSError):  # anything it left behind
                os.killpg(proc.pid, signal.SIGKILL)
    return subprocess.CompletedProcess(list(cmd), proc.returncode, out, err)


def must(proc: subprocess.CompletedProcess[str], what: str) -> subprocess.CompletedProcess[str]:
    if proc.returncode != 0:
        tail = (proc.stdout + proc.stderr)[-3000:]
        raise SystemExit(f"{what} failed (exit {proc.returncode}):\n{tail}")
    return proc


def save(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")


def load(path: Path) -> Any:
    return json.loads(path.read_text()) if path.exists() else None


def mutmut_ran(lib: Library) -> bool:
    """mutmut started on this library (it stops before any mutant on some setups)."""
    state = load(lib.state("mutmut")) or {}
    statuses = state.get("statuses") or {}
    return bool(statuses) and set(statuses) != {"not checked"}


# --------------------------------------------------------------------------- 1. setup


def fetch(lib: Library) -> Path:
    """The sdist extracted once under the work folder's sdist/ (shared by variants of a library)."""
    dest = WORKS[0] / "sdist"
    dist, ver = lib.sdist.split("==")
    tree = dest / f"{dist}-{ver}"
    if tree.is_dir():
        return tree
    dest.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":all:"]
    must(
        subprocess.run(
            [*cmd, "-d", str(dest), lib.sdist], capture_output=True, text=True, check=False
        ),
        f"pip download {lib.sdist}",
    )
    # PEP 625 names an sdist by the normalized project name (jaraco.text: jaraco_text).
    normalized = re.sub(r"[-_.]+", "_", dist)
    names = {f"{dist}-{ver}.tar.gz".lower(), f"{normalized}-{ver}.tar.gz".lower()}
    archive = next(p for p in dest.iterdir() if p.name.lower() in names)
    with tarfile.open(archive) as tar:
        tar.extractall(dest, filter="data")
        top = Path(tar.getnames()[0]).parts[0]
    if (dest / top) != tree:
        (dest / top).rename(tree)
    return tree


def excluded(lib: Library, tree: Path) -> list[str]:
    """`exclude` globs for every top-level def/class of `mutate` not in `sweep_only`.

    A `Class.method` entry keeps that class, and of its methods only those named."""
    defs = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
    methods: dict[str, set[str]] = {}
    for kept in lib.sweep_only:
        owner, _, method = kept.partition(".")
        if method:
            methods.setdefault(owner, set()).add(method)
    out = []
    for rel in lib.mutate:
        module = sb._module_of(rel).rstrip(".")
        for node in ast.parse((tree / rel).read_text("utf-8")).body:
            if not isinstance(node, defs):
                continue
            if node.name in methods:
                out += [
                    f"{module}.{node.name}.{inner.name}"
                    for inner in node.body
                    if isinstance(inner, defs) and inner.name not in methods[node.name]
                ]
            elif node.name not in lib.sweep_only:
                out.append(f"{module}.{node.name}")
    return out


def guardcheck_config(lib: Library, tree: Path) -> str:
    t = rb._toml_value
    return "\n".join(
        [
            "",
            "# Added for bench/corpus: what a user of guardcheck writes.",
            "[tool.guardcheck]",
            f"source = {t(list(lib.source))}",
            f"tests = {t(list(lib.tests))}",
            f"pytest_args = {t(list(lib.pytest_args))}",
            *([f"exclude = {t(excluded(lib, tree))}"] if lib.sweep_only else []),
            # mutmut mutates "arid" code too; the same mutant set needs every rule off.
            f"mutate_arid = {t(sb.ALL_ARID)}",
            "",
        ]
    )


def git(tree: Path, *args: str) -> str:
    return must(
        subprocess.run(
            ["git", "-C", str(tree), *args], capture_output=True, text=True, check=False
        ),
        f"git {args[0]}",
    ).stdout


def commit_all(tree: Path, message: str) -> None:
    git(tree, "add", "-A")
    if git(tree, "status", "--porcelain").strip():
        git(
            tree,
            "-c",
            "user.name=corpus",
            "-c",
            "user.email=corpus@localhost",
            "commit",
            "-q",
            "--no-verify",
            "-m",
            message,
        )


def setup(lib: Library) -> dict[str, Any]:
    pristine = fetch(lib)
    if lib.home.exists():
        shutil.rmtree(lib.home)
    shutil.copytree(pristine, lib.project, symlinks=True)
    if lib.patch:
        target = lib.project / lib.patch["file"]
        text = target.read_text()
        if lib.patch["find"] not in text:
            raise SystemExit(f"{lib.name}: patch text not found in {target}")
        target.write_text(text.replace(lib.patch["find"], lib.patch["replace"], 1))
    with (lib.project / "pyproject.toml").open("a") as f:
        f.write(guardcheck_config(lib, lib.project))
    git(lib.project, "init", "-q")
    (lib.project / ".git" / "info" / "exclude").write_text("\n".join(EXCLUDE) + "\n")
    commit_all(lib.project, f"{lib.sdist} as released, plus [tool.guardcheck]")
    must(sh(lib, [sys.executable, "-m", "venv", str(lib.venv)], lib.home), "venv")
    started = time.perf_counter()
    pip = [lib.bin("python"), "-m", "pip", "install", "-q", "-e", str(rb.ROOT)]
    must(
        sh(lib, [*pip, *lib.requirements, *lib.install], lib.project, 1800),
        f"{lib.name}: pip install",
    )
    # A build backend may write into the tree (setuptools_scm's version file).
    commit_all(lib.project, "after pip install -e .")
    freeze = must(sh(lib, [lib.bin("python"), "-m", "pip", "freeze"], lib.home), "freeze")
    return {
        "install_s": round(time.perf_counter() - started, 1),
        "imports_from": imported_from(lib),
        "freeze": freeze.stdout.splitlines(),
    }


def imported_from(lib: Library) -> str:
    code = f"import {lib.import_name} as m; print(m.__file__)"
    proc = sh(lib, [lib.bin("python"), "-c", code], lib.home)
    return proc.stdout.strip() or proc.stderr.strip()[-300:]


def point_editable_at(lib: Library, tree: Path) -> None:
    """The venv's editable install imports the package from `tree` (reinstalled if not)."""
    if imported_from(lib).startswith(f"{tree}/"):
        return
    pip = [lib.bin("python"), "-m", "pip", "install", "-q", "--no-deps", *lib.install]
    must(sh(lib, pip, tree, 900), f"{lib.name}: editable install into {tree}")
    where = imported_from(lib)
    if not where.startswith(f"{tree}/"):
        raise SystemExit(f"{lib.name}: after `pip install -e` in {tree}, imports from {where}")


# --------------------------------------------------------------------------- 2-3. baselines


_SUMMARY = re.compile(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed|deselected)")


def pytest_counts(output: str) -> dict[str, int]:
    """The counts on pytest's last summary line (`== 3 passed, 1 skipped in 0.5s ==`)."""
    lines = [ln for ln in output.splitlines() if re.search(r" in [\d.]+s", ln)]
    found = _SUMMARY.findall(lines[-1]) if lines else []
    return {kind.rstrip("s") if kind.startswith("error") else kind: int(n) for n, kind in found}


def plain_pytest(
    lib: Library, tree: Path, extra: Sequence[str] = (), timeout: float = 1800, **env: str
) -> tuple[subprocess.CompletedProcess[str], float]:
    started = time.perf_counter()
    cmd = [lib.bin("python"), "-m", "pytest", *lib.pytest_args, *extra]
    proc = sh(lib, cmd, tree, timeout, **env)
    return proc, time.perf_counter() - started


def plain(lib: Library) -> dict[str, Any]:
    point_editable_at(lib, lib.project)
    proc, wall = plain_pytest(lib, lib.project)
    log = lib.home / "state" / "plain.log"
    log.write_text(proc.stdout + proc.stderr)
    return {
        "exit": proc.returncode,
        "wall_s": round(wall, 2),
        "counts": pytest_counts(proc.stdout),
        "log": str(log),
    }


def sweep(lib: Library, jobs: int, timeout: float) -> dict[str, Any]:
    point_editable_at(lib, lib.project)
    # Each venv has this checkout installed editable; mutmut's wheel has its .pyc.
    rb.compile_guardcheck()
    report = lib.home / "state" / "gc.json"
    report.unlink(missing_ok=True)
    log = lib.home / "state" / "sweep.log"
    argv = [
        lib.bin("guardcheck"),
        "sweep",
        *lib.mutate,
        "--json",
        str(report),
        "-j",
        str(jobs),
        "--no-cache",
    ]
    timed = rb.timed_run(
        argv,
        cwd=lib.project,
        log=log,
        rss_file=log.with_suffix(".rss"),
        timeout_s=timeout,
        env=lib_env(lib),
        python=lib.bin("python"),
    )
    out: dict[str, Any] = {
        "exit": timed.exit_code,
        "wall_s": round(timed.wall_s, 2),
        "log": str(log),
        "guardcheck_commit": git(rb.ROOT, "rev-parse", "--short", "HEAD").strip(),
        "verdicts": {},
        "baseline_tests": guardcheck_baseline_tests(lib.project),
    }
    if report.exists():
        for m in rb._guardcheck_mutants(json.loads(report.read_text())):
            own = m.get("guardcheck") or {}
            out["verdicts"][own["id"]] = own["verdict"]
    out["statuses"] = dict(Counter(out["verdicts"].values()))
    return out


def guardcheck_baseline_tests(project: Path) -> int | None:
    """How many tests guardcheck's baseline ran and saw pass (its own record)."""
    data = load(project / ".guardcheck" / "baseline.json")
    if not isinstance(data, dict):
        return None
    tests = data.get("tests") or data.get("durations") or {}
    return len(tests) if isinstance(tests, dict | list) else None


# --------------------------------------------------------------------------- 4. oracle


def generated(lib: Library, tree: Path) -> dict[str, tuple[str, str]]:
    """guardcheck id -> (file relative to the tree, the whole mutated text)."""
    from guardcheck.sweep import generate  # the generator `guardcheck sweep` runs

    old = Path.cwd()
    os.chdir(tree)  # mutmut's global config (read by the generator) comes from the cwd
    try:
        result = generate(tree, list(lib.mutate), arid_rules=())
    finally:
        os.chdir(old)
    out = {}
    for mutant in result.mutants:
        (change,) = mutant.changes
        rel = Path(change.path)
        out[mutant.id] = (
            (rel.relative_to(tree) if rel.is_absolute() else rel).as_posix(),
            change.mutated,
        )
    return out


def choose(verdicts: dict[str, str], sample: int, cap: int, seed: int) -> list[str]:
    """A seeded random sample plus the not-caught mutants (a seeded cap of them)."""
    ids = sorted(verdicts)
    rng = random.Random(seed)
    picked = set(rng.sample(ids, min(sample, len(ids))))
    missed = [i for i in ids if sb._GC_CLASS.get(verdicts[i]) != sb.CAUGHT]
    picked |= set(rng.sample(missed, min(cap, len(missed))))
    return sorted(picked)


def fresh_ids(report: Path) -> list[str]:
    """The ids of the sweep's mutants that ran in a fresh interpreter or from a checkpoint."""
    data = json.loads(report.read_text(encoding="utf-8"))
    return [
        m["guardcheck"]["id"]
        for f in data["files"].values()
        for m in f["mutants"]
        if m["guardcheck"].get("executionPath") == "subprocess"
    ]


def sweep_hash_seed(report: Path) -> dict[str, str]:
    """The hand runs' environment: PYTHONHASHSEED (and pytest-randomly's seed) as every
    test process of the sweep had them.

    Plain pytest draws a seed per run, and a verdict can depend on it (dep-logic's
    `range.py:217:37` mutant survives under 1 seed in 40): under the sweep's seed the
    oracle compares the same program; under another it would disagree by chance.
    """
    if not report.exists():
        return {}
    fields = json.loads(report.read_text(encoding="utf-8"))["guardcheck"]
    seed = fields.get("hashSeed", "")
    env = {"PYTHONHASHSEED": seed} if seed else {}
    # pytest-randomly's order and draws: its seed, the same in every session of the sweep.
    if fields.get("randomlySeed"):
        env["PYTEST_ADDOPTS"] = f"--randomly-seed={fields['randomlySeed']}"
    return env


def fresh_oracle_tree(lib: Library) -> None:
    """A copy of the project as the user has it, git-ignored files included: a clone would
    miss build outputs the tests need (humanize's compiled .mo catalogues are ignored, and
    its i18n tests skip without them)."""
    tree = lib.oracle_tree
    if tree.exists():
        shutil.rmtree(tree)
    shutil.copytree(
        lib.project,
        tree,
        symlinks=True,
        ignore=shutil.ignore_patterns(
            ".guardcheck", "mutants", "__pycache__", ".pytest_cache", ".hypothesis"
        ),
    )


def oracle(lib: Library, args: argparse.Namespace) -> dict[str, Any]:
    swept = load(lib.state("sweep")) or {}
    verdicts: dict[str, str] = swept.get("verdicts", {})
    done_path = lib.home / "state" / "oracle.jsonl"
    if args.force:
        done_path.unlink(missing_ok=True)
    seed = sweep_hash_seed(lib.home / "state" / "gc.json")
    done = {}
    if done_path.exists():
        rows = map(json.loads, done_path.read_text().splitlines())
        # A hand run under another seed than this sweep's compares another program.
        same = seed.get("PYTHONHASHSEED", "")
        done = {r["id"]: r for r in rows if r.get("hash_seed", "") == same}
    ids = choose(verdicts, args.sample, args.survivors, args.seed)
    if args.all_fresh:  # every mutant that did not run forked from the host
        ids = sorted({*ids, *fresh_ids(lib.home / "state" / "gc.json")})
    # And every mutant where mutmut's class differs: the oracle says which tool is right.
    ids = sorted({*ids, *(d["guardcheck"] for d in mutmut_disagreements(lib, verdicts))})
    ids_match = (load(lib.state("oracle")) or {}).get("ids_match_sweep")
    todo = [i for i in ids if i not in done]
    if todo:
        fresh_oracle_tree(lib)
        point_editable_at(lib, lib.oracle_tree)
        mutants = generated(lib, lib.oracle_tree)
        ids_match = set(mutants) == set(verdicts)
        control, wall = plain_pytest(
            lib,
            lib.oracle_tree,
            ("-x", "-q"),
            PYTHONDONTWRITEBYTECODE="1",
            **seed,
        )
        if control.returncode != 0:
            raise SystemExit(
                f"{lib.name}: the oracle tree's unmutated suite fails "
                f"(exit {control.returncode}):\n{control.stdout[-2000:]}"
            )
        budget = max(60.0, 10 * wall)
        with done_path.open("a") as out:
            for n, mutant_id in enumerate(todo, 1):
                # By hand each mutant gets a checkout: what the last one's tests wrote
                # beside them (tomlkit rewrites tests/examples/example.toml) is gone.
                fresh_oracle_tree(lib)
                row = apply_and_test(lib, mutant_id, mutants.get(mutant_id), budget, seed)
                done[mutant_id] = row
                out.write(json.dumps(row) + "\n")
                out.flush()
                print(
                    f"  oracle {n}/{len(todo)} {'caught' if row['caught'] else 'NOT'} "
                    f"gc={verdicts.get(mutant_id)} {mutant_id}",
                    flush=True,
                )
        point_editable_at(lib, lib.project)
    rows = [done[i] for i in ids if i in done]
    return {"ids": ids, "rows": rows, "ids_match_sweep": ids_match}


def apply_and_test(
    lib: Library,
    mutant_id: str,
    mutant: tuple[str, str] | None,
    budget: float,
    seed: dict[str, str],
) -> dict[str, Any]:
    if mutant is None:
        return {
            "id": mutant_id,
            "caught": None,
            "exit": None,
            "note": "guardcheck.sweep.generate has no mutant with this id",
        }
    rel, text = mutant
    path = lib.oracle_tree / rel
    original = path.read_bytes()
    # No bytecode: a mutant of the same size written within the second of the original
    # would otherwise be served from a stale __pycache__ entry (mtime + size check).
    for cache in path.parent.glob("__pycache__"):
        shutil.rmtree(cache)
    path.write_text(text, encoding="utf-8")
    try:
        proc, wall = plain_pytest(
            lib, lib.oracle_tree, ("-x", "-q"), budget, PYTHONDONTWRITEBYTECODE="1", **seed
        )
    finally:
        path.write_bytes(original)
    tail = [ln for ln in (proc.stdout + proc.stderr).splitlines() if ln.strip()][-6:]
    return {
        "id": mutant_id,
        "exit": proc.returncode,
        "caught": proc.returncode != 0,
        "timeout": proc.returncode == -9,
        "wall_s": round(wall, 2),
        "hash_seed": seed.get("PYTHONHASHSEED", ""),
        "tail": tail,
    }


# --------------------------------------------------------------------------- 5. mutmut


def mutmut_config(lib: Library, scratch: Path) -> str:
    t = rb._toml_value
    roots = {Path(s).parts[0] for s in lib.source}
    skip = {".git", "mutants", ".guardcheck", *roots}
    also = sorted(
        p.name for p in scratch.iterdir() if p.name not in skip and not p.name.endswith(".egg-info")
    )
    tests = [x for x in lib.tests if Path(x).parts[0] not in roots]
    return "\n".join(
        [
            "",
            "[tool.mutmut]",
            f"source_paths = {t(list(lib.source))}",
            f"only_mutate = {t(list(lib.mutate))}",
            f"pytest_add_cli_args = {t(list(lib.pytest_args))}",
            f"pytest_add_cli_args_test_selection = {t(tests or list(lib.tests))}",
            f"also_copy = {t(also)}",
            "",
        ]
    )


def mutmut(lib: Library, jobs: int, timeout: float) -> dict[str, Any]:
    point_editable_at(lib, lib.project)
    scratch = lib.home / "mutmut"
    if scratch.exists():
        shutil.rmtree(scratch)
    shutil.copytree(
        lib.project,
        scratch,
        symlinks=True,
        ignore=shutil.ignore_patterns(".git", ".guardcheck", "*.egg-info"),
    )
    with (scratch / "pyproject.toml").open("a") as f:
        f.write(mutmut_config(lib, scratch))
    log = lib.home / "state" / "mutmut.log"
    argv = [lib.bin("mutmut"), "run", "--max-children", str(jobs)]
    timed = rb.timed_run(
        argv,
        cwd=scratch,
        log=log,
        rss_file=log.with_suffix(".rss"),
        timeout_s=timeout,
        env=lib_env(lib),
        python=lib.bin("python"),
    )
    status_of = rb._mutmut_status_map()
    verdicts = {
        key: status_of(code)
        for meta in rb._iter_meta(scratch / "mutants")
        for key, code in meta["exit_code_by_key"].items()
    }
    out: dict[str, Any] = {
        "exit": timed.exit_code,
        "wall_s": round(timed.wall_s, 2),
        "log": str(log),
        "verdicts": verdicts,
        "statuses": dict(Counter(verdicts.values())),
    }
    if verdicts:
        pairing = sb.pair(
            sb.mutmut_fingerprints(scratch, list(verdicts)),
            sb.guardcheck_fingerprints(lib.project, lib.mutate),
        )
        out.update(
            pairs=pairing.pairs,
            only_mutmut=pairing.only_mutmut,
            only_guardcheck=pairing.only_guardcheck,
        )
    return out


# --------------------------------------------------------------------------- 6. report


def gc_class(verdict: str | None) -> str:
    return sb._GC_CLASS.get(verdict or "missing", sb.OTHER)


def oracle_class(row: dict[str, Any]) -> str:
    if row.get("caught") is None:
        return sb.OTHER
    return sb.CAUGHT if row["caught"] else sb.NOT_CAUGHT


def agree(gc: str, other: str) -> bool:
    """Caught vs not caught; guardcheck's no-coverage is not caught."""
    squash = {sb.UNCOVERED: sb.NOT_CAUGHT}
    return squash.get(gc, gc) == squash.get(other, other)


def mutmut_disagreements(lib: Library, verdicts: dict[str, str]) -> list[dict[str, Any]]:
    """Paired mutants whose caught / not-caught class differs between the two tools."""
    mutmut_r = load(lib.state("mutmut")) or {}
    mm_verdicts = mutmut_r.get("verdicts", {})
    out = []
    for key, gid in mutmut_r.get("pairs", []):
        a = sb._MUTMUT_CLASS.get(mm_verdicts.get(key, ""), sb.OTHER)
        if a != sb.OTHER and not agree(gc_class(verdicts.get(gid)), a):
            out.append(
                {
                    "mutmut": key,
                    "mutmut_verdict": mm_verdicts.get(key),
                    "guardcheck": gid,
                    "guardcheck_verdict": verdicts.get(gid),
                }
            )
    return out


def summarise(lib: Library) -> dict[str, Any]:
    plain_r, sweep_r = load(lib.state("plain")) or {}, load(lib.state("sweep")) or {}
    oracle_r, mutmut_r = load(lib.state("oracle")) or {}, load(lib.state("mutmut")) or {}
    verdicts = sweep_r.get("verdicts", {})
    gc_baseline_ok = sweep_r.get("exit") in (0, 1) if sweep_r else None
    plain_ok = plain_r.get("exit") == 0 if plain_r else None
    disagreements, errors, agreed = [], [], 0
    mm_by_gc = {g: k for k, g in mutmut_r.get("pairs", [])}
    mm_verdicts = mutmut_r.get("verdicts", {})
    for row in oracle_r.get("rows", []):
        gv = verdicts.get(row["id"])
        mm = mm_verdicts.get(mm_by_gc.get(row["id"], ""), None)
        entry = {
            "id": row["id"],
            "guardcheck": gv,
            "oracle": oracle_class(row),
            "oracle_exit": row.get("exit"),
            "mutmut": mm,
            "tail": row.get("tail", []),
        }
        if gc_class(gv) == sb.OTHER:
            errors.append(entry)
        elif agree(gc_class(gv), oracle_class(row)):
            agreed += 1
        else:
            disagreements.append(entry)
    mm_disagree = mutmut_disagreements(lib, verdicts)
    mm_total = sum(  # mutants mutmut decided (not "not checked", "suspicious", ...)
        sb._MUTMUT_CLASS.get(mutmut_r["verdicts"].get(key, ""), sb.OTHER) != sb.OTHER
        for key, _ in mutmut_r.get("pairs", [])
    )
    mm_agree = mm_total - len(mm_disagree)
    return {
        "name": lib.name,
        "version": lib.version,
        "layout": lib.layout,
        "covers": lib.covers,
        "mutate": lib.mutate,
        "mutants": len(verdicts),
        "statuses": sweep_r.get("statuses"),
        "plain": {k: plain_r.get(k) for k in ("exit", "counts", "wall_s")},
        "guardcheck_exit": sweep_r.get("exit"),
        "guardcheck_baseline_tests": sweep_r.get("baseline_tests"),
        "baseline_agree": None
        if plain_ok is None or gc_baseline_ok is None
        else plain_ok == gc_baseline_ok,
        "oracle_n": len(oracle_r.get("rows", [])),
        "oracle_agreed": agreed,
        "oracle_errors": errors,
        "disagreements": disagreements,
        "mutmut_paired": mm_total,
        "mutmut_agreed": mm_agree,
        "mutmut_disagreements": mm_disagree,
        "by_hand": {row["id"]: oracle_class(row) for row in oracle_r.get("rows", [])},
        "mutmut_statuses": mutmut_r.get("statuses"),
        "gc_wall_s": sweep_r.get("wall_s"),
        "mm_wall_s": mutmut_r.get("wall_s"),
        "mutmut_exit": mutmut_r.get("exit"),
        "guardcheck_commit": sweep_r.get("guardcheck_commit"),
    }


def pct(a: int, b: int) -> str:
    return f"{a}/{b} ({100 * a / b:.0f}%)" if b else "-"


def table(rows: Sequence[dict[str, Any]]) -> str:
    head = [
        "library",
        "version",
        "layout / setup",
        "mutants",
        "baseline agree?",
        "oracle sample",
        "oracle agreement",
        "gc error",
        "mutmut agreement",
        "guardcheck wall s",
        "mutmut wall s",
        "ratio",
        "gc commit",
    ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        p = r["plain"]
        base = {True: "yes", False: "**no**", None: "-"}[r["baseline_agree"]]
        counts = ", ".join(f"{n} {k}" for k, n in (p.get("counts") or {}).items())
        base += f" (pytest exit {p.get('exit')}: {counts};"
        base += f" guardcheck exit {r['guardcheck_exit']}"
        base += f", {r['guardcheck_baseline_tests']} tests)"
        judged = r["oracle_n"] - len(r["oracle_errors"])
        ran = set(r["mutmut_statuses"] or {}) - {"not checked"}
        mm_wall = r["mm_wall_s"] if ran else None
        ratio = (mm_wall / r["gc_wall_s"]) if mm_wall and r["gc_wall_s"] else None
        mm_cell = pct(r["mutmut_agreed"], r["mutmut_paired"]) if ran else "-"
        if not ran and r["mutmut_exit"]:
            mm_cell = f"mutmut stopped before any mutant (exit {r['mutmut_exit']})"
        lines.append(
            "| "
            + " | ".join(
                [
                    r["name"],
                    r["version"],
                    r["layout"],
                    str(r["mutants"]),
                    base,
                    str(r["oracle_n"]),
                    pct(r["oracle_agreed"], judged),
                    str(len(r["oracle_errors"])),
                    mm_cell,
                    rb._fmt(r["gc_wall_s"], ".1f"),
                    rb._fmt(mm_wall, ".1f"),
                    rb._fmt(ratio, ".2f") + ("x" if ratio else ""),
                    str(r["guardcheck_commit"]),
                ]
            )
            + " |"
        )
    return "\n".join(lines)


def failure_line(tail: Sequence[str]) -> str:
    """What failed, from the end of pytest's output: its FAILED/ERROR line if there is one."""
    named = [ln for ln in tail if ln.startswith(("FAILED", "ERROR", "E "))]
    return (named or list(tail[-1:]) or [""])[-1].strip()


def disagreement_list(rows: Sequence[dict[str, Any]]) -> str:
    out = []
    for r in rows:
        items = r["disagreements"] + r["oracle_errors"]
        if not items:
            continue
        out.append(
            f"\n### {r['name']} {r['version']} ({len(r['disagreements'])} disagree, "
            f"{len(r['oracle_errors'])} guardcheck error/other)\n"
        )
        for d in items:
            why = failure_line(d["tail"]) if d["oracle"] == sb.CAUGHT else ""
            out.append(
                f"- `{d['id']}`: guardcheck **{d['guardcheck']}**, by hand "
                f"**{d['oracle']}** (pytest exit {d['oracle_exit']})"
                + (f", mutmut {d['mutmut']}" if d["mutmut"] else "")
                + (f" — `{why[:160]}`" if why else "")
            )
    return "\n".join(out) or "\nnone"


def mutmut_list(rows: Sequence[dict[str, Any]]) -> str:
    out = []
    for r in rows:
        for d in r["mutmut_disagreements"]:
            hand = r["by_hand"].get(d["guardcheck"], "not run")
            out.append(
                f"- {r['name']} `{d['guardcheck']}`: mutmut {d['mutmut_verdict']},"
                f" guardcheck {d['guardcheck_verdict']}, by hand **{hand}**"
            )
    return "\n".join(out) or "none"


def report(libs: Sequence[Library], argv: Sequence[str]) -> None:
    present = [lib for lib in libs if lib.state("setup").exists()]
    missing = [lib.name for lib in libs if lib not in present]
    rows = [summarise(lib) for lib in present]
    commits = sorted({str(r["guardcheck_commit"]) for r in rows})
    now = time.gmtime()
    save(WORKS[0] / "corpus.json", rows)
    text = [
        "# Real-project corpus: guardcheck vs the mutant applied by hand",
        "",
        f"Generated by `bench/corpus/run.py` on {time.strftime('%Y-%m-%d %H:%M UTC', now)}"
        f", guardcheck at {', '.join(commits)}, 2 vCPU shared machine, `-j 2` for both tools.",
        "",
        "```console",
        "$ .venv/bin/python bench/corpus/run.py            # everything, resumable",
        *(
            [f"$ .venv/bin/python bench/corpus/run.py {' '.join(argv)}   # this run"]
            if argv
            else []
        ),
        "```",
        "",
        table(rows),
        "",
        "- **baseline agree?**: plain `python -m pytest` passes exactly when guardcheck's"
        " baseline does (guardcheck exit 3 = its baseline failed).",
        "- **oracle agreement**: caught / not caught equal to the mutant written by hand into a"
        " copy of the project (git-ignored files too; the venv's editable install pointed at"
        " it) and the whole suite"
        " run with plain `python -m pytest -x`, under the PYTHONHASHSEED the sweep's tests ran"
        " under (its report's `hashSeed`); guardcheck's `no-coverage` counts as not caught."
        " Sample: seeded random mutants plus not-caught ones (capped). **gc error**: guardcheck"
        " said `error` (allowed where it cannot make the run equal, never counted as agreement).",
        "- **mutmut agreement**: guardcheck's class vs mutmut 3.8.1's on every mutant paired by"
        " (file, function, mutated AST); wall times are whole commands, one round each.",
        "",
        "## Disagreements with the hand-applied mutant",
        disagreement_list(rows),
        "",
        "## guardcheck vs mutmut, mutants where the classes differ",
        "",
        mutmut_list(rows),
        "",
    ]
    if NOTES.exists():
        text += ["", NOTES.read_text()]
    # A work folder missing some libraries (a fresh one, used with --only) would drop
    # their rows from the committed table: its report stays in the work folder.
    target = WORKS[0] / "corpus.md" if missing else RESULTS
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("\n".join(text))
    print(f"wrote {target}")
    if missing:
        print(
            f"{RESULTS} left as it is: this work folder has no {', '.join(missing)}; "
            "merge the rows by hand, or run those libraries here too"
        )


# --------------------------------------------------------------------------- main


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    p.add_argument("--only", help="comma list of library names (default: all)")
    p.add_argument("--sample", type=int, default=30, help="random mutants per library (30)")
    p.add_argument("--survivors", type=int, default=50, help="cap on not-caught mutants (50)")
    p.add_argument("--seed", type=int, default=22)
    p.add_argument("--jobs", "-j", type=int, default=2)
    p.add_argument("--quick", action="store_true", help="--sample 10 --survivors 10, no mutmut")
    p.add_argument("--force", action="store_true", help="redo every step")
    p.add_argument("--redo", default="", help=f"comma list of steps to redo: {','.join(STEPS)}")
    p.add_argument("--skip", default="", help="comma list of steps not to run")
    p.add_argument("--timeout", type=float, default=3600.0, help="per sweep / mutmut run")
    p.add_argument(
        "--all-fresh",
        action="store_true",
        help="the oracle also takes every mutant the sweep did not fork from the host",
    )
    p.add_argument("--work", type=Path, default=WORKS[0], help=f"work folder ({WORKS[0]})")
    args = p.parse_args(argv)
    if args.quick:
        args.sample, args.survivors = min(args.sample, 10), min(args.survivors, 10)
        args.skip = ",".join(filter(None, [args.skip, "mutmut"]))
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    WORKS[0] = args.work.resolve()
    libs = load_libraries()
    if args.only:
        wanted = set(args.only.split(","))
        if unknown := wanted - {lib.name for lib in libs}:
            raise SystemExit(
                f"unknown library {sorted(unknown)}; fix: one of {[lib.name for lib in libs]}"
            )
        libs = [lib for lib in libs if lib.name in wanted]
    redo, skip = set(args.redo.split(",")) - {""}, set(args.skip.split(",")) - {""}
    failures: list[str] = []
    for step in STEPS:
        for lib in libs:
            path = lib.state(step)
            # The oracle always runs: it resumes from oracle.jsonl and adds the mutants a
            # newer sweep's verdicts bring into the sample.
            stale = args.force or step in redo or step == "oracle"
            if step in skip or (path.exists() and not stale):
                continue
            if step != "setup" and not lib.state("setup").exists():
                continue
            print(f"== {lib.name}: {step}", flush=True)
            started = time.perf_counter()
            try:
                result = run_step(step, lib, args)
            except SystemExit as exc:  # one library's failure does not stop the others
                print(f"   {step} FAILED: {exc}", flush=True)
                failures.append(f"{lib.name}: {step}")
                continue
            result["step_s"] = round(time.perf_counter() - started, 1)
            save(path, result)
            brief = {k: v for k, v in result.items() if k in ("exit", "wall_s", "statuses")}
            print(f"   {step} done in {result['step_s']} s {brief}", flush=True)
    report(load_libraries(), sys.argv[1:] if argv is None else argv)
    if failures:
        print(f"failed steps (re-run to retry): {', '.join(failures)}")
    return 1 if failures else 0


def run_step(step: str, lib: Library, args: argparse.Namespace) -> dict[str, Any]:
    if step == "setup":
        return setup(lib)
    if step == "plain":
        return plain(lib)
    if step == "sweep":
        return sweep(lib, args.jobs, args.timeout)
    if step == "mutmut":
        if lib.sweep_only:
            return {"skipped": "sweep_only: mutmut cannot mutate the same subset"}
        return mutmut(lib, args.jobs, args.timeout)
    return oracle(lib, args)


if __name__ == "__main__":
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main())
