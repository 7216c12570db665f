"""One `python -m pytest` of a tree in a subprocess, its results read from JUnit XML."""

from __future__ import annotations

import subprocess
import tempfile
import textwrap
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from guardcheck import pytestrun
from guardcheck.errors import GuardcheckError


@dataclass(frozen=True)
class CaseResult:
    nodeid: str
    failed: bool  # a failure or an error (setup, teardown, collection)
    skipped: bool
    message: str  # one line: why it failed
    file: str | None
    line: int | None  # 1-based
    explanation: tuple[str, ...] = ()  # pytest's `E` lines: the whole assertion diff


@dataclass
class SuiteRun:
    exit_code: int
    cases: dict[str, CaseResult] = field(default_factory=dict)
    output_tail: str = ""  # the end of pytest's output, for a run that produced no XML

    @property
    def failures(self) -> dict[str, CaseResult]:
        return {k: c for k, c in self.cases.items() if c.failed}


@dataclass(frozen=True)
class SuiteRequest:
    root: Path
    paths: tuple[str, ...]
    pytest_args: tuple[str, ...] = ()


def run_suites(requests: Sequence[SuiteRequest], timeout: float) -> list[SuiteRun]:
    """Run each request's tests with the interpreter running guardcheck, all at once
    (each is one pytest process; they share nothing but the CPU)."""
    with tempfile.TemporaryDirectory(prefix="guardcheck-junit-") as scratch:
        started = []
        for index, request in enumerate(requests):
            xml_path = Path(scratch) / f"results-{index}.xml"
            args = [
                "-vv",  # assertion diffs in full, never "...": they are the evidence
                *pytestrun.junit_args(xml_path),  # xunit1 records each case's file and line
                *request.pytest_args,
                *request.paths,
            ]
            process = pytestrun.start(request.root, args, merge_output=True)
            started.append((request, process, xml_path))
        try:
            return [
                _finish(request, process, xml_path, timeout)
                for request, process, xml_path in started
            ]
        finally:
            for _, process, _ in started:
                if process.poll() is None:
                    process.kill()
                    process.wait()


def _finish(
    request: SuiteRequest, process: subprocess.Popen[str], xml_path: Path, timeout: float
) -> SuiteRun:
    try:
        done = pytestrun.finish(process, timeout)
    except subprocess.TimeoutExpired:
        raise GuardcheckError(
            f"the base tests did not finish within {timeout:.0f} s in {request.root}\n"
            "  fix: find the test that hangs with `python -m pytest` at the base, or run the "
            "other checks with --only"
        ) from None
    run = SuiteRun(done.returncode, output_tail=done.tail)
    if xml_path.is_file():
        run.cases = _parse(xml_path)
    return run


def _first_line(text: str | None) -> str:
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    return lines[0] if lines else ""


def _explanation(bad: ET.Element) -> tuple[str, ...]:
    """pytest's `E` lines, their common indentation removed (a diff's own indentation kept)."""
    lines = [line[1:] for line in (bad.text or "").splitlines() if line.startswith("E ")]
    return tuple(textwrap.dedent("\n".join(lines)).splitlines())


def _why(bad: ET.Element) -> str:
    """pytest's own one-line reason; for a collection error, the exception's `E` line."""
    errors = [line[1:].strip() for line in (bad.text or "").splitlines() if line.startswith("E ")]
    message = _first_line(bad.get("message"))
    if errors and (not message or message == "collection failure"):
        return errors[-1]
    return message or _first_line(bad.text)


def _parse(xml_path: Path) -> dict[str, CaseResult]:
    cases: dict[str, CaseResult] = {}
    for case in pytestrun.junit_cases(xml_path):
        bad = case.find("failure")
        if bad is None:
            bad = case.find("error")
        skipped = case.find("skipped") is not None
        message = ""
        explanation: tuple[str, ...] = ()
        if bad is not None:
            message = _why(bad)
            explanation = _explanation(bad)
        line = case.get("line")
        nodeid = pytestrun.junit_nodeid(case)
        previous = cases.get(nodeid)
        failed = bad is not None or (previous is not None and previous.failed)
        cases[nodeid] = CaseResult(
            nodeid,
            failed=failed,
            skipped=skipped and not failed,
            message=message or (previous.message if previous else ""),
            file=case.get("file") or None,
            line=int(line) + 1 if line and line.isdigit() else None,
            explanation=explanation or (previous.explanation if previous else ()),
        )
    return cases
