"""The JSON report round-trips: RunReport -> JSON text -> RunReport, equal in every field."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from support.reports import T_CLAMP, T_LIMIT, failed, passed, rich_report
from support.shards import provenance

from guardcheck.model import ChildOutcome, Gate, RunReport, Status
from guardcheck.reports.record import NotAGuardcheckReport, report_from_json
from guardcheck.reports.stryker import to_stryker


def through_json(report: RunReport, gate: Gate | None = None) -> RunReport:
    return report_from_json(json.loads(json.dumps(to_stryker(report, gate=gate))))


def full_report() -> RunReport:
    """rich_report plus what a real run adds: raw child outcomes, tags, provenance."""
    report = rich_report(incomplete="internal error: boom", matrix=True)
    results = list(report.results)
    results[0] = replace(
        results[0],
        outcome=ChildOutcome(tests=results[0].tests, evidence=True),
        mutant=replace(results[0].mutant, tags=("ladder", "cap")),
        duration=0.0123456,  # exact seconds survive, not just the schema's milliseconds
    )
    results[1] = replace(
        results[1], outcome=ChildOutcome(timed_out=5.2, current=T_CLAMP, evidence=True)
    )
    # A crash: the lab records the interrupted test among what ran, not in the outcome.
    crashed = ChildOutcome(tests=(passed(T_LIMIT),), crash="SIGSEGV", current=T_CLAMP)
    results[5] = replace(results[5], tests=(passed(T_LIMIT), failed(T_CLAMP)), outcome=crashed)
    report.results = results
    report.provenance = provenance(report, shard=(2, 3), gate=Gate(True, 75.0))
    report.hash_seed = "4021"
    return report


def test_a_report_round_trips_through_its_json():
    original = full_report()
    assert through_json(original, Gate(True, 75.0)) == original


@pytest.mark.parametrize(
    "report",
    [RunReport(root="/p"), rich_report(interrupted=True)],
    ids=["empty-without-provenance", "interrupted"],
)
def test_edge_reports_round_trip(report):
    assert through_json(report) == report


def test_multi_file_mutants_come_back_whole_with_their_mutated_text():
    original = full_report()
    back = {r.mutant.id: r for r in through_json(original).results}
    both = next(r for r in original.results if r.mutant.id == "both-files")
    assert back["both-files"].mutant.changes == both.mutant.changes
    assert back["both-files"].mutant.diff() == both.mutant.diff()


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ({"schemaVersion": "2", "files": {}}, "no top-level `guardcheck`"),
        ([1, 2], "no top-level `guardcheck`"),
        ({"guardcheck": {"format": 99}}, "format 99"),
        ({"guardcheck": {"format": 1}, "files": {}}, "malformed"),
    ],
    ids=["stryker-js-report", "not-an-object", "future-format", "missing-fields"],
)
def test_foreign_or_broken_documents_are_refused_clearly(doc, message):
    with pytest.raises(NotAGuardcheckReport, match=message):
        report_from_json(doc)


def test_killed_by_any_and_a_known_gap_round_trip():
    """Regression: the JSON dropped `killed_by_any` and `expect`, so a merged report
    rebuilt a known gap as a plain survivor's entry (and could not judge it again)."""
    original = full_report()
    results = list(original.results)
    results[0] = replace(
        results[0],
        status=Status.KNOWN_GAP,
        mutant=replace(
            results[0].mutant,
            killed_by_any=(T_CLAMP, T_LIMIT),
            expect="survives",
            expect_reason="negatives untested",
        ),
    )
    original.results = results
    back = through_json(original, Gate(True, 75.0))
    assert back == original
    assert back.results[0].mutant.expect_reason == "negatives untested"
