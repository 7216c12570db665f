"""A review as Markdown (a PR summary), JSON, plain text and GitHub workflow annotations."""

from __future__ import annotations

import json
from collections.abc import Callable

from guardcheck.reports.escaping import (
    code_block,
    code_span,
    html_text,
    one_line,
    plain,
    plain_with_code,
    workflow_command,
)
from guardcheck.review.findings import (
    CATEGORIES,
    SOURCE_READING,
    STALE,
    SURVIVED,
    UNPINNED,
    VACUOUS,
    FlaggedTest,
    ReviewReport,
    Survivor,
)
from guardcheck.review.matrix import CAUGHT_KINDS


def verdict(report: ReviewReport) -> str:
    counts = ", ".join(f"{report.found(c)} {c}" for c in CATEGORIES if report.found(c))
    head = "FAIL" if report.failed else "PASS"
    caught = f"{report.caught}/{report.mutants} mutants caught"
    gate = f" (failing: {', '.join(report.failing)})" if report.failed else ""
    return f"{head}: {caught} since {report.base}" + (f"; {counts}" if counts else "") + gate


CAUGHT_VALUES = frozenset(status.value for status in CAUGHT_KINDS)
# A list of tests longer than this folds into a <details> block.
_FOLD_AFTER = 5


def _gate(category: str, report: ReviewReport) -> str:
    return "" if category in report.fail_on else " (informational)"


def _tests(title: str, category: str, tests: list[FlaggedTest], report: ReviewReport) -> list[str]:
    if not tests:
        return []
    lines = ["", f"### {title}{_gate(category, report)}", ""]
    lines += [
        f"- {code_span(t.nodeid)} ({plain(f'{t.path}:{t.line}')}): {plain(t.reason)}" for t in tests
    ]
    return lines


def _functions_table(report: ReviewReport) -> list[str]:
    if not report.functions:
        return ["No changed function in the source."]
    lines = [
        "| changed function | mutants | caught | survivors |",
        "|---|---:|---:|---:|",
    ]
    lines += [
        f"| {code_span(f'{f.path}::{f.qualname}', in_table=True)} | {f.mutants} | {f.caught} "
        f"| {f.survivors} |"
        for f in report.functions
    ]
    return lines


def _test_list(label: str, tests: tuple[str, ...]) -> list[str]:
    """`label: a, b` on one line, or folded into <details> when long."""
    if not tests:
        return [f"{label}: no test."]
    if len(tests) <= _FOLD_AFTER:
        return [f"{label}: {', '.join(code_span(t) for t in tests)}."]
    return [
        f"<details><summary>{html_text(f'{label}: {len(tests)} tests')}</summary>",
        "",
        *(f"- {code_span(t)}" for t in tests),
        "",
        "</details>",
    ]


def _survivor_lines(report: ReviewReport) -> list[str]:
    """Per changed line with a survivor: the line, each surviving mutant, who executes it."""
    groups = [g for g in report.lines if g.survivors]
    elsewhere = [s for s in report.survivors if not any(s in g.survivors for g in groups)]
    if not groups and not elsewhere:
        return []
    lines = ["", f"### Survivors on changed lines{_gate(SURVIVED, report)}"]
    for group in groups:
        lines += ["", f"**{plain(f'{group.path}:{group.line}')}** {code_span(group.code)}", ""]
        lines += [f"- {_survivor(s)}" for s in group.survivors]
        lines += ["", *_test_list("Executed by", group.ran_by)]
    if elsewhere:
        lines += ["", "Elsewhere in changed functions:", ""]
        lines += [f"- {plain(f'{s.path}:{s.line}')} {_survivor(s)}" for s in elsewhere]
    return lines


def _survivor(s: Survivor) -> str:
    verdict = "" if s.status == "survived" else f"**{plain(s.status)}**: "
    what = plain_with_code(s.mutation) if s.mutation else code_span(s.mutant_id)
    return f"{code_span(s.mutated)} ({what}): {verdict}{plain(s.reason)}"


def _matrix_table(report: ReviewReport) -> list[str]:
    """Per mutant: who killed it, and which added or changed tests ran it and passed."""
    if not report.matrix:
        return []
    lines = [
        "",
        f"<details><summary>Kill matrix: {len(report.matrix)} mutants</summary>",
        "",
        "| where | mutant | verdict | killed by | changed tests that ran it and passed |",
        "|---|---|---|---|---|",
    ]
    for r in report.matrix:
        verdict = r.status
        if not r.caught and r.status in CAUGHT_VALUES:
            verdict += " by source-reading tests only"
        lines.append(
            f"| {plain(f'{r.path}:{r.line}')} | {code_span(r.mutated, in_table=True)} "
            f"| {plain(verdict)} | {_cell_tests(r.killed_by)} "
            f"| {_cell_tests(r.changed_tests_not_killing)} |"
        )
    return [*lines, "", "</details>"]


def _cell_tests(tests: tuple[str, ...]) -> str:
    return ", ".join(code_span(t, in_table=True) for t in tests) or "none"


def to_markdown(report: ReviewReport) -> str:
    icon = ":x:" if report.failed else ":white_check_mark:"
    lines = [f"{icon} **guardcheck review** {plain(verdict(report))}", ""]
    lines += _functions_table(report)
    lines += _survivor_lines(report)
    lines += _tests("Vacuous tests", VACUOUS, report.vacuous, report)
    lines += _tests("Source-reading tests", SOURCE_READING, report.source_reading, report)
    lines += _tests("Tests that do not pin the change", UNPINNED, report.unpinned, report)
    if report.stale:
        lines += ["", f"### Named mutations the change made stale{_gate(STALE, report)}", ""]
        for e in report.stale:
            where = plain(f"{e.path}:{e.line}, target {e.target}")
            lines += [f"- {code_span(e.entry_id)} ({where}):", "", code_block(e.message)]
    lines += _matrix_table(report)
    if report.notes:
        lines += ["", *(f"_{plain(note)}_" for note in report.notes)]
    return "\n".join(lines) + "\n"


def to_text(report: ReviewReport) -> str:
    """The console form; every value on one line, so no text of the project starts a line."""
    lines = [verdict(report)]
    for s in report.survivors:
        status = "" if s.status == "survived" else f" [{s.status}]"
        lines.append(f"survived{status} {s.path}:{s.line}: {s.mutated}  ({s.reason})")
    for category, tests in (
        (VACUOUS, report.vacuous),
        (SOURCE_READING, report.source_reading),
        (UNPINNED, report.unpinned),
    ):
        lines += [f"{category} {t.nodeid}: {t.reason}" for t in tests]
    lines += [f"{e.kind} {e.entry_id} ({e.path}:{e.line})" for e in report.stale]
    lines += [f"note: {n}" for n in report.notes]
    return "\n".join([lines[0], *(f"  {one_line(line)}" for line in lines[1:])])


def annotations(report: ReviewReport) -> list[str]:
    """One `::warning` per finding, on its file and line; every value escaped."""

    def warning(path: str, line: int, message: str) -> str:
        return workflow_command("warning", message, file=path, line=line)

    out = [
        warning(s.path, s.line, f"{s.status}: {s.mutated} ({s.reason})") for s in report.survivors
    ]
    for category, tests in (
        (VACUOUS, report.vacuous),
        (SOURCE_READING, report.source_reading),
        (UNPINNED, report.unpinned),
    ):
        out += [warning(t.path, t.line, f"{category}: {t.nodeid}: {t.reason}") for t in tests]
    out += [warning(e.path, e.line, f"{e.kind}: {e.entry_id}") for e in report.stale]
    return out


def json_text(report: ReviewReport) -> str:
    return json.dumps(report.as_json(), indent=2) + "\n"


# The forms `api.review_report` renders, by name.
FORMS: dict[str, Callable[[ReviewReport], str]] = {
    "text": to_text,
    "markdown": to_markdown,
    "json": json_text,
    "annotations": lambda report: "\n".join(annotations(report)),
}
