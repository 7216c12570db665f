"""`--junit`: one JUnit test case per mutant, so any CI system shows survivors natively.

A mutant that fails the gate is a <failure> whose body is its diff (what the tests let
through); a caught or timed-out mutant passes, and its system-out names what caught it.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from guardcheck.model import MutantResult, RunReport, Status
from guardcheck.reports import Gate, counts_phrase, gate_phrase, killer_or_reason


def _seconds(value: float) -> str:
    return f"{value:.3f}"


def _passing_note(result: MutantResult) -> str:
    if result.status is Status.TIMEOUT:
        return f"timeout (counted as caught): {result.reason}"
    if result.status is Status.KNOWN_GAP:
        return f"known gap (accepted): {result.reason}"
    killers = ", ".join(result.killers) or result.reason
    note = f"{result.status.value} by {killers}"
    if result.status is Status.CAUGHT_ELSEWHERE:
        note += f" (expected: {', '.join(result.mutant.killed_by)})"
    return note


def _testcase(parent: ET.Element, result: MutantResult, gate: Gate) -> bool:
    """Append one <testcase>; True when it is a failure."""
    mutant = result.mutant
    case = ET.SubElement(
        parent,
        "testcase",
        classname=mutant.span.path,
        name=mutant.id,
        time=_seconds(result.duration),
    )
    if gate.passes(result):
        ET.SubElement(case, "system-out").text = _passing_note(result)
        return False
    failure = ET.SubElement(
        case,
        "failure",
        message=f"{result.status.value}: {killer_or_reason(result)}",
        type=result.status.value,
    )
    lines = [f"{mutant.span}: {mutant.summary}"]
    if mutant.killed_by:
        lines.append(f"expected killers: {', '.join(mutant.killed_by)}")
    if mutant.killed_by_any:
        lines.append(f"expected killers (any of): {', '.join(mutant.killed_by_any)}")
    failure.text = "\n".join([*lines, "", mutant.diff()])
    return True


def to_junit(report: RunReport, *, gate: Gate | None = None) -> ET.ElementTree:
    gate = gate or Gate()
    root = ET.Element("testsuites", name="guardcheck")
    suite = ET.SubElement(root, "testsuite", name="guardcheck")
    properties = ET.SubElement(suite, "properties")
    for name, value in (
        ("score", f"{report.score:.1f}"),
        ("summary", f"{counts_phrase(report)}, {gate_phrase(report, gate)}"),
        ("baseline_seconds", _seconds(report.baseline_seconds)),
        ("interrupted", str(report.interrupted).lower()),
    ):
        ET.SubElement(properties, "property", name=name, value=value)
    failures = sum(_testcase(suite, result, gate) for result in report.results)
    # Attributes are set after the cases so the counts are the ones actually written.
    for element in (root, suite):
        element.set("tests", str(len(report.results)))
        element.set("failures", str(failures))
        element.set("errors", "0")
        element.set("skipped", "0")
        element.set("time", _seconds(report.wall_seconds))
    ET.indent(root)
    return ET.ElementTree(root)


def write_junit(report: RunReport, path: Path | str, *, gate: Gate | None = None) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    to_junit(report, gate=gate).write(path, encoding="utf-8", xml_declaration=True)
    return path
