"""Check 6: every function the change touched, run base-vs-today on the same inputs.

`changed.py` finds the functions whose body or signature changed (or that
live on under an alias, a re-export or a moves-file name); a worker process
(`equivchild`) compares each one with `equiv` within a budget of inputs. A
disagreement fails the check with the shrunk input and both outcomes; a
function it could not generate inputs for is listed as not compared, with why.
A worker that stops answering (a function that loops on some input) loses only
that function: the rest go to a new worker.
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from guardcheck.refactor.changed import Pair, changed_pairs, literal_calls, read_modules
from guardcheck.refactor.findings import CheckResult, Finding, Outcome
from guardcheck.refactor.layout import source_paths, test_paths
from guardcheck.refactor.trees import Trees

KEY = "equiv"
TITLE = "Differential check of changed functions"
# The worker hangs when it said nothing while using this much CPU (a call stuck in C, a
# loop), or for this long at all (a call that waits). CPU, not wall time: on a loaded
# machine a healthy worker can go quiet for many seconds. It beats once a second while
# calls return, so this is one call's CPU: a fuzzed call needing 3 s is as good as hung,
# and each hang (`3 ** huge`, common) burns this much before the retry with small ints.
SILENCE_CPU_SECONDS = 3.0
SILENCE_WALL_SECONDS = 300.0
INT_BOUND = 10_000  # ints of a function's second try, after a call hung


@dataclass(frozen=True)
class Plan:
    pairs: list[Pair]
    not_compared: list[str]  # "relay.x:f (why)"


def plan(trees: Trees) -> Plan:
    then = read_modules(trees.then.root, source_paths(trees.then))
    today = read_modules(trees.today.root, source_paths(trees.today))
    moves = [(m.old, m.new) for m in trees.moves if m.new]
    pairs, _gone = changed_pairs(then, today, moves)
    compared, skipped = [], []
    for pair in pairs:
        if pair.old.is_async:
            skipped.append(f"{pair.old.target} (async: equiv calls plain functions)")
        else:
            compared.append(pair)
    return Plan(compared, skipped)


def _job(trees: Trees, pairs: list[Pair], examples: int) -> dict[str, Any]:
    calls = literal_calls(
        [
            (trees.then.root, test_paths(trees.then)),
            (trees.today.root, test_paths(trees.today)),
        ]
    )
    packages = {s.rstrip("/").split("/")[-1].removesuffix(".py") for s in source_paths(trees.today)}
    return {
        "root": str(trees.today.root),
        "sources": list(trees.today.source),
        "base": trees.base.sha,
        "examples": examples,
        "packages": sorted(packages),
        "functions": [
            {
                "key": index,
                "name": pair.old.name,
                "old": f"{pair.old.module}:{pair.old.qualname}",
                "old_qualname": pair.old.qualname,
                "new": pair.new_target,
                "new_qualname": pair.new_qualname,
                "calls": [
                    {"args": list(c.args), "kwargs": [list(kv) for kv in c.kwargs]}
                    for c in sorted(calls.get(pair.old.name, ()), key=repr)
                ],
            }
            for index, pair in enumerate(pairs)
        ],
    }


def _worker(job: dict[str, Any], cwd: Path) -> subprocess.Popen[str]:
    env = {
        **os.environ,
        "PYTHONDONTWRITEBYTECODE": "1",
        "HYPOTHESIS_STORAGE_DIRECTORY": str(cwd / "hypothesis"),
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "guardcheck.refactor.equivchild"],
        cwd=cwd,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdin is not None
    process.stdin.write(json.dumps(job))
    process.stdin.close()
    return process


def cpu_seconds(pid: int) -> float:
    """User and system CPU a live process has used (Linux /proc); 0 when it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class _Silence:
    cpu: float  # CPU seconds the worker may use without a word
    wall: float
    since_cpu: float = 0.0
    since_wall: float = field(default_factory=time.monotonic)

    def heard(self, pid: int) -> None:
        self.since_cpu, self.since_wall = cpu_seconds(pid), time.monotonic()

    def too_long(self, pid: int) -> bool:
        return (
            cpu_seconds(pid) - self.since_cpu >= self.cpu
            or time.monotonic() - self.since_wall >= self.wall
        )


def _read_answers(
    process: subprocess.Popen[str], silence: float
) -> tuple[dict[int, dict[str, Any]], int | None]:
    """Every answer the worker gave, and the key it was working on when it went quiet."""
    answers: dict[int, dict[str, Any]] = {}
    current: int | None = None
    quiet = _Silence(silence, SILENCE_WALL_SECONDS)
    assert process.stdout is not None
    fd, pending = process.stdout.fileno(), b""
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while True:
            if not selector.select(1.0):
                if quiet.too_long(process.pid):
                    process.kill()
                    process.wait()
                    return answers, current
                continue
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                process.wait()
                return answers, current
            quiet.heard(process.pid)
            *lines, pending = (pending + chunk).split(b"\n")
            for line in lines:
                message = json.loads(line)
                if "start" in message:
                    current = message["start"]
                elif "key" in message:
                    answers[message["key"]] = message
                    current = None


def run_worker(job: dict[str, Any], cwd: Path, silence: float) -> dict[int, dict[str, Any]]:
    """Answers for every function of `job`; one that hangs or kills the worker is noted."""
    answers: dict[int, dict[str, Any]] = {}
    pending = list(job["functions"])
    while pending:
        got, stuck = _read_answers(_worker({**job, "functions": pending}, cwd), silence)
        answers.update(got)
        rest = [f for f in pending if f["key"] not in answers]
        if stuck is not None:
            item = next(f for f in rest if f["key"] == stuck)
            if item.get("bound") is None:
                # Most hangs are a huge int (`3 ** n`, `range(n)`): once more, ints bounded.
                rest = [{**f, "bound": INT_BOUND} if f is item else f for f in rest]
            else:
                answers[stuck] = {
                    "key": stuck,
                    "status": "not compared",
                    "why": f"a call did not return within {silence:.0f} CPU s, even with ints "
                    f"within ±{INT_BOUND:,} (it may loop on some generated input)",
                }
        elif rest:
            answers[rest[0]["key"]] = {
                "key": rest[0]["key"],
                "status": "not compared",
                "why": "the worker ended while comparing it (did the code exit the process?)",
            }
        pending = [f for f in rest if f["key"] not in answers]
    return answers


def _call(name: str, found: dict[str, Any]) -> str:
    """`f(x=1)`, or "called without `sep`: f(x=1)" when a defaulted argument was left out."""
    call = f"{name}({found['call']})"
    omitted = found.get("omitted") or []
    return f"called without {', '.join(f'`{n}`' for n in omitted)}: {call}" if omitted else call


def _finding(pair: Pair, answer: dict[str, Any]) -> Finding:
    first, *_ = answer["disagreements"]
    name = pair.old.qualname
    details = []
    for found in answer["disagreements"]:
        details += [
            _call(name, found),
            f"  base  {found['old']}",
            f"  today {found['new']}",
        ]
    new = pair.new
    path, line = (new.path, new.line) if new is not None else (pair.old.path, pair.old.line)
    moved = "" if pair.new_target == pair.old.target else f" (now {pair.new_target})"
    return Finding(
        f"{pair.old.target}{moved} behaves differently from the base: "
        f"{_call(name, first)} {first['old']} at the base, {first['new']} today",
        path=path,
        line=line,
        enclosing=new.qualname if new is not None else pair.new_qualname,
        details=tuple(details),
    )


def check_differential(trees: Trees) -> CheckResult:
    if trees.request.no_equiv:
        return CheckResult(KEY, TITLE, Outcome.SKIPPED, "skipped: --no-equiv")
    planned = plan(trees)
    if not planned.pairs and not planned.not_compared:
        return CheckResult(
            KEY, TITLE, Outcome.PASSED, "no function's body or signature changed since the base"
        )
    examples = trees.request.equiv_examples
    cwd = trees.scratch / "equiv"
    cwd.mkdir(parents=True, exist_ok=True)
    answers = (
        run_worker(_job(trees, planned.pairs, examples), cwd, SILENCE_CPU_SECONDS)
        if planned.pairs
        else {}
    )
    findings: list[Finding] = []
    equal: list[str] = []
    not_compared = list(planned.not_compared)
    for index, pair in enumerate(planned.pairs):
        answer = answers[index]
        if answer["status"] == "differ":
            findings.append(_finding(pair, answer))
        elif answer["status"] == "equal":
            equal.append(f"{pair.old.target} ({answer['inputs']:,} inputs, {answer['how']})")
        else:
            not_compared.append(f"{pair.old.target} ({answer['why']})")
    notes = []
    if equal:
        notes.append("no disagreement: " + ", ".join(equal))
    if not_compared:
        notes.append("not compared: " + ", ".join(not_compared))
    total = len(planned.pairs) + len(planned.not_compared)
    summary = (
        f"{len(findings)} of {total} changed function(s) behave differently from the base"
        if findings
        else f"{len(equal)} of {total} changed function(s) compared, no disagreement "
        f"(up to {examples:,} inputs each)"
    )
    outcome = Outcome.FAILED if findings else Outcome.PASSED
    return CheckResult(KEY, TITLE, outcome, summary, findings, notes)
