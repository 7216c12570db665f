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
    SharedSelection,
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
    return nodeids_digest(nodeids), nodeids


def nodeids_digest(nodeids: list[Any]) -> str:
    """The name a test-id list is stored under: its own digest, so a reader re-checks it."""
    return hashlib.sha256(json.dumps(nodeids).encode()).hexdigest()


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


class Rows:
    """Selection rows shared by the mutants restored in one run.

    Every mutant's rows are mostly its most common (selected, reason) pair over the same
    test-id list: that list of rows is built once per pair and copied (a C-level list
    copy), and only the rows that differ are put in, so 1,000 restored mutants x 5,000
    tests cost ~5,000 row objects and no Python loop over every row.
    """

    def __init__(self) -> None:
        self.alike: dict[tuple[int, bool, str], tuple[Selection, ...]] = {}
        self.rows: dict[tuple[str, bool, str], Selection] = {}

    def all_alike(self, nodeids: tuple[str, ...], flag: bool, why: str) -> tuple[Selection, ...]:
        # Keyed by the list's identity: the caller keeps one tuple per stored id list.
        key = (id(nodeids), flag, why)
        found = self.alike.get(key)
        if found is None:
            found = self.alike[key] = tuple(Selection(n, flag, why) for n in nodeids)
        return found

    def row(self, nodeid: str, flag: bool, why: str) -> Selection:
        key = (nodeid, flag, why)
        found = self.rows.get(key)
        if found is None:
            found = self.rows[key] = Selection(nodeid, flag, why)
        return found


def decode(
    data: dict[str, Any], mutant: Mutant, nodeids: tuple[str, ...], shared: Rows | None = None
) -> MutantResult:
    """Raises KeyError/TypeError/ValueError for a malformed entry (the caller discards it).

    `shared`: rows shared with the other mutants restored in this run (see Rows).
    """
    shared = Rows() if shared is None else shared
    runs = [
        (int(count), bool(selected), str(reason))
        for count, selected, reason in data["selection"]["runs"]
    ]
    if sum(count for count, _flag, _why in runs) != len(nodeids) or any(
        c < 1 for c, _f, _w in runs
    ):
        raise ValueError("selection runs do not cover the stored test ids")
    totals: dict[tuple[bool, str], int] = {}
    for count, flag, why in runs:
        totals[flag, why] = totals.get((flag, why), 0) + count
    default = max(totals, key=lambda pair: totals[pair]) if totals else (False, "")
    rows = list(shared.all_alike(nodeids, *default))
    exceptions: list[tuple[int, bool, str]] = []
    position = 0
    for count, flag, why in runs:
        if (flag, why) != default:
            for at in range(position, position + count):
                rows[at] = shared.row(nodeids[at], flag, why)
                exceptions.append((at, flag, why))
        position += count
    selection = SharedSelection(tuple(rows), nodeids, default, tuple(exceptions))
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
        selection=selection,
        path=ExecutionPath(data["path"]),
        duration=float(data["duration"]),
        outcome=outcome,
        path_reason=str(data.get("path_reason", "")),
    )
