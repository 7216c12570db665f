"""The JSON report: valid against the vendored mutation-testing-report-schema, mapped right."""

from __future__ import annotations

import json
from dataclasses import replace as dc_replace
from pathlib import Path

import jsonschema
import pytest
from support.reports import (
    CALC,
    T_ADD,
    T_CLAMP,
    T_EXTRA,
    T_IDLE,
    T_LIMIT,
    UTIL,
    change,
    failed,
    rich_report,
)

from guardcheck.model import BaselineTest, MutantResult, RunReport, Selection, Status, Where
from guardcheck.reports import Gate
from guardcheck.reports.record import report_from_json
from guardcheck.reports.stryker import (
    location_and_replacement,
    nodeids_by_id,
    to_stryker,
    write_json,
)

SCHEMA_PATH = (
    Path(__file__).parents[1] / "fixtures" / "schema" / "mutation-testing-report-schema-3.8.4.json"
)


@pytest.fixture(scope="module")
def validator() -> jsonschema.protocols.Validator:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    assert cls is jsonschema.Draft7Validator  # the schema declares draft-07
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def mutants_by_id(doc: dict) -> dict[str, dict]:
    return {m["id"]: m for file in doc["files"].values() for m in file["mutants"]}


def test_rich_report_is_valid_against_the_schema(validator, tmp_path):
    path = write_json(rich_report(), tmp_path / "out" / "report.json")
    doc = json.loads(path.read_text(encoding="utf-8"))
    errors = [e.message for e in validator.iter_errors(doc)]
    assert errors == []


@pytest.mark.parametrize(
    "report",
    [RunReport(root="/p"), rich_report(interrupted=True, matrix=True)],
    ids=["empty", "interrupted-matrix"],
)
def test_edge_reports_are_valid(validator, report):
    validator.validate(to_stryker(report))


def test_a_schema_violation_is_detected(validator):
    # Guards the guard: the validator must reject a status the schema does not know.
    doc = to_stryker(rich_report())
    next(iter(doc["files"].values()))["mutants"][0]["status"] = "Caught"
    with pytest.raises(jsonschema.ValidationError):
        validator.validate(doc)


def test_top_level_fields():
    doc = to_stryker(rich_report())
    assert doc["schemaVersion"] == "2"
    assert doc["thresholds"] == {"high": 80, "low": 60}
    assert doc["projectRoot"] == "/home/user/project"
    assert doc["framework"]["name"] == "guardcheck"
    assert doc["framework"]["version"]
    assert doc["performance"] == {"setup": 0, "initialRun": 400, "mutation": 2700}
    assert doc["guardcheck"]["gatePassed"] is False
    assert doc["guardcheck"]["counts"]["caught"] == 3


def test_files_carry_original_source_and_python():
    doc = to_stryker(rich_report())
    assert set(doc["files"]) == {"pkg/calc.py", "pkg/util.py"}
    assert doc["files"]["pkg/calc.py"]["source"] == CALC
    assert doc["files"]["pkg/util.py"]["source"] == UTIL
    assert {f["language"] for f in doc["files"].values()} == {"python"}


def test_status_mapping():
    mutants = mutants_by_id(to_stryker(rich_report()))
    statuses = {i: (m["status"], m["guardcheck"]["verdict"]) for i, m in mutants.items()}
    assert statuses["add-minus"] == ("Killed", "caught")
    assert statuses["clamp-loop"] == ("Timeout", "timeout")
    assert statuses["clamp-no-high"] == ("Survived", "survived")
    assert statuses["limit-eleven"] == ("NoCoverage", "no-coverage")
    assert statuses["clamp-low-eq"] == ("Killed", "caught-elsewhere")
    assert statuses["limit-inactive"] == ("RuntimeError", "error")


def nodeids(doc: dict, ids: list[str]) -> list[str]:
    """A mutant's killedBy or coveredBy as pytest node ids."""
    names = nodeids_by_id(doc)
    return [names[i] for i in ids]


def test_caught_elsewhere_explains_itself():
    doc = to_stryker(rich_report())
    mutant = mutants_by_id(doc)["clamp-low-eq"]
    assert "not by a named killer" in mutant["statusReason"]
    assert T_CLAMP in mutant["statusReason"]  # the expected killer
    assert nodeids(doc, mutant["killedBy"]) == [T_ADD]
    assert mutant["guardcheck"]["expectedKillers"] == [T_CLAMP]
    assert mutant["guardcheck"]["passesGate"] is False
    allowed = mutants_by_id(to_stryker(rich_report(), gate=Gate(allow_caught_elsewhere=True)))
    assert allowed["clamp-low-eq"]["guardcheck"]["passesGate"] is True


def selection_of(doc: dict, mutant_id: str) -> list[tuple[str, bool, str]]:
    """A mutant's selection rows, read back from the JSON the way `guardcheck merge` does."""
    back = {r.mutant.id: r for r in report_from_json(json.loads(json.dumps(doc))).results}
    return [(s.nodeid, s.selected, s.reason) for s in back[mutant_id].selection]


def test_killed_mutant_fields():
    doc = to_stryker(rich_report())
    mutant = mutants_by_id(doc)["add-minus"]
    assert mutant["mutatorName"] == "catalogue"
    assert mutant["description"] == "summary of add-minus"
    assert nodeids(doc, mutant["killedBy"]) == [T_ADD]
    assert nodeids(doc, mutant["coveredBy"]) == [T_ADD]
    assert mutant["duration"] == 50
    assert mutant["testsCompleted"] == 1
    assert "assert 1 == 3" in mutant["statusReason"]  # the failure message of the killer
    assert mutant["location"] == {
        "start": {"line": 2, "column": 12},
        "end": {"line": 2, "column": 17},
    }
    assert mutant["replacement"] == "a - b"
    gc = mutant["guardcheck"]
    assert gc["id"] == "add-minus"
    assert gc["executionPath"] == "fork"
    assert gc["declaredAt"] == "mutations/calc.toml:3"
    assert selection_of(to_stryker(rich_report()), "add-minus") == [
        (T_ADD, True, "executes the mutated lines")
    ]
    assert gc["diff"].startswith("--- a/pkg/calc.py")


def test_no_coverage_and_timeout():
    doc = to_stryker(rich_report())
    mutants = mutants_by_id(doc)
    nocov = mutants["limit-eleven"]
    assert nocov["coveredBy"] == []
    assert nocov["testsCompleted"] == 0
    assert nocov["statusReason"] == "no test executes pkg/util.py:1"
    assert selection_of(to_stryker(rich_report()), "limit-eleven")[0][1] is False
    timeout = mutants["clamp-loop"]
    assert nodeids(doc, timeout["coveredBy"]) == [T_CLAMP]
    assert timeout["duration"] == 5200
    assert timeout["guardcheck"]["executionPath"] == "subprocess"


def test_multi_file_mutant_is_reported_under_each_file_with_unique_ids():
    doc = to_stryker(rich_report())
    calc_ids = [m["id"] for m in doc["files"]["pkg/calc.py"]["mutants"]]
    util_ids = [m["id"] for m in doc["files"]["pkg/util.py"]["mutants"]]
    assert "both-files" in calc_ids
    assert "both-files@pkg/util.py" in util_ids
    all_ids = calc_ids + util_ids
    assert len(all_ids) == len(set(all_ids))
    second = mutants_by_id(doc)["both-files@pkg/util.py"]
    assert second["guardcheck"]["id"] == "both-files"
    assert second["guardcheck"]["part"] == 2
    assert second["guardcheck"]["files"] == ["pkg/calc.py", "pkg/util.py"]
    assert second["replacement"] == "LIMIT = 0"
    assert second["status"] == "Killed"


def test_every_referenced_test_is_defined_in_test_files():
    doc = to_stryker(rich_report())
    defined = {t["id"] for f in doc["testFiles"].values() for t in f["tests"]}
    referenced = {
        test_id
        for m in mutants_by_id(doc).values()
        for test_id in (*m["killedBy"], *m["coveredBy"])
    }
    assert referenced <= defined
    assert {T_ADD, T_CLAMP, T_LIMIT, T_IDLE, T_EXTRA} <= set(nodeids_by_id(doc).values())


def test_test_files_are_keyed_by_path_with_names():
    files = to_stryker(rich_report())["testFiles"]
    assert set(files) == {"tests/test_calc.py", "tests/test_util.py", "tests/test_more.py"}
    util = [(t["name"], t["nodeid"]) for t in files["tests/test_util.py"]["tests"]]
    assert ("TestLimit::test_limit", T_LIMIT) in util
    calc = [(t["name"], t["nodeid"]) for t in files["tests/test_calc.py"]["tests"]]
    assert ("test_clamp[low]", T_CLAMP) in calc


def test_tests_are_referenced_by_short_ids_defined_once_in_test_files():
    """Regression (issue 22, packaging 24.1): `coveredBy` held each covering test's node
    id per mutant, 493 of the 741 MB report of 346 mutants x 26,854 tests, and each
    mutant's `guardcheck.tests` 234 more. Ids are now short, unique, and each test's node
    id is written once, in `testFiles`."""
    doc = to_stryker(rich_report())
    listed = [t for f in doc["testFiles"].values() for t in f["tests"]]
    ids = [t["id"] for t in listed]
    assert len(ids) == len(set(ids))
    assert all(i.isdigit() for i in ids)
    assert len(nodeids_by_id(doc)) == len(listed)
    mutant = mutants_by_id(doc)["clamp-loop"]
    assert mutant["coveredBy"] == [next(t["id"] for t in listed if t["nodeid"] == T_CLAMP)]
    # Each mutant's tests too (a survivor lists all it ran), with no empty messages.
    ran = [t for m in mutants_by_id(doc).values() for t in m["guardcheck"]["tests"]]
    assert ran
    assert {t["id"] for t in ran} <= set(ids)
    assert all(t.get("message", "x") != "" for t in ran)
    assert report_from_json(json.loads(json.dumps(doc))).results == rich_report().results


def test_location_without_span_end_covers_the_spliced_region():
    loc, replacement = location_and_replacement(
        change("pkg/calc.py", CALC, "min(value, high)", "value", with_end=False)
    )
    # "    return min(value, high)" -> "    return value": the end comes from the splice.
    assert loc == {"start": {"line": 8, "column": 12}, "end": {"line": 8, "column": 28}}
    assert replacement == "value"


def test_replacement_is_the_mutated_text_of_the_span():
    loc, replacement = location_and_replacement(change("pkg/calc.py", CALC, "value < low", "True"))
    assert loc == {"start": {"line": 6, "column": 8}, "end": {"line": 6, "column": 19}}
    assert replacement == "True"


def test_the_location_comes_from_the_splice_not_the_matched_span():
    """Regression: the location was computed from the entry's span and a whole-file diff,
    so a span pointing at unchanged text gave a location where nothing changed."""
    good = change("pkg/calc.py", CALC, "a + b", "a - b")
    wrong = dc_replace(good, span=Where("pkg/calc.py", 6, 8, 6, 19))
    loc, replacement = location_and_replacement(wrong)
    assert loc == {"start": {"line": 2, "column": 12}, "end": {"line": 2, "column": 17}}
    assert replacement == "a - b"


def wide_report(mutant_count: int, test_count: int) -> RunReport:
    """`mutant_count` caught mutants of add, each covered by one of `test_count` tests."""
    nodeids = [f"tests/test_wide.py::test_{i}" for i in range(test_count)]
    results = []
    for index in range(mutant_count):
        killer = nodeids[index % test_count]
        rows = tuple(
            Selection(n, n == killer, "executes pkg/calc.py:2" if n == killer else "does not")
            for n in nodeids
        )
        mutant = dc_replace(rich_report().results[0].mutant, id=f"wide-{index}")
        results.append(
            MutantResult(mutant, Status.CAUGHT, killer, (failed(killer),), rows, duration=0.01)
        )
    baseline = [BaselineTest(n, 0.01, "tests/test_wide.py") for n in nodeids]
    return RunReport(root="/p", results=results, baseline=baseline)


def test_the_selection_is_written_once_not_per_mutant(validator):
    """Scale issue: every mutant wrote one selection row per test, so 100 mutants x 5,000
    tests made a 97 MB report. The test ids are written once; a mutant keeps the rows that
    differ from its most common one, and the document stays schema-valid and readable."""
    report = wide_report(mutant_count=40, test_count=200)
    doc = to_stryker(report)
    assert [e.message for e in validator.iter_errors(doc)] == []
    text = json.dumps(doc)
    # A test no mutant ran appears in testFiles, the baseline and the shared id list: a
    # fixed number of times whatever the number of mutants.
    assert text.count('"tests/test_wide.py::test_150"') == 3
    back = report_from_json(json.loads(text))
    assert [r.selection for r in back.results] == [r.selection for r in report.results]
    assert back.results[3].covered_by == ("tests/test_wide.py::test_3",)


def test_a_format_1_report_with_row_by_row_selections_is_still_read():
    """Scale issue: reports written before the shared selection table (format 1, one row
    per test per mutant, each mutant's tests by node id) are still read back by
    `guardcheck merge`."""
    report = rich_report()
    doc = json.loads(json.dumps(to_stryker(report)))
    top = doc["guardcheck"]
    old_rows = {r.mutant.id: r.selection for r in report.results}
    names = nodeids_by_id(doc)
    for entry in doc["files"].values():
        for mutant in entry["mutants"]:
            fields = mutant["guardcheck"]
            # Before format 3 a mutant's tests were named by node id, with every key.
            fields["tests"] = [{"message": "", **t, "id": names[t["id"]]} for t in fields["tests"]]
            fields["selection"] = [
                {"test": s.nodeid, "selected": s.selected, "reason": s.reason}
                for s in old_rows[fields["id"]]
            ]
    top["format"] = 1
    del top["selectionTests"]
    assert report_from_json(doc).results == report.results
