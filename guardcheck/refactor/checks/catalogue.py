"""Check 4: the named mutations across the change.

The catalogue at the base runs against the code at the base (in its
worktree), today's against today's code, both through `api.run` with their
output in a scratch folder. An entry caught at the base and not caught now
is a regression in test strength. An entry that applied at the base and is
stale (or otherwise invalid) now is reported with the catalogue's own
message; the entries that are still valid run regardless.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from guardcheck import api
from guardcheck.errors import CatalogueInvalid, GuardcheckError, Problem
from guardcheck.model import MutantResult, RunReport
from guardcheck.options import RunOptions
from guardcheck.refactor.findings import CheckResult, Finding, Outcome
from guardcheck.refactor.trees import Trees

KEY = "mutations"
TITLE = "Named mutations across the change"


@dataclass
class Side:
    """One revision's catalogue: what it declares, what is invalid, and what the run said."""

    rows: dict[str, api.Row] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    results: dict[str, MutantResult] = field(default_factory=dict)
    error: str | None = None  # the run could not happen (red baseline, broken catalogue)


def _has_catalogue(options: RunOptions) -> bool:
    return any(options.resolve(path).exists() for path in options.catalogue)


def _run_side(options: RunOptions) -> Side:
    side = Side()
    try:
        side.rows = {row.id: row for row in api.list_entries(options).rows}
        try:
            api.check(options)
        except CatalogueInvalid as exc:
            side.problems = list(exc.problems)
        invalid = {p.entry_id for p in side.problems}
        if any(p.entry_id is None for p in side.problems):
            side.error = "the catalogue itself is invalid:\n" + "\n".join(
                p.render() for p in side.problems if p.entry_id is None
            )
            return side
        valid = [entry_id for entry_id in side.rows if entry_id not in invalid]
        if valid:
            report: RunReport = api.run(options, mutants=api.show(options, valid))
            side.results = {r.mutant.id: r for r in report.results}
            if report.incomplete or report.interrupted:
                side.error = f"the run did not finish: {report.incomplete or 'interrupted'}"
    except GuardcheckError as exc:  # a red baseline, an unusable output folder, ...
        side.error = str(exc)
    return side


def _declaration(options: RunOptions, row: api.Row) -> list[str] | None:
    """The entry's lines in its catalogue file: its `[[mutation]]` header to the next table."""
    try:
        lines = options.resolve(Path(row.catalogue)).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    body = lines[row.catalogue_line - 1 :]
    end = next(
        (i for i, line in enumerate(body[1:], 1) if line.lstrip().startswith("[")), len(body)
    )
    return [line.rstrip() for line in body[:end] if line.strip()]


def _updated(trees: Trees, then: api.Row | None, now: api.Row | None) -> bool:
    if then is None or now is None:
        return True
    before = _declaration(trees.then, then)
    return before is None or before != _declaration(trees.today, now)


def _where(row: api.Row | None) -> tuple[str | None, int | None]:
    return (row.catalogue, row.catalogue_line) if row is not None else (None, None)


def check_mutations(trees: Trees) -> CheckResult:
    then_options = trees.then.with_overrides(output=trees.scratch / "mutations-base")
    now_options = trees.today.with_overrides(output=trees.scratch / "mutations-now")
    if not _has_catalogue(then_options) and not _has_catalogue(now_options):
        return CheckResult(
            KEY, TITLE, Outcome.SKIPPED, "no catalogue at the base or today: nothing to compare"
        )
    then, now = _run_side(then_options), _run_side(now_options)
    notes: list[str] = []
    findings: list[Finding] = []
    if then.error:
        notes.append(
            f"the base catalogue could not be run, so nothing counts as caught "
            f"before: {then.error.splitlines()[0]}"
        )
    if now.error:
        first, *rest = now.error.splitlines()
        findings.append(
            Finding(f"today's catalogue could not be run: {first}", details=tuple(rest))
        )
    caught_then = {i for i, r in then.results.items() if trees.today.gate.passes(r)}
    problems_now = {p.entry_id: p for p in now.problems if p.entry_id}
    for entry_id in sorted(then.results):
        path, line = _where(now.rows.get(entry_id))
        if entry_id in problems_now:
            problem = problems_now[entry_id]
            then_row, now_row = then.rows.get(entry_id), now.rows.get(entry_id)
            changed = (
                "updated in this change, but not to today's code"
                if _updated(trees, then_row, now_row)
                else "not updated in this change"
            )
            findings.append(
                Finding(
                    f"{entry_id}: applied at the base, {problem.kind} now ({changed})",
                    path=path,
                    line=line,
                    details=tuple(problem.render().splitlines()),
                )
            )
            continue
        result = now.results.get(entry_id)
        if entry_id in caught_then and result is not None and not trees.today.gate.passes(result):
            killers = ", ".join(then.results[entry_id].killers) or "its tests"
            findings.append(
                Finding(
                    f"{entry_id}: caught at the base by {killers}; {result.status} now: "
                    f"{result.reason}",
                    path=path,
                    line=line,
                )
            )
    gone = sorted(set(then.rows) - set(now.rows))
    if gone:
        notes.append(f"deleted from the catalogue since the base: {', '.join(gone)}")
    added = sorted(set(now.rows) - set(then.rows))
    if added:
        notes.append(f"new since the base: {', '.join(added)}")
    weak_then = sorted(set(then.results) - caught_then)
    if weak_then:
        notes.append(f"not caught at the base either, so not a regression: {', '.join(weak_then)}")
    caught_now = sum(1 for r in now.results.values() if trees.today.gate.passes(r))
    summary = (
        f"{len(caught_then)} of {len(then.results)} caught at the base, "
        f"{caught_now} of {len(now.results)} caught now"
    )
    regressions = len(findings) - (1 if now.error else 0)
    if now.error:
        summary = f"today's catalogue could not be run ({now.error.splitlines()[0]})"
    elif regressions:
        summary = f"{regressions} regression(s): " + summary
    return CheckResult(
        KEY, TITLE, Outcome.FAILED if findings else Outcome.PASSED, summary, findings, notes
    )
