"""One MutantResult as JSON, without its Mutant (the key proved the current one identical).

The selection has one row per baseline test per mutant; written plainly it makes the
cache grow with mutants x tests. Rows are in collection order, so the test ids are
written once per distinct list (a shared blob named by its digest) and each mutant keeps
only runs of equal (selected, reason) pairs: a few entries instead of thousands.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from guardcheck.model import (
    ChildOutcome,
    ExecutionPath,
    Mutant,
    MutantResult,
    Selection,
    Status,
    TestOutcome,
    TestResult,
)


def _test(test: TestResult) -> list[Any]:
    return [test.nodeid, test.outcome.value, test.duration, test.message]


def _read_test(data: list[Any]) -> TestResult:
    nodeid, outcome, duration, message = data
    return TestResult(str(nodeid), TestOutcome(outcome), float(duration), str(message))


def nodeids_blob(selection: tuple[Selection, ...]) -> tuple[str, list[str]]:
    """(digest, ids) of the selection's test ids in order: stored once, shared by mutants."""
    nodeids = [s.nodeid for s in selection]
    return hashlib.sha256(json.dumps(nodeids).encode()).hexdigest(), nodeids


def encode(result: MutantResult, nodeids_digest: str) -> dict[str, Any]:
    runs: list[list[Any]] = []  # [count, selected, reason]
    for row in result.selection:
        if runs and runs[-1][1] == row.selected and runs[-1][2] == row.reason:
            runs[-1][0] += 1
        else:
            runs.append([1, row.selected, row.reason])
    outcome = result.outcome
    return {
        "status": result.status.value,
        "reason": result.reason,
        "tests": [_test(t) for t in result.tests],
        "path": result.path.value,
        "path_reason": result.path_reason,
        "duration": result.duration,
        "selection": {"nodeids": nodeids_digest, "runs": runs},
        "outcome": None
        if outcome is None
        else {
            # Usually the tests that ran: then not written twice.
            "tests": None if outcome.tests == result.tests else [_test(t) for t in outcome.tests],
            "evidence": outcome.evidence,
            "timed_out": outcome.timed_out,
            "crash": outcome.crash,
            "current": outcome.current,
            "error": outcome.error,
        },
    }


Rows = dict[tuple[bool, str], dict[str, Selection]]  # (selected, reason) -> nodeid -> row


def decode(
    data: dict[str, Any], mutant: Mutant, nodeids: list[str], shared: Rows | None = None
) -> MutantResult:
    """Raises KeyError/TypeError/ValueError for a malformed entry (the caller discards it).

    `shared`: equal selection rows of different mutants become one (frozen) object, so
    1,000 restored mutants x 5,000 tests hold ~5,000 rows, not 5 million, and a row
    costs a dict lookup instead of a dataclass construction.
    """
    shared = {} if shared is None else shared
    rows: list[Selection] = []
    for count, selected, reason in data["selection"]["runs"]:
        start = len(rows)
        flag, why = bool(selected), str(reason)
        table = shared.setdefault((flag, why), {})
        for nodeid in nodeids[start : start + int(count)]:
            row = table.get(nodeid)
            if row is None:
                row = table[nodeid] = Selection(nodeid, flag, why)
            rows.append(row)
    if len(rows) != len(nodeids):
        raise ValueError("selection runs do not cover the stored test ids")
    tests = tuple(_read_test(t) for t in data["tests"])
    raw = data["outcome"]
    outcome = None
    if raw is not None:
        outcome = ChildOutcome(
            tests=tests if raw["tests"] is None else tuple(_read_test(t) for t in raw["tests"]),
            evidence=bool(raw["evidence"]),
            timed_out=raw["timed_out"],
            crash=raw["crash"],
            current=raw["current"],
            error=raw["error"],
        )
    return MutantResult(
        mutant=mutant,
        status=Status(data["status"]),
        reason=str(data["reason"]),
        tests=tests,
        selection=tuple(rows),
        path=ExecutionPath(data["path"]),
        duration=float(data["duration"]),
        outcome=outcome,
        path_reason=str(data.get("path_reason", "")),
    )
