"""`--markdown`: a summary to paste into a PR comment or `$GITHUB_STEP_SUMMARY`.

Ordered for a reviewer: the verdict first, then what needs action (gate failures with
their diffs), then the caught mutants compactly, folded away.
"""

from __future__ import annotations

from pathlib import Path

from guardcheck.model import MutantResult, RunReport, Status
from guardcheck.reports import (
    Gate,
    counts_phrase,
    gate_phrase,
    killer_or_reason,
    location,
    run_label,
)
from guardcheck.reports.escaping import code_block, code_span, html_code, html_text, plain


def _cell(text: str) -> str:
    """Plain text in a table cell: one line, HTML and Markdown punctuation escaped."""
    return plain(text)


def _code(text: str) -> str:
    """Code in a table cell."""
    return code_span(text, in_table=True)


def _headline(report: RunReport, gate: Gate) -> list[str]:
    passed = gate.passed(report)
    mark = "✅" if passed else "❌"
    verdict = gate_phrase(report, gate)
    label = run_label(report)
    lines = [
        f"## {mark} guardcheck{f' ({label})' if label else ''}: {verdict}",
        "",
        f"**Mutation score {report.score:.1f}%**. {counts_phrase(report)} "
        f"in {report.wall_seconds:.1f} s (baseline {report.baseline_seconds:.1f} s).",
    ]
    if report.interrupted:
        lines += ["", "> The run was interrupted: only the mutants listed below were tested."]
    return lines


def _failures_table(failures: list[MutantResult]) -> list[str]:
    lines = [
        f"### Mutants that fail the gate ({len(failures)})",
        "",
        "| Mutant | Verdict | Reason | Where |",
        "| --- | --- | --- | --- |",
    ]
    for result in failures:
        lines.append(
            f"| {_code(result.mutant.id)} | **{result.status.value}** "
            f"| {_cell(killer_or_reason(result))} | {_code(location(result.mutant))} |"
        )
    return lines


def _diffs(failures: list[MutantResult]) -> list[str]:
    lines: list[str] = []
    for result in failures:
        mutant = result.mutant
        lines += [
            "<details>",
            # GitHub renders no Markdown inside <summary>, so this part is HTML.
            f"<summary>{html_code(mutant.id)} ({result.status.value}): "
            f"{html_text(mutant.summary)}</summary>",
            "",
        ]
        if mutant.killed_by:
            lines += [f"Expected killers: {', '.join(code_span(k) for k in mutant.killed_by)}", ""]
        if mutant.killed_by_any:
            named = ", ".join(code_span(k) for k in mutant.killed_by_any)
            lines += [f"Expected killers (any of): {named}", ""]
        lines += [code_block(mutant.diff(), "diff"), "", "</details>", ""]
    return lines


def _passing(passing: list[MutantResult]) -> list[str]:
    lines = [
        "<details>",
        f"<summary>Caught ({len(passing)})</summary>",
        "",
        "| Mutant | Verdict | Caught by | Where |",
        "| --- | --- | --- | --- |",
    ]
    for result in passing:
        detail = killer_or_reason(result)
        detail = _code(detail) if result.killers else _cell(detail)  # test ids read as code
        lines.append(
            f"| {_code(result.mutant.id)} | {result.status.value} "
            f"| {detail} | {_code(location(result.mutant))} |"
        )
    return [*lines, "", "</details>"]


def _known_gaps(gaps: list[MutantResult]) -> list[str]:
    """Accepted survivors, apart from the caught ones: a reviewer should see them."""
    lines = [
        f"### Known gaps ({len(gaps)})",
        "",
        "| Mutant | Why it is accepted | Where |",
        "| --- | --- | --- |",
    ]
    for result in gaps:
        lines.append(
            f"| {_code(result.mutant.id)} | {_cell(result.mutant.expect_reason)} "
            f"| {_code(location(result.mutant))} |"
        )
    return lines


def to_markdown(report: RunReport, *, gate: Gate | None = None) -> str:
    gate = gate or Gate()
    failures = gate.failures(report)
    gaps = [r for r in report.results if r.status is Status.KNOWN_GAP]
    passing = [r for r in report.results if gate.passes(r) and r.status is not Status.KNOWN_GAP]
    sections = ["\n".join(_headline(report, gate))]
    if failures:
        sections.append("\n".join(_failures_table(failures)))
        sections.append("\n".join(_diffs(failures)).strip())
    if gaps:
        sections.append("\n".join(_known_gaps(gaps)))
    if passing:
        sections.append("\n".join(_passing(passing)))
    return "\n\n".join(sections) + "\n"


def write_markdown(report: RunReport, path: Path | str, *, gate: Gate | None = None) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(to_markdown(report, gate=gate), encoding="utf-8")
    return path
