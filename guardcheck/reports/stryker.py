"""`--json`: the open mutation-testing-report-schema (Stryker's format and HTML viewer).

Mapping decisions (the schema permits extra properties on every object, so guardcheck's
own data rides along under a `guardcheck` key instead of being lost):

- A mutant is reported under every file it changes. The first file keeps the catalogue id
  as the schema `id`; each further file gets `<id>@<path>` so ids stay unique across the
  report (the viewer correlates mutants by id). `guardcheck.id` always holds the real id.
- `caught-elsewhere` becomes `Killed` (a test did fail), with a statusReason saying it was
  not one of the named tests; the gate-relevant verdict is `guardcheck.lab.verdict`.
- `weakened` (a test named in `killed_by` passed) and `known-gap` become `Survived`,
  `gap-closed` becomes `Killed`; `guardcheck.verdict` and `guardcheck.passesGate` say more.
- `error` becomes `RuntimeError`, which Stryker leaves out of the score, as we do not.
- Tests are listed in `testFiles` under short ids ("0", "1", ...), and `killedBy` and
  `coveredBy` hold those ids, as Stryker's own reports do: with node ids there, a report
  grew with mutants times tests (741 MB for packaging's 346 mutants and 26,854 tests,
  two thirds of it `coveredBy`). Each test has its `name` (the node id after the file)
  and its whole `nodeid` (the file key is relative to the project root, the node id to
  pytest's rootdir); `nodeids_by_id()` maps ids to node ids. `guardcheck.tests` names
  the tests a mutant ran by the same ids (format 3). Every referenced test is
  listed, even one missing from the baseline, so the viewer can always resolve it.
- Location end is exclusive (as in the schema and libcst). When the span has no end, the
  end of the first changed region is used, else the end of the start line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from guardcheck.model import FileChange, MutantResult, RunReport, Status, Where
from guardcheck.reports import Gate
from guardcheck.reports.record import SelectionTables, mutant_record, run_record, tests_json

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
    # A named killer passed: as a guard that test let the mutant through.
    Status.WEAKENED: "Survived",
    Status.KNOWN_GAP: "Survived",  # it did survive; the gate accepts it (guardcheck.verdict)
    Status.GAP_CLOSED: "Killed",  # a test failed; the gate rejects the stale `expect`
}


def _ms(seconds: float) -> int:
    return max(0, round(seconds * 1000))


def location_and_replacement(change: FileChange) -> tuple[dict[str, Any], str]:
    """The schema location of a change's first splice, and the text that replaces it."""
    found = change.location()
    loc = {
        "start": {"line": found.start[0], "column": found.start[1]},
        "end": {"line": found.end[0], "column": found.end[1]},
    }
    return loc, found.replacement


def _test_file(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def _test_name(nodeid: str) -> str:
    _file, sep, rest = nodeid.partition("::")
    return rest if sep else nodeid


def _status_reason(result: MutantResult) -> str:
    reason = result.reason
    if result.status is Status.CAUGHT_ELSEWHERE:
        expected = ", ".join(result.mutant.named_killers) or "none"
        reason = f"caught, but not by a named killer (expected: {expected}); {reason}"
    messages = [f"{t.nodeid}: {t.message}" for t in result.tests if t.message]
    # The verdict's reason usually is the first killer's "nodeid: message" already.
    messages = [message for message in messages if message not in reason]
    if messages and result.status in (Status.CAUGHT, Status.CAUGHT_ELSEWHERE, Status.WEAKENED):
        reason = "\n".join(line for line in (reason, *messages) if line)
    return reason


@dataclass(frozen=True)
class _Shared:
    """What every mutant's entry is written against: the gate, the shared selection
    tables, and the tests' `testFiles` ids by node id."""

    gate: Gate
    tables: SelectionTables
    ids: dict[str, str]


def _guardcheck_fields(
    result: MutantResult, change: FileChange, part: int, shared: _Shared
) -> dict[str, Any]:
    mutant = result.mutant
    declared: Where | None = mutant.declared_at
    return {
        "id": mutant.id,
        "summary": mutant.summary,
        "verdict": result.status.value,
        "passesGate": shared.gate.passes(result),
        "reason": result.reason,
        "expectedKillers": list(mutant.killed_by),
        "expectedKillersAny": list(mutant.killed_by_any),
        "expect": mutant.expect,
        "expectReason": mutant.expect_reason,
        "executionPath": result.path,
        "executionPathReason": result.path_reason,
        "tags": list(mutant.tags),
        "declaredAt": str(declared) if declared else None,
        "files": [c.path for c in mutant.changes],
        "part": part,  # 1-based index of `change` among the mutant's files
        "diff": change.diff(),
        "tests": tests_json(result, shared.ids),
        # Why each test was or was not run, as the rows that differ from the mutant's
        # most common one over a shared test-id list (`selectionTests`): see record.py.
        "selection": shared.tables.encode(result.selection),
        # The rest of what `guardcheck merge` needs to rebuild the result, once per mutant.
        **({"record": mutant_record(result)} if part == 1 else {}),
    }


def _mutant_entry(
    result: MutantResult, change: FileChange, part: int, shared: _Shared
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
        "coveredBy": [shared.ids[nodeid] for nodeid in result.covered_by],
        "killedBy": [shared.ids[nodeid] for nodeid in result.killers],
        "duration": _ms(result.duration),
        "testsCompleted": len(result.tests),
        "replacement": replacement,
    }
    entry["guardcheck"] = _guardcheck_fields(result, change, part, shared)
    return entry


def _test_files(report: RunReport) -> tuple[dict[str, Any], dict[str, str]]:
    """`testFiles`, and the short id each node id has there."""
    paths: dict[str, str] = {t.nodeid: t.path for t in report.baseline}
    for result in report.results:
        for nodeid in (*result.killers, *result.covered_by, *(t.nodeid for t in result.tests)):
            paths.setdefault(nodeid, _test_file(nodeid))
    files: dict[str, Any] = {}
    ids: dict[str, str] = {}
    for nodeid, path in paths.items():
        ids[nodeid] = str(len(ids))
        files.setdefault(path, {"tests": []})["tests"].append(
            {"id": ids[nodeid], "name": _test_name(nodeid), "nodeid": nodeid}
        )
    return files, ids


def nodeids_by_id(doc: dict[str, Any]) -> dict[str, str]:
    """A report's test ids (what `killedBy` and `coveredBy` hold) -> pytest node ids."""
    return {t["id"]: t["nodeid"] for f in doc.get("testFiles", {}).values() for t in f["tests"]}


def to_stryker(report: RunReport, *, gate: Gate | None = None) -> dict[str, Any]:
    """The report as a mutation-testing-report-schema document (a JSON-ready dict)."""
    gate = gate or Gate()
    tables = SelectionTables()
    test_files, ids = _test_files(report)
    shared = _Shared(gate, tables, ids)
    files: dict[str, Any] = {}
    for result in report.results:
        for part, change in enumerate(result.mutant.changes, start=1):
            # The first mutant seen for a file supplies its source: all carry the original.
            entry = files.setdefault(
                change.path, {"language": "python", "source": change.original, "mutants": []}
            )
            entry["mutants"].append(_mutant_entry(result, change, part, shared))
    baseline_ms = _ms(report.baseline_seconds)
    return {
        "schemaVersion": SCHEMA_VERSION,
        "thresholds": dict(THRESHOLDS),
        "projectRoot": report.root,
        "files": files,
        "testFiles": test_files,
        "framework": {"name": "guardcheck", "version": report.tool_version},
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
            "hashSeed": report.hash_seed,
            "randomlySeed": report.randomly_seed,
            **run_record(report),
            "selectionTests": tables.lists,
        },
    }


def write_json(report: RunReport, path: Path | str, *, gate: Gate | None = None) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # Compact: indenting takes json's pure-Python encoder (much slower on a sweep's report).
    text = json.dumps(to_stryker(report, gate=gate), ensure_ascii=False, separators=(",", ":"))
    path.write_text(text + "\n", encoding="utf-8")
    return path
