"""A review as Markdown (a PR summary), JSON, plain text and GitHub workflow annotations."""

from __future__ import annotations

import json

from guardcheck.review.findings import (
    CATEGORIES,
    SOURCE_READING,
    SURVIVED,
    UNPINNED,
    VACUOUS,
    FlaggedTest,
    ReviewReport,
)


def verdict(report: ReviewReport) -> str:
    counts = ", ".join(f"{report.found(c)} {c}" for c in CATEGORIES if report.found(c))
    head = "FAIL" if report.failed else "PASS"
    caught = f"{report.caught}/{report.mutants} mutants caught"
    gate = f" (failing: {', '.join(report.failing)})" if report.failed else ""
    return f"{head}: {caught} since {report.base}" + (f"; {counts}" if counts else "") + gate


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _tests(title: str, category: str, tests: list[FlaggedTest], report: ReviewReport) -> list[str]:
    if not tests:
        return []
    gate = "" if category in report.fail_on else " (informational)"
    lines = ["", f"### {title}{gate}", ""]
    lines += [f"- `{t.nodeid}` ({t.path}:{t.line}): {t.reason}" for t in tests]
    return lines


def to_markdown(report: ReviewReport) -> str:
    icon = ":x:" if report.failed else ":white_check_mark:"
    lines = [f"{icon} **guardcheck review** {_cell(verdict(report))}", ""]
    if report.functions:
        lines += [
            "| changed function | mutants | caught | survivors | killing tests |",
            "|---|---:|---:|---:|---|",
        ]
        for f in report.functions:
            killers = ", ".join(f"`{k}`" for k in f.killers) or "none"
            lines.append(
                f"| `{f.path}::{f.qualname}` | {f.mutants} | {f.caught} | {f.survivors} "
                f"| {_cell(killers)} |"
            )
    else:
        lines.append("No changed function in the source.")
    if report.survivors:
        gate = "" if SURVIVED in report.fail_on else " (informational)"
        lines += ["", f"### Survivors on changed lines{gate}", ""]
        for s in report.survivors:
            lines.append(f"- {s.path}:{s.line} `{_cell(s.mutated)}` ({s.mutant_id}): {s.reason}")
    lines += _tests("Vacuous tests", VACUOUS, report.vacuous, report)
    lines += _tests("Source-reading tests", SOURCE_READING, report.source_reading, report)
    lines += _tests("Tests that do not pin the change", UNPINNED, report.unpinned, report)
    if report.stale:
        lines += ["", "### Named mutations the change made stale", ""]
        for e in report.stale:
            lines += [f"- `{e.entry_id}` ({e.path}:{e.line}, target {e.target}):", "", "```"]
            lines += [e.message, "```"]
    if report.notes:
        lines += ["", *(f"_{note}_" for note in report.notes)]
    return "\n".join(lines) + "\n"


def to_text(report: ReviewReport) -> str:
    lines = [verdict(report)]
    for s in report.survivors:
        lines.append(f"  survived {s.path}:{s.line}: {s.mutated}  ({s.reason})")
    for category, tests in (
        (VACUOUS, report.vacuous),
        (SOURCE_READING, report.source_reading),
        (UNPINNED, report.unpinned),
    ):
        lines += [f"  {category} {t.nodeid}: {t.reason}" for t in tests]
    lines += [f"  stale {e.entry_id} ({e.path}:{e.line})" for e in report.stale]
    lines += [f"  note: {n}" for n in report.notes]
    return "\n".join(lines)


def _escape(text: str) -> str:
    # GitHub's workflow-command escaping of a message: %, CR and LF.
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def annotations(report: ReviewReport) -> list[str]:
    out = [
        f"::warning file={s.path},line={s.line}::{_escape(f'survived: {s.mutated} ({s.reason})')}"
        for s in report.survivors
    ]
    for category, tests in (
        (VACUOUS, report.vacuous),
        (SOURCE_READING, report.source_reading),
        (UNPINNED, report.unpinned),
    ):
        for t in tests:
            message = _escape(f"{category}: {t.nodeid}: {t.reason}")
            out.append(f"::warning file={t.path},line={t.line}::{message}")
    out += [
        f"::warning file={e.path},line={e.line}::{_escape(f'stale: {e.entry_id}')}"
        for e in report.stale
    ]
    return out


def json_text(report: ReviewReport) -> str:
    return json.dumps(report.as_json(), indent=2) + "\n"


# The forms `api.review_report` renders, by name.
FORMS = {
    "text": to_text,
    "markdown": to_markdown,
    "json": json_text,
    "annotations": lambda report: "\n".join(annotations(report)),
}
