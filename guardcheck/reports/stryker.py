"""`--json`: the open mutation-testing-report-schema (Stryker's format and HTML viewer).

Mapping decisions (the schema permits extra properties on every object, so guardcheck's
own data rides along under a `guardcheck` key instead of being lost):

- A mutant is reported under every file it changes. The first file keeps the catalogue id
  as the schema `id`; each further file gets `<id>@<path>` so ids stay unique across the
  report (the viewer correlates mutants by id). `guardcheck.id` always holds the real id.
- `caught-elsewhere` becomes `Killed` (a test did fail), with a statusReason saying it was
  not one of the named tests; the gate-relevant verdict is `guardcheck.lab.verdict`.
- `error` becomes `RuntimeError`, which Stryker leaves out of the score, as we do not.
- Every test id in `killedBy`/`coveredBy` is listed in `testFiles`, even one missing from
  the baseline, so the viewer can always resolve it.
- Location end is exclusive (as in the schema and libcst). When the span has no end, the
  end of the first changed region is used, else the end of the start line.
"""

from __future__ import annotations

import bisect
import difflib
import json
from pathlib import Path
from typing import Any

from guardcheck import __version__
from guardcheck.model import FileChange, MutantResult, RunReport, Status, Where
from guardcheck.reports import Gate

# The report format's major version (the npm package version, 3.x, is not this).
SCHEMA_VERSION = "2"
THRESHOLDS = {"high": 80, "low": 60}

STRYKER_STATUS: dict[Status, str] = {
    Status.CAUGHT: "Killed",
    Status.CAUGHT_ELSEWHERE: "Killed",
    Status.TIMEOUT: "Timeout",
    Status.SURVIVED: "Survived",
    Status.NO_COVERAGE: "NoCoverage",
    Status.ERROR: "RuntimeError",
}


def _ms(seconds: float) -> int:
    return max(0, round(seconds * 1000))


def _line_starts(text: str) -> list[int]:
    starts = [0]
    for index, char in enumerate(text):
        if char == "\n":
            starts.append(index + 1)
    return starts


def _offset(starts: list[int], text: str, line: int, column: int) -> int:
    """Character offset of a 1-based (line, column), clamped into the text."""
    line = min(max(line, 1), len(starts))
    return min(starts[line - 1] + max(column, 1) - 1, len(text))


def _position(starts: list[int], offset: int) -> dict[str, int]:
    line = bisect.bisect_right(starts, offset) - 1
    return {"line": line + 1, "column": offset - starts[line] + 1}


def _first_region(original: str, mutated: str) -> tuple[int, int, int] | None:
    """(start, original end, mutated end) of the first changed region, by characters.

    Lines locate the region cheaply, characters trim it, so a file with several changed
    regions still yields only the first.
    """
    a_lines = original.splitlines(keepends=True)
    b_lines = mutated.splitlines(keepends=True)
    matcher = difflib.SequenceMatcher(a=a_lines, b=b_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        base = sum(len(line) for line in a_lines[:i1])
        old, new = "".join(a_lines[i1:i2]), "".join(b_lines[j1:j2])
        prefix = 0
        while prefix < min(len(old), len(new)) and old[prefix] == new[prefix]:
            prefix += 1
        suffix = 0
        while (
            suffix < min(len(old), len(new)) - prefix
            and old[len(old) - 1 - suffix] == new[len(new) - 1 - suffix]
        ):
            suffix += 1
        return base + prefix, base + len(old) - suffix, base + len(new) - suffix
    return None


def location_and_replacement(change: FileChange) -> tuple[dict[str, Any], str | None]:
    """The schema location of a change's span, and the span's mutated text when computable."""
    original, span = change.original, change.span
    starts = _line_starts(original)
    start = _offset(starts, original, span.line, span.column)
    region = _first_region(original, change.mutated)
    if span.end_line is not None:
        end = _offset(starts, original, span.end_line, span.end_column or 1)
    elif region is not None and region[0] >= start:
        end = region[1]
    else:
        line_end = starts[span.line] - 1 if span.line < len(starts) else len(original)
        end = max(start, line_end)
    end = max(end, start)
    replacement: str | None = None
    # The span is the first changed region, so nothing before it moved: the mutated text of
    # [start, end) is known exactly when the span encloses the whole first region.
    if region is not None and start <= region[0] and region[1] <= end:
        replacement = change.mutated[start : end + region[2] - region[1]]
    loc = {"start": _position(starts, start), "end": _position(starts, end)}
    return loc, replacement


def _test_file(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def _test_name(nodeid: str) -> str:
    _file, sep, rest = nodeid.partition("::")
    return rest if sep else nodeid


def _status_reason(result: MutantResult) -> str:
    reason = result.reason
    if result.status is Status.CAUGHT_ELSEWHERE:
        expected = ", ".join(result.mutant.killed_by) or "none"
        reason = f"caught, but not by a named killer (expected: {expected}); {reason}"
    messages = [f"{t.nodeid}: {t.message}" for t in result.tests if t.message]
    # The verdict's reason usually is the first killer's "nodeid: message" already.
    messages = [message for message in messages if message not in reason]
    if messages and result.status in (Status.CAUGHT, Status.CAUGHT_ELSEWHERE):
        reason = "\n".join(line for line in (reason, *messages) if line)
    return reason


def _guardcheck_fields(
    result: MutantResult, change: FileChange, part: int, gate: Gate
) -> dict[str, Any]:
    mutant = result.mutant
    declared: Where | None = mutant.declared_at
    return {
        "id": mutant.id,
        "summary": mutant.summary,
        "verdict": result.status.value,
        "passesGate": gate.passes(result),
        "reason": result.reason,
        "expectedKillers": list(mutant.killed_by),
        "executionPath": result.path,
        "tags": list(mutant.tags),
        "declaredAt": str(declared) if declared else None,
        "files": [c.path for c in mutant.changes],
        "part": part,  # 1-based index of `change` among the mutant's files
        "diff": change.diff(),
        "tests": [
            {
                "id": t.nodeid,
                "outcome": t.outcome.value,
                "duration": _ms(t.duration),
                "message": t.message,
            }
            for t in result.tests
        ],
        "selection": [
            {"test": s.nodeid, "selected": s.selected, "reason": s.reason} for s in result.selection
        ],
    }


def _mutant_entry(
    result: MutantResult, change: FileChange, part: int, gate: Gate
) -> dict[str, Any]:
    mutant = result.mutant
    loc, replacement = location_and_replacement(change)
    entry: dict[str, Any] = {
        "id": mutant.id if part == 1 else f"{mutant.id}@{change.path}",
        "mutatorName": mutant.mutator,
        "description": mutant.summary,
        "location": loc,
        "status": STRYKER_STATUS[result.status],
        "statusReason": _status_reason(result),
        "coveredBy": list(result.covered_by),
        "killedBy": list(result.killers),
        "duration": _ms(result.duration),
        "testsCompleted": len(result.tests),
    }
    if replacement is not None:
        entry["replacement"] = replacement
    entry["guardcheck"] = _guardcheck_fields(result, change, part, gate)
    return entry


def _test_files(report: RunReport) -> dict[str, Any]:
    paths: dict[str, str] = {t.nodeid: t.path for t in report.baseline}
    for result in report.results:
        for nodeid in (*result.killers, *result.covered_by, *(t.nodeid for t in result.tests)):
            paths.setdefault(nodeid, _test_file(nodeid))
    files: dict[str, Any] = {}
    for nodeid, path in paths.items():
        files.setdefault(path, {"tests": []})["tests"].append(
            {"id": nodeid, "name": _test_name(nodeid)}
        )
    return files


def to_stryker(report: RunReport, *, gate: Gate | None = None) -> dict[str, Any]:
    """The report as a mutation-testing-report-schema document (a JSON-ready dict)."""
    gate = gate or Gate()
    files: dict[str, Any] = {}
    for result in report.results:
        for part, change in enumerate(result.mutant.changes, start=1):
            # The first mutant seen for a file supplies its source: all carry the original.
            entry = files.setdefault(
                change.path, {"language": "python", "source": change.original, "mutants": []}
            )
            entry["mutants"].append(_mutant_entry(result, change, part, gate))
    baseline_ms = _ms(report.baseline_seconds)
    return {
        "schemaVersion": SCHEMA_VERSION,
        "thresholds": dict(THRESHOLDS),
        "projectRoot": report.root,
        "files": files,
        "testFiles": _test_files(report),
        "framework": {"name": "guardcheck", "version": __version__},
        # Setup (validation, collection) is not timed separately: it is inside `mutation`.
        "performance": {
            "setup": 0,
            "initialRun": baseline_ms,
            "mutation": max(0, _ms(report.wall_seconds) - baseline_ms),
        },
        "config": {
            "matrix": report.matrix,
            "allowCaughtElsewhere": gate.allow_caught_elsewhere,
            "failUnder": gate.fail_under,
        },
        "guardcheck": {
            "score": report.score,
            "gatePassed": gate.passed(report),
            "interrupted": report.interrupted,
            "counts": {status.value: n for status, n in report.counts().items()},
            "baselineSeconds": report.baseline_seconds,
            "wallSeconds": report.wall_seconds,
        },
    }


def write_json(report: RunReport, path: Path | str, *, gate: Gate | None = None) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(to_stryker(report, gate=gate), indent=2, ensure_ascii=False)
    path.write_text(text + "\n", encoding="utf-8")
    return path
