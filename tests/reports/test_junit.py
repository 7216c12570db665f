"""The JUnit report: parses, one case per mutant, gate failures are <failure>s."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from support.reports import T_ADD, T_CLAMP, all_caught_report, rich_report

from guardcheck.model import RunReport
from guardcheck.reports import Gate
from guardcheck.reports.junit import write_junit


def parse(report: RunReport, tmp_path, gate: Gate | None = None) -> ET.Element:
    path = write_junit(report, tmp_path / "sub" / "junit.xml", gate=gate)
    return ET.parse(path).getroot()


def cases(root: ET.Element) -> dict[str, ET.Element]:
    return {case.get("name"): case for case in root.iter("testcase")}


def test_parses_with_one_suite_and_one_case_per_mutant(tmp_path):
    root = parse(rich_report(), tmp_path)
    assert root.tag == "testsuites"
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == ["guardcheck"]
    assert len(cases(root)) == 8
    assert suites[0].get("tests") == "8"


def test_gate_failures_are_failures_and_counted(tmp_path):
    root = parse(rich_report(), tmp_path)
    failed = {name for name, case in cases(root).items() if case.find("failure") is not None}
    assert failed == {"clamp-no-high", "limit-eleven", "clamp-low-eq", "limit-inactive"}
    suite = root.find("testsuite")
    assert suite.get("failures") == "4"
    assert root.get("failures") == "4"
    assert suite.get("errors") == "0"


def test_failure_carries_verdict_reason_and_diff(tmp_path):
    failure = cases(parse(rich_report(), tmp_path))["clamp-no-high"].find("failure")
    assert failure.get("type") == "survived"
    assert failure.get("message") == "survived: 2 tests passed"
    body = failure.text
    assert f"expected killers: {T_CLAMP}" in body
    assert "-    return min(value, high)" in body
    assert "+    return value" in body


def test_caught_and_timeout_pass_naming_the_killer(tmp_path):
    by_name = cases(parse(rich_report(), tmp_path))
    caught = by_name["add-minus"]
    assert caught.find("failure") is None
    assert caught.findtext("system-out") == f"caught by {T_ADD}"
    assert caught.get("classname") == "pkg/calc.py"
    assert caught.get("time") == "0.050"
    timeout = by_name["clamp-loop"]
    assert timeout.find("failure") is None
    assert "timeout" in timeout.findtext("system-out")


def test_caught_elsewhere_passes_when_allowed(tmp_path):
    root = parse(rich_report(), tmp_path, Gate(allow_caught_elsewhere=True))
    case = cases(root)["clamp-low-eq"]
    assert case.find("failure") is None
    assert f"expected: {T_CLAMP}" in case.findtext("system-out")
    assert root.get("failures") == "3"


def test_ids_with_markup_characters_survive(tmp_path):
    assert "pkg/calc.py:2:14: replace + with * [x]" in cases(parse(rich_report(), tmp_path))


def test_all_caught_has_no_failures(tmp_path):
    root = parse(all_caught_report(), tmp_path)
    assert root.get("failures") == "0"
    assert len(cases(root)) == 2
    props = {p.get("name"): p.get("value") for p in root.iter("property")}
    assert props["score"] == "100.0"
    assert "gate passed" in props["summary"]
