"""A refactor report as console text, Markdown, JSON (version 1) and GitHub annotations."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from guardcheck.refactor.findings import CheckResult, Outcome, RefactorReport
from guardcheck.reports.escaping import code_span, plain, workflow_command

_MARK = {
    Outcome.PASSED: "PASS",
    Outcome.FAILED: "FAIL",
    Outcome.INFO: "INFO",
    Outcome.SKIPPED: "SKIP",
}
_BADGE = {
    Outcome.PASSED: "✅ passed",
    Outcome.FAILED: "❌ failed",
    Outcome.INFO: "ℹ️ info",
    Outcome.SKIPPED: "⏭️ skipped",
}


def verdict(report: RefactorReport) -> str:
    failed = report.failed
    if failed:
        names = ", ".join(c.title.lower() for c in failed)
        return f"refactor check failed: {len(failed)} of {len(report.checks)} check(s) ({names})"
    return f"refactor check passed: {len(report.checks)} check(s)"


def _head(report: RefactorReport) -> str:
    return f"base {report.base} ({report.base_sha[:10]}) against the working tree"


def to_text(report: RefactorReport) -> str:
    lines = [f"guardcheck refactor: {_head(report)}"]
    for check in report.checks:
        lines.append(f"{_MARK[check.outcome]}  {check.title}: {check.summary}")
        for finding in check.findings:
            where = f"{finding.where}: " if finding.where else ""
            lines.append(f"      {where}{finding.message}")
            lines.extend(f"        {detail}" for detail in finding.details)
        lines.extend(f"      note: {note}" for note in check.notes)
    lines.append(verdict(report))
    return "\n".join(lines)


def _markdown_check(check: CheckResult) -> list[str]:
    lines = [f"### {check.title}: {_BADGE[check.outcome]}", "", check.summary, ""]
    for finding in check.findings:
        where = f"{code_span(finding.where)}: " if finding.where else ""
        lines.append(f"- {where}{finding.message}")
        if finding.details:
            lines.extend(["", "  ```text", *(f"  {d}" for d in finding.details), "  ```"])
    lines.extend(f"- *note:* {note}" for note in check.notes)
    return [*lines, ""]


def to_markdown(report: RefactorReport) -> str:
    lines = [
        f"## guardcheck refactor: {_head(report)}",
        "",
        "| check | result | summary |",
        "|---|---|---|",
    ]
    lines.extend(f"| {c.title} | {_BADGE[c.outcome]} | {plain(c.summary)} |" for c in report.checks)
    lines.append("")
    for check in report.checks:
        lines.extend(_markdown_check(check))
    lines.append(f"**{verdict(report)}**")
    return "\n".join(lines) + "\n"


def as_json(report: RefactorReport) -> dict[str, object]:
    return {
        "version": 1,
        "base": report.base,
        "base_sha": report.base_sha,
        "passed": not report.failed,
        "checks": [c.as_json() for c in report.checks],
    }


def annotations(report: RefactorReport) -> list[str]:
    """`::error file=...,line=...::message` per finding of a failed check (warnings for info)."""
    lines = []
    for check in report.checks:
        level = {Outcome.FAILED: "error", Outcome.INFO: "warning"}.get(check.outcome)
        if level is None:
            continue
        for finding in check.findings:
            path = None
            if finding.path:
                path = f"{report.prefix}/{finding.path}" if report.prefix else finding.path
            line = finding.line if path and finding.line else None
            lines.append(
                workflow_command(level, finding.message, file=path, line=line, title=check.title)
            )
    return lines


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def json_text(report: RefactorReport) -> str:
    return json.dumps(as_json(report), indent=2, ensure_ascii=False) + "\n"


# The forms `api.refactor_report` renders, by name.
FORMS: dict[str, Callable[[RefactorReport], str]] = {
    "text": to_text,
    "markdown": to_markdown,
    "json": json_text,
    "annotations": lambda report: "\n".join(annotations(report)),
}
