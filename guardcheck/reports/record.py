"""The round-trip part of the JSON report: enough under `guardcheck` keys to rebuild a RunReport.

`reports/stryker.py` writes the schema document and calls `run_record` (top level) and
`mutant_record` (the first file's entry of each mutant); `report_from_json` reads both
back. Writer and reader live together so they cannot drift apart. Anything the schema
already carries exactly (each file's full `source`, `mutatorName`) is read from there
instead of being written twice; durations are kept in float seconds, because the
schema's integer milliseconds would round a reporter's "0.01 s" differently.

Format version 2: a mutant's selection (why each test was or was not run) is written as
the run's shared test-id list (`selectionTests`, once per distinct list) plus, per mutant,
its most common (selected, reason) pair and the rows that differ from it: the report
grows with mutants + tests, not their product. Version 1 (every row written per
mutant) is still read; a reader refuses other versions instead of guessing.
"""

from __future__ import annotations

import operator
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from guardcheck.model import (
    BaselineTest,
    ChildOutcome,
    ExecutionPath,
    FileChange,
    Gate,
    Mutant,
    MutantResult,
    Provenance,
    Revision,
    RunReport,
    Selection,
    SharedSelection,
    Status,
    TestOutcome,
    TestResult,
    Where,
)
from guardcheck.splices import Splice, apply_splices

FORMAT = 3
# 1: the selection written row by row per mutant; 2: a mutant's tests by node id.
READABLE_FORMATS = (1, 2, 3)


class NotAGuardcheckReport(ValueError):
    """The JSON is not (or not wholly) a report written by this guardcheck format."""


# -- writing -------------------------------------------------------------------------


def _where(where: Where | None) -> dict[str, Any] | None:
    if where is None:
        return None
    return {
        "path": where.path,
        "line": where.line,
        "column": where.column,
        "endLine": where.end_line,
        "endColumn": where.end_column,
    }


def _test(test: TestResult) -> dict[str, Any]:
    return {
        "id": test.nodeid,
        "outcome": test.outcome.value,
        "seconds": test.duration,
        "message": test.message,
    }


def _outcome(outcome: ChildOutcome | None, ran: tuple[TestResult, ...]) -> dict[str, Any] | None:
    if outcome is None:
        return None
    record: dict[str, Any] = {
        "evidence": outcome.evidence,
        "timedOut": outcome.timed_out,
        "crash": outcome.crash,
        "current": outcome.current,
        "error": outcome.error,
    }
    if outcome.tests != ran:  # usually the same tests: written once, under the mutant
        record["tests"] = [_test(t) for t in outcome.tests]
    return record


def mutant_record(result: MutantResult) -> dict[str, Any]:
    """What the schema entry lacks to rebuild `result` (beside the display fields)."""
    mutant = result.mutant
    return {
        "seconds": result.duration,
        "declared": _where(mutant.declared_at),
        "changes": [
            {
                "path": change.path,
                "span": _where(change.span),
                "splices": [[s.start, s.end, s.replacement] for s in change.splices],
            }
            for change in mutant.changes
        ],
        "outcome": _outcome(result.outcome, result.tests),
    }


class SelectionTables:
    """Each mutant's selection as (a shared test-id list, a default row, the exceptions).

    A plan's selection has one row per baseline test, in collection order, and almost
    all rows of one mutant are alike ("does not execute the mutated lines"); writing
    only the rows that differ keeps a report of 1,000 mutants x 5,000 tests small.
    """

    def __init__(self) -> None:
        self.lists: list[list[str]] = []  # distinct ordered test-id lists, written once
        self._index: dict[tuple[str, ...], int] = {}
        # A restored selection's shared id list, by identity: no hashing of 5,000 ids.
        self._by_identity: dict[int, tuple[tuple[str, ...], int]] = {}

    def list_index(self, selection: Sequence[Selection]) -> tuple[int, bool]:
        """(index of the selection's test-id list, whether this call added it)."""
        shared = selection.nodeids if isinstance(selection, SharedSelection) else None
        if shared is not None and id(shared) in self._by_identity:
            return self._by_identity[id(shared)][1], False
        nodeids = shared if shared is not None else tuple(s.nodeid for s in selection)
        index = self._index.get(nodeids)
        added = index is None
        if index is None:
            index = self._index[nodeids] = len(self.lists)
            self.lists.append(list(nodeids))
        if shared is not None:  # kept alive here, so its id stays its own
            self._by_identity[id(shared)] = (shared, index)
        return index, added

    def encode(self, selection: Sequence[Selection]) -> dict[str, Any]:
        index, _added = self.list_index(selection)
        return encode_selection(selection, index)


def encode_selection(selection: Sequence[Selection], tests: int) -> dict[str, Any]:
    """`tests`: the index of the selection's test-id list among the shared lists."""
    if isinstance(selection, SharedSelection):  # restored: its compact form is known
        selected, reason = selection.default
        rows = [list(row) for row in selection.exceptions]
    else:
        counts = Counter(map(_pair, selection))
        selected, reason = counts.most_common(1)[0][0] if counts else (False, "")
        rows = [
            [position, s.selected, s.reason]
            for position, s in enumerate(selection)
            if s.selected != selected or s.reason != reason
        ]
    return {"tests": tests, "default": {"selected": selected, "reason": reason}, "except": rows}


_pair = operator.attrgetter("selected", "reason")


# (list index, selected, reason) -> that list's rows all alike: shared by the mutants that
# read the same default, so 1,000 mutants x 5,000 tests hold ~5,000 rows, not 5 million.
DefaultRows = dict[tuple[int, bool, str], tuple[Selection, ...]]


def decode_selection(
    data: dict[str, Any], lists: Sequence[Sequence[str]], shared: DefaultRows | None = None
) -> tuple[Selection, ...]:
    """The rows `encode_selection` wrote; raises KeyError/IndexError/TypeError when malformed."""
    index = int(data["tests"])
    nodeids = lists[index]
    default = data["default"]
    selected, reason = bool(default["selected"]), str(default["reason"])
    shared = {} if shared is None else shared
    alike = shared.get((index, selected, reason))
    if alike is None:
        alike = shared[index, selected, reason] = tuple(
            Selection(nodeid, selected, reason) for nodeid in nodeids
        )
    rows = list(alike)
    for position, flag, why in data["except"]:
        rows[int(position)] = Selection(nodeids[int(position)], bool(flag), str(why))
    return tuple(rows)


def tests_json(result: MutantResult, ids: Mapping[str, str]) -> list[dict[str, Any]]:
    """The tests the mutant ran, by their `testFiles` ids (`ids`: node id -> id), with
    a message only where there is one: a survivor lists every test it ran, so this is
    the one part of the report that still grows with mutants times tests."""
    return [
        {
            "id": ids[t.nodeid],
            "outcome": t.outcome.value,
            "seconds": t.duration,
            **({"message": t.message} if t.message else {}),
        }
        for t in result.tests
    ]


def provenance_json(provenance: Provenance | None) -> dict[str, Any] | None:
    if provenance is None:
        return None
    revision = provenance.revision
    shard = provenance.shard
    return {
        "version": provenance.version,
        "revision": {"sha": revision.sha, "dirty": revision.dirty} if revision else None,
        "config": provenance.config,
        "configHash": provenance.config_hash,
        "gate": {
            "allowCaughtElsewhere": provenance.gate.allow_caught_elsewhere,
            "failUnder": provenance.gate.fail_under,
        },
        "shard": {"index": shard[0], "count": shard[1]} if shard else None,
        "selected": list(provenance.selected),
        "mergedFrom": provenance.merged_from,
    }


def run_record(report: RunReport) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "root": report.root,
        "matrix": report.matrix,
        "incomplete": report.incomplete,
        "mutants": [r.mutant.id for r in report.results],  # the report's order
        "baseline": [
            {"id": t.nodeid, "seconds": t.duration, "path": t.path, "outcome": t.outcome.value}
            for t in report.baseline
        ],
        "run": provenance_json(report.provenance),
    }


# -- reading -------------------------------------------------------------------------


def report_from_json(doc: object) -> RunReport:
    """The RunReport a guardcheck JSON report was written from.

    Raises NotAGuardcheckReport for another tool's report, another format
    version, or a document with missing or mistyped fields.
    """
    if not isinstance(doc, dict) or not isinstance(doc.get("guardcheck"), dict):
        raise NotAGuardcheckReport(
            "not a guardcheck JSON report (no top-level `guardcheck` object)"
        )
    top = doc["guardcheck"]
    if top.get("format") not in READABLE_FORMATS:
        raise NotAGuardcheckReport(
            f"guardcheck report format {top.get('format')!r}, this guardcheck reads "
            f"{' and '.join(map(str, READABLE_FORMATS))}"
            "\n  fix: write the reports and merge them with the same guardcheck version"
        )
    try:
        return _report(doc, top)
    except (KeyError, TypeError, ValueError, IndexError, AttributeError) as exc:
        raise NotAGuardcheckReport(
            f"malformed guardcheck report ({type(exc).__name__}: {exc})"
        ) from None


def _report(doc: dict[str, Any], top: dict[str, Any]) -> RunReport:
    sources = {path: entry["source"] for path, entry in doc["files"].items()}
    lists = top.get("selectionTests", [])
    shared: DefaultRows = {}
    by_id: dict[str, MutantResult] = {}
    # Format 3 names a mutant's tests by their testFiles ids; earlier ones by node id.
    names = _testfile_nodeids(doc) if top["format"] >= 3 else None
    for entry in doc["files"].values():
        for mutant in entry["mutants"]:
            if mutant["guardcheck"]["part"] == 1:
                result = _result(mutant, sources, lists, shared, names)
                by_id[result.mutant.id] = result
    results = [by_id[mutant_id] for mutant_id in top["mutants"]]
    if len(results) != len(by_id):
        raise ValueError("the mutant order does not list every mutant")
    return RunReport(
        root=top["root"],
        results=results,
        baseline=[
            BaselineTest(
                t["id"], float(t["seconds"]), t["path"], TestOutcome(t.get("outcome", "passed"))
            )
            for t in top["baseline"]
        ],
        baseline_seconds=float(top["baselineSeconds"]),
        wall_seconds=float(top["wallSeconds"]),
        hash_seed=str(top.get("hashSeed", "")),  # absent from reports older than the field
        randomly_seed=str(top.get("randomlySeed", "")),  # likewise
        matrix=bool(top["matrix"]),
        interrupted=bool(top["interrupted"]),
        incomplete=top["incomplete"],
        provenance=_provenance(top["run"]),
    )


def _read_where(data: dict[str, Any] | None) -> Where | None:
    if data is None:
        return None
    return Where(data["path"], data["line"], data["column"], data["endLine"], data["endColumn"])


def _read_test(data: dict[str, Any], names: Mapping[str, str] | None = None) -> TestResult:
    nodeid = names[data["id"]] if names is not None else data["id"]
    return TestResult(
        nodeid, TestOutcome(data["outcome"]), float(data["seconds"]), data.get("message", "")
    )


def _testfile_nodeids(doc: dict[str, Any]) -> dict[str, str]:
    """`testFiles` ids -> node ids."""
    return {t["id"]: t["nodeid"] for f in doc["testFiles"].values() for t in f["tests"]}


def _change(data: dict[str, Any], sources: dict[str, str]) -> FileChange:
    original = sources[data["path"]]
    splices = tuple(Splice(int(start), int(end), text) for start, end, text in data["splices"])
    span = _read_where(data["span"])
    assert span is not None
    return FileChange(
        path=data["path"],
        original=original,
        mutated=apply_splices(original, splices),
        span=span,
        splices=splices,
    )


def _result(
    entry: dict[str, Any],
    sources: dict[str, str],
    lists: Sequence[Sequence[str]],
    shared: DefaultRows,
    names: Mapping[str, str] | None,
) -> MutantResult:
    fields = entry["guardcheck"]
    record = fields["record"]
    mutant = Mutant(
        id=fields["id"],
        summary=fields["summary"],
        changes=tuple(_change(c, sources) for c in record["changes"]),
        mutator=entry["mutatorName"],
        killed_by=tuple(fields["expectedKillers"]),
        tags=tuple(fields["tags"]),
        declared_at=_read_where(record["declared"]),
        # Absent from reports older than these keys: no "any" killers, no known gap.
        killed_by_any=tuple(fields.get("expectedKillersAny", ())),
        expect=fields.get("expect"),
        expect_reason=fields.get("expectReason", ""),
    )
    tests = tuple(_read_test(t, names) for t in fields["tests"])
    return MutantResult(
        mutant=mutant,
        status=Status(fields["verdict"]),
        reason=fields["reason"],
        tests=tests,
        selection=_read_selection(fields["selection"], lists, shared),
        path=ExecutionPath(fields["executionPath"]),
        duration=float(record["seconds"]),
        outcome=_read_outcome(record["outcome"], tests),
        path_reason=fields.get("executionPathReason", ""),  # absent from older reports
    )


def _read_selection(
    data: object, lists: Sequence[Sequence[str]], shared: DefaultRows
) -> tuple[Selection, ...]:
    if isinstance(data, list):  # format 1: every row, per mutant
        return tuple(Selection(s["test"], bool(s["selected"]), s["reason"]) for s in data)
    if not isinstance(data, dict):
        raise TypeError(f"a selection is an object, not {type(data).__name__}")
    return decode_selection(data, lists, shared)


def _read_outcome(data: dict[str, Any] | None, ran: tuple[TestResult, ...]) -> ChildOutcome | None:
    if data is None:
        return None
    tests = tuple(_read_test(t) for t in data["tests"]) if "tests" in data else ran
    return ChildOutcome(
        tests=tests,
        evidence=bool(data["evidence"]),
        timed_out=data["timedOut"],
        crash=data["crash"],
        current=data["current"],
        error=data["error"],
    )


def _provenance(data: dict[str, Any] | None) -> Provenance | None:
    if data is None:
        return None
    revision = data["revision"]
    shard = data["shard"]
    gate = data["gate"]
    return Provenance(
        version=data["version"],
        revision=Revision(revision["sha"], bool(revision["dirty"])) if revision else None,
        config=dict(data["config"]),
        config_hash=data["configHash"],
        gate=Gate(bool(gate["allowCaughtElsewhere"]), gate["failUnder"]),
        shard=(int(shard["index"]), int(shard["count"])) if shard else None,
        selected=tuple(data["selected"]),
        merged_from=int(data["mergedFrom"]),
    )
