"""Side-by-side benchmark: `guardcheck run` vs `mutmut run` (3.8.1) on the bundled target_app.

Run from anywhere with the project's venv:

    .venv/bin/python bench/run_bench.py [--rounds N] [--jobs N] [--json out.json]

One invocation times both tools, interleaved (mutmut, guardcheck, mutmut, guardcheck, ...)
so machine load hits both alike, and prints medians side by side. The two tools run
*different mutant sets* (mutmut generates its own operators; guardcheck runs the bundled
named catalogue), so compare throughput (mutants/s) and per-mutant cost, not wall time.

Everything this script creates lives under bench/work/ (git-ignored):
- mutmut-<round>/: a fresh scratch copy of the source and tests plus a minimal pyproject
  with the [tool.mutmut] config; mutmut creates its mutants/ folder inside it. It is
  deleted and recreated every round, so every round does the full work (no cache).
- gc-<round>.json: guardcheck's --json report (guardcheck itself runs in the repo root
  and writes only its own git-ignored .guardcheck/ folder).
- logs/: each run's combined stdout/stderr and the top process's peak RSS.

See bench/README.md for what each number means.
"""

from __future__ import annotations

import argparse
import compileall
import contextlib
import datetime as dt
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
import tomllib
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
WORK = BENCH / "work"
LAUNCHER = BENCH / "rss_launcher.py"
VENV_BIN = Path(sys.executable).parent
MUTMUT = "mutmut"
GUARDCHECK = "guardcheck"
TOOLS = (MUTMUT, GUARDCHECK)  # the order within a round: A B A B ...

# mutmut 3.8.1 exit codes per mutant, as in mutmut.stats.status_by_exit_code (imported
# from the installed mutmut when possible, so a different version maps its own codes).
_MUTMUT_STATUS_FALLBACK: dict[int | None, str] = {
    1: "killed",
    3: "killed",
    0: "survived",
    5: "no tests",
    2: "check was interrupted by user",
    None: "not checked",
    33: "no tests",
    34: "skipped",
    35: "suspicious",
    36: "timeout",
    37: "caught by type check",
    -24: "timeout",
    24: "timeout",
    152: "timeout",
    255: "timeout",
    -11: "segfault",
    -9: "segfault",
}
# Mutants mutmut decides without running a test (never handed to a worker).
_MUTMUT_NOT_EXECUTED = {"no tests", "skipped", "caught by type check", "not checked"}


class BenchError(Exception):
    """A setup problem that stops the benchmark with a message instead of a traceback."""


# --------------------------------------------------------------------------- records


@dataclass
class RunResult:
    """One timed run of one tool."""

    tool: str
    round: int  # 1-based; warm-up rounds are negative and not reported
    exit_code: int
    wall_s: float
    ok: bool
    mutants: int | None = None  # mutants the run decided, whatever the verdict
    executed: int | None = None  # mutants whose tests actually ran
    killed: int | None = None  # killed or timed out ("caught")
    survived: int | None = None
    not_covered: int | None = None  # mutmut "no tests" / guardcheck NoCoverage
    timeouts: int | None = None  # included in killed
    timeout_worker_s: float | None = None  # worker time spent on mutants that timed out
    median_mutant_ms: float | None = None  # median per-mutant duration as the tool records it
    # guardcheck only: median of (mutant duration - its tests' own durations) on the fork
    # path, i.e. fork + activation + reporting; mutmut records no per-test times.
    median_overhead_ms: float | None = None
    other: dict[str, int] = field(default_factory=dict)
    phase_s: float | None = None  # the tool's own mutant-phase wall time, when it reports one
    phase_source: str = ""
    parent_rss_kib: int | None = None
    parent_rss_method: str = ""
    tree_rss_kib: int | None = None  # the largest single process of the tree (wait4 rusage)
    log: str = ""
    note: str = ""

    @property
    def fixed_s(self) -> float | None:
        """Startup, generation, baseline/stats and shutdown: wall minus the mutant phase."""
        return None if self.phase_s is None else self.wall_s - self.phase_s

    @property
    def per_mutant_ms(self) -> float | None:
        """Mutant-phase wall per executed mutant (tests included, workers in parallel)."""
        if self.phase_s is None or not self.executed:
            return None
        return self.phase_s / self.executed * 1000.0


@dataclass
class Summary:
    tool: str
    runs: int
    mutants: int | None
    executed: int | None
    killed: int | None
    survived: int | None
    not_covered: int | None
    timeouts: int | None
    median_timeout_worker_s: float | None
    median_mutant_ms: float | None
    median_overhead_ms: float | None
    median_wall_s: float
    mutants_per_s: float | None  # mutants / median wall: all-in throughput
    executed_per_s: float | None  # executed mutants / median wall (uncovered ones are free)
    median_fixed_s: float | None
    median_per_mutant_ms: float | None  # mutant phase only
    per_mutant_basis: str
    median_parent_rss_mib: float | None
    median_tree_rss_mib: float | None
    walls_s: list[float]


@dataclass
class Timed:
    exit_code: int
    wall_s: float
    parent_rss_kib: int | None
    parent_rss_method: str
    tree_rss_kib: int | None


# --------------------------------------------------------------------------- process timing


def _read_vmhwm_kib(pid: int) -> int | None:
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    match = re.search(r"^VmHWM:\s+(\d+)\s+kB", text, re.MULTILINE)
    return int(match.group(1)) if match else None  # absent once the process is a zombie


def timed_run(
    argv: Sequence[str],
    *,
    cwd: Path,
    log: Path,
    rss_file: Path,
    timeout_s: float,
    env: dict[str, str] | None = None,
    python: str | None = None,
) -> Timed:
    """Run one tool under rss_launcher.py; wall time, peak RSS of its top process and tree.

    Wall time is perf_counter around spawn..reap of the top process. Its peak RSS comes
    from the launcher (getrusage(RUSAGE_SELF) at exit, this process only); a /proc VmHWM
    poll every 50 ms is the fallback if the tool skipped exit hooks. wait4's rusage gives
    the largest single process of the whole tree (what `/usr/bin/time -v` would report).
    `python` runs the launcher (default: this interpreter); another venv's python finds
    that venv's console scripts (bench/corpus runs each library's own venv).
    """
    rss_file.unlink(missing_ok=True)
    cmd = [python or sys.executable, str(LAUNCHER), str(rss_file), *argv]
    polled: list[int] = []
    done = threading.Event()
    with log.open("wb") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(
            cmd,
            cwd=cwd,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,  # its own process group, so a timeout kills the tree
            env=None if env is None else {**os.environ, **env},
        )

        def poll() -> None:
            while not done.wait(0.05):
                kib = _read_vmhwm_kib(proc.pid)
                if kib is not None:
                    polled.append(kib)

        def kill_tree() -> None:
            with contextlib.suppress(OSError):
                os.killpg(proc.pid, signal.SIGKILL)

        poller = threading.Thread(target=poll, daemon=True)
        poller.start()
        killer = threading.Timer(timeout_s, kill_tree)
        killer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        except BaseException:
            kill_tree()
            proc.wait()
            raise
        finally:
            wall = time.perf_counter() - start
            killer.cancel()
            done.set()
            poller.join()
        proc.returncode = os.waitstatus_to_exitcode(status)
        # Children the tool left behind would distort the next round: end them.
        with contextlib.suppress(OSError):
            os.killpg(proc.pid, signal.SIGKILL)

    parent: int | None = None
    method = ""
    if rss_file.exists() and rss_file.read_text().strip():
        parent, method = int(rss_file.read_text()), "getrusage(RUSAGE_SELF) at exit"
    elif polled:
        parent, method = max(polled), "/proc VmHWM polled every 50 ms (lower bound)"
    return Timed(proc.returncode, wall, parent, method, usage.ru_maxrss)


# --------------------------------------------------------------------------- project layout


@dataclass(frozen=True)
class Project:
    root: Path
    sources: tuple[Path, ...]  # relative to root
    tests: tuple[Path, ...]
    pytest_options: dict[str, Any]


def load_project(root: Path, sources: Sequence[str], tests: Sequence[str]) -> Project:
    pyproject = root / "pyproject.toml"
    data = tomllib.loads(pyproject.read_text()) if pyproject.is_file() else {}
    tool = data.get("tool", {})
    gc = tool.get("guardcheck", {})
    src = tuple(Path(s) for s in (sources or gc.get("source", ["target_app"])))
    tst = tuple(Path(t) for t in (tests or gc.get("tests", ["tests/target_app"])))
    for p in (*src, *tst):
        if p.is_absolute() or ".." in p.parts:
            raise BenchError(f"{p}: give paths relative to the project root")
        if not (root / p).is_dir() or not any((root / p).rglob("*.py")):
            raise BenchError(f"{root / p}: missing or holds no Python files yet")
    options = dict(tool.get("pytest", {}).get("ini_options", {}))
    options.pop("testpaths", None)  # mutmut names the test folders itself
    return Project(root, src, tst, options)


def _ignore_junk(_dir: str, names: list[str]) -> set[str]:
    return {n for n in names if n in {"__pycache__", ".pytest_cache", "mutants"}}


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise BenchError(f"cannot copy pytest option value {value!r} into the scratch pyproject")


def mutmut_pyproject(project: Project) -> str:
    lines = [
        "# Written by bench/run_bench.py: the mutmut side of the benchmark.",
        "[tool.mutmut]",
        f"source_paths = {_toml_value([p.as_posix() for p in project.sources])}",
        "pytest_add_cli_args_test_selection = "
        + _toml_value([p.as_posix() for p in project.tests]),
        "",
        "# The project's own pytest settings (testpaths left out), so both tools run the",
        "# tests under the same configuration.",
        "[tool.pytest.ini_options]",
        *(f"{k} = {_toml_value(v)}" for k, v in project.pytest_options.items()),
        "",
    ]
    return "\n".join(lines)


def prepare_mutmut_scratch(project: Project, scratch: Path) -> None:
    """A fresh copy of the sources, the tests (with the `__init__.py` of the folders
    above them) and a minimal pyproject; mutmut later adds mutants/ inside it.

    The conftest.py files of the folders above are not copied: tests/conftest.py is
    guardcheck's own (its fixture-project helpers import tests/support/, which is not
    copied, so mutmut's collection failed), and target_app's tests need only
    tests/target_app/conftest.py, which is inside the copied folder."""
    if scratch.exists():
        shutil.rmtree(scratch)
    scratch.mkdir(parents=True)
    for rel in (*project.sources, *project.tests):
        shutil.copytree(project.root / rel, scratch / rel, ignore=_ignore_junk)
    for rel in project.tests:
        for parent in rel.parents:
            if parent == Path("."):
                continue
            src = project.root / parent / "__init__.py"
            if src.is_file() and not (scratch / parent / "__init__.py").exists():
                shutil.copy2(src, scratch / parent / "__init__.py")
    (scratch / "pyproject.toml").write_text(mutmut_pyproject(project))


# --------------------------------------------------------------------------- the two tools


def _mutmut_status_map() -> Callable[[int | None], str]:
    try:
        from mutmut.stats import status_by_exit_code  # the installed version's own mapping

        return lambda code: str(status_by_exit_code[code])
    except Exception:  # pragma: no cover - only when mutmut's internals moved
        return lambda code: _MUTMUT_STATUS_FALLBACK.get(code, "suspicious")


def _iter_meta(mutants_dir: Path) -> Iterator[dict[str, Any]]:
    for meta in sorted(mutants_dir.rglob("*.py.meta")):
        yield json.loads(meta.read_text())


def round_tag(rnd: int) -> str:
    """'w1' for warm-up rounds (negative numbers), '1', '2', ... for timed ones."""
    return f"w{-rnd}" if rnd < 0 else str(rnd)


def timed_tool_run(
    tool: str,
    rnd: int,
    command: list[str],
    *,
    cwd: Path,
    timeout_s: float,
    env: dict[str, str] | None = None,
) -> RunResult:
    """Run one tool's command with its log and RSS file under WORK/logs; not yet judged ok."""
    name = f"{tool}-{round_tag(rnd)}"
    log = WORK / "logs" / f"{name}.log"
    rss_file = WORK / "logs" / f"{name}.rss"
    timed = timed_run(command, cwd=cwd, log=log, rss_file=rss_file, timeout_s=timeout_s, env=env)
    return RunResult(
        tool=tool,
        round=rnd,
        exit_code=timed.exit_code,
        wall_s=timed.wall_s,
        ok=False,
        parent_rss_kib=timed.parent_rss_kib,
        parent_rss_method=timed.parent_rss_method,
        tree_rss_kib=timed.tree_rss_kib,
        log=str(log.relative_to(ROOT)),
    )


def run_mutmut(project: Project, rnd: int, jobs: int, timeout_s: float) -> RunResult:
    tag = round_tag(rnd)
    scratch = WORK / f"mutmut-{tag}"
    prepare_mutmut_scratch(project, scratch)
    result = timed_tool_run(
        MUTMUT,
        rnd,
        [str(VENV_BIN / "mutmut"), "run", "--max-children", str(jobs)],
        cwd=scratch,
        timeout_s=timeout_s,
    )
    status_of = _mutmut_status_map()
    counts: Counter[str] = Counter()
    durations: list[float] = []  # fork..reap wall of each executed mutant, in mutmut's parent
    timeout_s = 0.0
    for meta in _iter_meta(scratch / "mutants"):
        for key, code in meta["exit_code_by_key"].items():
            status = status_of(code)
            counts[status] += 1
            took = meta.get("durations_by_key", {}).get(key)
            if status in _MUTMUT_NOT_EXECUTED or took is None:
                continue
            durations.append(float(took))
            if status == "timeout":
                timeout_s += float(took)
    total = sum(counts.values())
    result.mutants = total
    result.killed = counts["killed"] + counts["timeout"]
    result.survived = counts["survived"]
    result.not_covered = counts["no tests"]
    result.timeouts = counts["timeout"]
    result.timeout_worker_s = timeout_s
    result.median_mutant_ms = statistics.median(durations) * 1000.0 if durations else None
    result.executed = total - sum(counts[s] for s in _MUTMUT_NOT_EXECUTED)
    result.other = {
        k: v for k, v in counts.items() if k not in {"killed", "timeout", "survived", "no tests"}
    }
    # mutmut prints "<tried>/<elapsed> mutations/second" over its mutant phase only (after
    # generation, stats, the clean run and the forced-fail run); tried = executed here.
    text = (ROOT / result.log).read_text(errors="replace")
    rate = re.findall(r"([\d.]+) mutations/second", text)
    if rate and float(rate[-1]) > 0 and result.executed:
        result.phase_s = result.executed / float(rate[-1])
        result.phase_source = "mutmut's printed mutations/second"
    if result.exit_code != 0:
        result.note = f"mutmut exited {result.exit_code}; see {result.log}"
    elif not total:
        result.note = f"mutmut generated no mutants; see {result.log}"
    elif not result.killed:
        result.note = "mutmut killed nothing: are the tests really running against mutants/?"
    else:
        result.ok = True
    return result


def guardcheck_run_available() -> tuple[bool, str]:
    exe = VENV_BIN / "guardcheck"
    if not exe.exists():
        return False, f"{exe} not installed"
    proc = subprocess.run(
        [str(exe), "run", "--help"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    if proc.returncode != 0:
        return False, "guardcheck run not available yet"
    return True, ""


_GC_CAUGHT = {"Killed", "Timeout"}
_GC_NOT_EXECUTED = {"NoCoverage", "Ignored", "Pending", "CompileError"}


def _fork_overheads_ms(mutants: list[dict[str, Any]]) -> list[float]:
    """Per fork-path mutant: its duration minus its tests' own (both ms in the report)."""
    overheads = []
    for mutant in mutants:
        own = mutant.get("guardcheck", {})
        tests = own.get("tests", [])
        if own.get("executionPath") != "fork" or not tests or "duration" not in mutant:
            continue
        overheads.append(float(mutant["duration"]) - sum(float(t["duration"]) for t in tests))
    return overheads


def _guardcheck_mutants(report: dict[str, Any]) -> list[dict[str, Any]]:
    """One entry per mutant: guardcheck lists a multi-file mutant under every file it
    changes, with `guardcheck.part` 1, 2, ...; only part 1 is counted."""
    return [
        m
        for f in report.get("files", {}).values()
        for m in f.get("mutants", [])
        if (m.get("guardcheck") or {}).get("part", 1) == 1
    ]


def _guardcheck_phase_s(report: dict[str, Any]) -> tuple[float, str] | None:
    """The schema's own `performance` block (milliseconds): `mutation` is guardcheck's wall
    minus its baseline, so it includes catalogue validation, collection and planning."""
    perf = report.get("performance")
    if isinstance(perf, dict) and isinstance(perf.get("mutation"), int | float):
        setup = perf.get("setup") if isinstance(perf.get("setup"), int | float) else 0
        return float(perf["mutation"]) / 1000.0, (
            "report performance.mutation"
            + ("" if setup else " (setup not timed separately: included)")
        )
    return None


def run_guardcheck(rnd: int, jobs: int, timeout_s: float) -> RunResult:
    report_path = WORK / f"gc-{round_tag(rnd)}.json"
    report_path.unlink(missing_ok=True)
    result = timed_tool_run(
        GUARDCHECK,
        rnd,
        # --no-cache: every round runs the catalogue; with the result cache (issue 13) the
        # rounds after the warm-up would only time a cached re-run.
        [
            str(VENV_BIN / "guardcheck"),
            "run",
            "--no-cache",
            "--json",
            str(report_path),
            "-j",
            str(jobs),
        ],
        cwd=ROOT,
        timeout_s=timeout_s,
    )
    if result.exit_code not in (0, 1):  # 2 catalogue/usage, 3 baseline, 130 interrupted
        result.note = f"guardcheck run exited {result.exit_code}; see {result.log}"
        return result
    if not report_path.exists():
        result.note = f"guardcheck run wrote no JSON report; see {result.log}"
        return result
    report = json.loads(report_path.read_text())
    mutants = _guardcheck_mutants(report)
    statuses = Counter(str(m.get("status")) for m in mutants)
    # The schema's per-mutant `duration` is in milliseconds.
    durations = [
        float(m["duration"])
        for m in mutants
        if isinstance(m.get("duration"), int | float) and m.get("status") not in _GC_NOT_EXECUTED
    ]
    timed_out = [
        float(m["duration"]) / 1000.0
        for m in mutants
        if m.get("status") == "Timeout" and isinstance(m.get("duration"), int | float)
    ]
    total = sum(statuses.values())
    result.mutants = total
    result.killed = sum(statuses[s] for s in _GC_CAUGHT)
    result.survived = statuses["Survived"]
    result.not_covered = statuses["NoCoverage"]
    result.timeouts = statuses["Timeout"]
    result.timeout_worker_s = sum(timed_out) if timed_out else None
    result.median_mutant_ms = statistics.median(durations) if durations else None
    overheads = _fork_overheads_ms(mutants)
    result.median_overhead_ms = statistics.median(overheads) if overheads else None
    result.executed = total - sum(statuses[s] for s in _GC_NOT_EXECUTED)
    result.other = {
        k: v for k, v in statuses.items() if k not in {*_GC_CAUGHT, "Survived", "NoCoverage"}
    }
    phase = _guardcheck_phase_s(report)
    if phase:
        result.phase_s, result.phase_source = phase
    if not total:
        result.note = f"guardcheck's report lists no mutants; see {report_path}"
    else:
        result.ok = True
    return result


# --------------------------------------------------------------------------- summary


def _median(values: Sequence[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None


def _common(values: Sequence[int | None]) -> int | None:
    """The count every run agreed on, else the median (and the table shows it as such)."""
    present = [v for v in values if v is not None]
    return int(statistics.median(present)) if present else None


def summarise(tool: str, runs: Sequence[RunResult]) -> Summary | None:
    good = [r for r in runs if r.ok]
    if not good:
        return None
    wall = statistics.median(r.wall_s for r in good)
    mutants = _common([r.mutants for r in good])
    executed = _common([r.executed for r in good])
    per_mutant = _median([r.per_mutant_ms for r in good])
    basis = "mutant phase / executed mutants"
    if per_mutant is None:  # the tool reported no phase time: all-in cost, and say so
        per_mutant = _median([r.wall_s / r.executed * 1000.0 if r.executed else None for r in good])
        basis = "whole wall / executed mutants (includes startup and baseline)"
    parent = _median([r.parent_rss_kib for r in good])
    tree = _median([r.tree_rss_kib for r in good])
    return Summary(
        tool=tool,
        runs=len(good),
        mutants=mutants,
        executed=executed,
        killed=_common([r.killed for r in good]),
        survived=_common([r.survived for r in good]),
        not_covered=_common([r.not_covered for r in good]),
        timeouts=_common([r.timeouts for r in good]),
        median_timeout_worker_s=_median([r.timeout_worker_s for r in good]),
        median_mutant_ms=_median([r.median_mutant_ms for r in good]),
        median_overhead_ms=_median([r.median_overhead_ms for r in good]),
        median_wall_s=wall,
        mutants_per_s=mutants / wall if mutants else None,
        executed_per_s=executed / wall if executed else None,
        median_fixed_s=_median([r.fixed_s for r in good]),
        median_per_mutant_ms=per_mutant,
        per_mutant_basis=basis,
        median_parent_rss_mib=None if parent is None else parent / 1024.0,
        median_tree_rss_mib=None if tree is None else tree / 1024.0,
        walls_s=[round(r.wall_s, 3) for r in good],
    )


def _fmt(value: float | int | None, spec: str) -> str:
    return "n/a" if value is None else format(value, spec)


def render_table(summaries: Sequence[Summary], unavailable: dict[str, str]) -> str:
    header = (
        "tool",
        "mutants",
        "tested",
        "killed",
        "timeouts",
        "median wall s",
        "mutants/s",
        "tested/s",
        "fixed s",
        "per-mutant ms",
        "mutant median ms",
        "overhead ms",
        "parent RSS MiB",
        "tree max RSS MiB",
        "runs",
    )
    rows = [header]
    for s in summaries:
        rows.append(
            (
                s.tool,
                _fmt(s.mutants, "d"),
                _fmt(s.executed, "d"),
                _fmt(s.killed, "d"),
                _fmt(s.timeouts, "d"),
                _fmt(s.median_wall_s, ".2f"),
                _fmt(s.mutants_per_s, ".1f"),
                _fmt(s.executed_per_s, ".1f"),
                _fmt(s.median_fixed_s, ".2f"),
                _fmt(s.median_per_mutant_ms, ".1f") + ("" if s.median_fixed_s is not None else "*"),
                _fmt(s.median_mutant_ms, ".1f"),
                _fmt(s.median_overhead_ms, ".1f"),
                _fmt(s.median_parent_rss_mib, ".1f"),
                _fmt(s.median_tree_rss_mib, ".1f"),
                str(s.runs),
            )
        )
    for tool in unavailable:
        rows.append((tool, *("-" for _ in header[1:-1]), "0"))
    lines = [format_rows(rows)]
    lines.extend(f"{tool}: {why}" for tool, why in unavailable.items())
    return "\n".join(lines)


def format_rows(rows: Sequence[Sequence[str]]) -> str:
    """A plain-text table: the first row is the header, the first column left-aligned."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for n, row in enumerate(rows):
        cells = [
            c.ljust(w) if i == 0 else c.rjust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(cells).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def ratios(summaries: Sequence[Summary]) -> dict[str, float]:
    by_tool = {s.tool: s for s in summaries}
    gc, mm = by_tool.get(GUARDCHECK), by_tool.get(MUTMUT)
    out: dict[str, float] = {}
    if not gc or not mm:
        return out
    if gc.mutants_per_s and mm.mutants_per_s:
        out["throughput_guardcheck_over_mutmut"] = gc.mutants_per_s / mm.mutants_per_s
    if gc.executed_per_s and mm.executed_per_s:
        out["tested_throughput_guardcheck_over_mutmut"] = gc.executed_per_s / mm.executed_per_s
    if gc.median_per_mutant_ms and mm.median_per_mutant_ms:
        out["per_mutant_cost_mutmut_over_guardcheck"] = (
            mm.median_per_mutant_ms / gc.median_per_mutant_ms
        )
    return out


def compile_guardcheck() -> bool:
    """Write guardcheck's own .pyc files, as `pip install guardcheck` does at install.

    mutmut, from a wheel, has them; this checkout is an editable install, and with
    PYTHONDONTWRITEBYTECODE set (it is on our bench machines) every timed guardcheck run
    would otherwise compile its modules from source: about 0.1 s a run.
    """
    return compileall.compile_dir(ROOT / "guardcheck", quiet=1, workers=1)


def environment(jobs: int) -> dict[str, Any]:
    def ver(dist: str) -> str:
        try:
            return version(dist)
        except PackageNotFoundError:
            return "not installed"

    cpu = ""
    with contextlib.suppress(OSError, StopIteration):
        cpu = next(
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        )
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    dirty = subprocess.run(
        ["git", "status", "--porcelain", "--", "target_app", "tests/target_app", "mutations"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    ).stdout.strip()
    if dirty:
        commit += " + uncommitted target_app/tests/mutations changes"
    return {
        "date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "cores": os.cpu_count(),
        "usable_cores": len(os.sched_getaffinity(0)),
        "cpu": cpu,
        "jobs": jobs,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "mutmut": ver("mutmut"),
        "guardcheck": ver("guardcheck"),
        "pytest": ver("pytest"),
        "git_commit": commit,
        "loadavg_start": [round(x, 2) for x in os.getloadavg()],
    }


# --------------------------------------------------------------------------- main


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Time `guardcheck run` and `mutmut run` side by side on target_app."
    )
    parser.add_argument("--rounds", type=int, default=3, help="timed runs per tool (default 3)")
    parser.add_argument(
        "--jobs",
        type=int,
        default=os.cpu_count() or 2,
        help="workers for both tools: mutmut --max-children, guardcheck -j (default: CPUs)",
    )
    parser.add_argument("--json", type=Path, help="also write every run and the medians here")
    parser.add_argument(
        "--warmup",
        type=int,
        default=1,
        help="untimed rounds first (pyc files, page cache); default 1",
    )
    parser.add_argument(
        "--tools", default=",".join(TOOLS), help="comma list, default mutmut,guardcheck"
    )
    parser.add_argument(
        "--source",
        action="append",
        default=[],
        help="source folder for mutmut, relative to the root (default: [tool.guardcheck] source)",
    )
    parser.add_argument(
        "--tests",
        action="append",
        default=[],
        help="test folder for mutmut, relative to the root (default: [tool.guardcheck] tests)",
    )
    parser.add_argument(
        "--root",
        type=Path,
        default=ROOT,
        help="the project whose sources and tests mutmut copies (default: this repo)",
    )
    parser.add_argument(
        "--timeout", type=float, default=900.0, help="kill a single run after this many s"
    )
    args = parser.parse_args(argv)
    if args.rounds < 1 or args.jobs < 1 or args.warmup < 0:
        parser.error("--rounds and --jobs must be >= 1, --warmup >= 0")
    args.tools = [t.strip() for t in args.tools.split(",") if t.strip()]
    unknown = set(args.tools) - set(TOOLS)
    if unknown:
        parser.error(f"unknown tool(s): {', '.join(sorted(unknown))}")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    WORK.mkdir(exist_ok=True)
    (WORK / "logs").mkdir(exist_ok=True)
    env = environment(args.jobs)
    env["guardcheck_bytecode_compiled"] = compile_guardcheck()
    print(
        f"env: {env['date']}; {env['cores']} cores ({env['cpu'] or 'unknown cpu'}); "
        f"Python {env['python']}; mutmut {env['mutmut']}; guardcheck {env['guardcheck']}; "
        f"pytest {env['pytest']}; jobs {args.jobs}; commit {env['git_commit']}; "
        f"load {env['loadavg_start']}",
        flush=True,
    )

    unavailable: dict[str, str] = {}
    tools = list(args.tools)
    project: Project | None = None
    if MUTMUT in tools:
        try:
            project = load_project(args.root.resolve(), args.source, args.tests)
        except BenchError as exc:
            unavailable[MUTMUT] = str(exc)
            tools.remove(MUTMUT)
    if GUARDCHECK in tools:
        available, why = guardcheck_run_available()
        if not available:
            unavailable[GUARDCHECK] = why
            tools.remove(GUARDCHECK)
            print(f"guardcheck: {why}; timing mutmut only", flush=True)
    if project is not None and (args.source or args.tests or args.root.resolve() != ROOT):
        print(
            "note: mutmut runs on a custom --root/--source/--tests; guardcheck always runs "
            "on this repo's [tool.guardcheck] config",
            flush=True,
        )

    def one(tool: str, rnd: int) -> RunResult:
        if tool == MUTMUT:
            assert project is not None
            return run_mutmut(project, rnd, args.jobs, args.timeout)
        return run_guardcheck(rnd, args.jobs, args.timeout)

    results: list[RunResult] = []
    schedule = [-(w + 1) for w in range(args.warmup)] + list(range(1, args.rounds + 1))
    for rnd in schedule:
        for tool in tools:  # A B A B ...: both tools see the same stretch of machine load
            res = one(tool, rnd)
            rss = None if res.parent_rss_kib is None else res.parent_rss_kib / 1024
            label = f"warm-up {-rnd}" if rnd < 0 else f"round {rnd}"
            print(
                f"{label:>10} {tool:<10} {res.wall_s:7.2f} s  exit {res.exit_code}  "
                f"mutants {_fmt(res.mutants, 'd')}  killed {_fmt(res.killed, 'd')}  "
                f"phase {_fmt(res.phase_s, '.2f')} s  "
                f"parent RSS {_fmt(rss, '.1f')} MiB" + (f"  !! {res.note}" if res.note else ""),
                flush=True,
            )
            if rnd > 0:
                results.append(res)

    summaries = [s for s in (summarise(t, [r for r in results if r.tool == t]) for t in tools) if s]
    for tool in tools:
        if not any(s.tool == tool for s in summaries):
            unavailable[tool] = "every run failed (see the round lines above)"
    env["loadavg_end"] = [round(x, 2) for x in os.getloadavg()]
    print()
    print(render_table(summaries, unavailable))
    if any(s.median_fixed_s is None for s in summaries):
        print("* the tool reported no mutant-phase time: whole wall / executed mutants")
    for s in summaries:
        if s.timeouts and s.median_timeout_worker_s:
            print(
                f"{s.tool}: {s.timeouts} timed-out mutant(s) held a worker for "
                f"{s.median_timeout_worker_s:.1f} s per run (median); that is part of its wall, "
                "mutants/s and per-mutant ms; 'mutant median ms' is not skewed by it"
            )
    rat = ratios(summaries)
    labels = {
        "throughput_guardcheck_over_mutmut": "guardcheck's mutants/s over mutmut's",
        "tested_throughput_guardcheck_over_mutmut": "guardcheck's tested/s over mutmut's",
        "per_mutant_cost_mutmut_over_guardcheck": "mutmut's per-mutant ms over guardcheck's",
    }
    if rat:
        print("ratio: " + "; ".join(f"{labels[k]} = {v:.2f}x" for k, v in rat.items()))
    else:
        print("ratio: n/a (needs both tools)")
    print(
        "note: different mutant sets (mutmut's own operators vs guardcheck's named catalogue) "
        "until the sweep lands; compare mutants/s and per-mutant ms, not wall time."
    )
    print(f"load average at end: {env['loadavg_end']}")

    if args.json:
        payload = {
            "environment": env,
            "command": " ".join([Path(sys.executable).name, *sys.argv]),
            "unavailable": unavailable,
            "summaries": [asdict(s) for s in summaries],
            "ratios": rat,
            "runs": [
                {**asdict(r), "fixed_s": r.fixed_s, "per_mutant_ms": r.per_mutant_ms}
                for r in results
            ],
        }
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(payload, indent=2) + "\n")
        print(f"wrote {args.json}")
    return 0 if summaries else 1


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BenchError as exc:
        sys.exit(f"run_bench: {exc}")
