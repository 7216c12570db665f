"""Check 4: the named mutations across the change.

The catalogue at the base runs against the code at the base (in its
worktree), today's against today's code, both through `pipeline.run` with their
output in a scratch folder. An entry caught at the base and not caught now
is a regression in test strength. An entry that applied at the base and is
stale (or otherwise invalid) now is reported with the catalogue's own
message; the entries that are still valid run regardless.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from guardcheck.errors import CatalogueInvalid, GuardcheckError, Problem
from guardcheck.exitcodes import ExitCode
from guardcheck.model import MutantResult, RunReport, Status
from guardcheck.options import RunOptions
from guardcheck.pipeline.catalogue import check, list_entries, show
from guardcheck.pipeline.run import run
from guardcheck.refactor.findings import CheckResult, Finding, Outcome
from guardcheck.refactor.trees import Trees

if TYPE_CHECKING:
    from guardcheck.catalogue.listing import Row

KEY = "mutations"
TITLE = "Named mutations across the change"


@dataclass
class Side:
    """One revision's catalogue: what it declares, what is invalid, and what the run said."""

    rows: dict[str, Row] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    results: dict[str, MutantResult] = field(default_factory=dict)
    error: str | None = None  # the run could not happen (red baseline, broken catalogue)
    red: list[str] = field(default_factory=list)  # node ids of a red baseline
    empty: bool = False  # no catalogue, or one without entries

    @property
    def red_lines(self) -> list[str]:
        """The `  node (failed): why` lines under the first line of a red baseline."""
        lines = []
        for line in (self.error or "").splitlines()[1:]:
            if not line.startswith("  "):
                break
            lines.append(line)
        return lines


def _has_catalogue(options: RunOptions) -> bool:
    return any(options.resolve(path).exists() for path in options.catalogue)


def _run_side(options: RunOptions) -> Side:
    side = Side()
    if not _has_catalogue(options):
        side.empty = True
        return side
    try:
        side.rows = {row.id: row for row in list_entries(options).rows}
        try:
            check(options)
        except CatalogueInvalid as exc:
            side.problems = list(exc.problems)
        invalid = {p.entry_id for p in side.problems}
        if not side.rows and all(p.kind == "empty" for p in side.problems):
            side.empty = True
            return side
        if any(p.entry_id is None for p in side.problems):
            side.error = "the catalogue itself is invalid:\n" + "\n".join(
                p.render() for p in side.problems if p.entry_id is None
            )
            return side
        valid = [entry_id for entry_id in side.rows if entry_id not in invalid]
        if valid:
            report: RunReport = run(options, mutants=show(options, valid))
            side.results = {r.mutant.id: r for r in report.results}
            if report.incomplete or report.interrupted:
                side.error = f"the run did not finish: {report.incomplete or 'interrupted'}"
    except GuardcheckError as exc:  # a red baseline, an unusable output folder, ...
        side.error = str(exc)
        if exc.code is ExitCode.BASELINE_FAILED and side.error.startswith(_RED):
            side.red = [_red_test(line) for line in side.red_lines]
    return side


_RED = "baseline failed:"


def _red_test(line: str) -> str:
    """`  tests/x.py::test_y (failed): why` -> the node id."""
    return line.strip().split(" (", 1)[0]


def _declaration(options: RunOptions, row: Row) -> list[str] | None:
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


def _updated(trees: Trees, then: Row | None, now: Row | None) -> bool:
    if then is None or now is None:
        return True
    before = _declaration(trees.then, then)
    return before is None or before != _declaration(trees.today, now)


def _where(row: Row | None) -> tuple[str | None, int | None]:
    return (row.catalogue, row.catalogue_line) if row is not None else (None, None)


def _problem_finding(
    trees: Trees, entry_id: str, problem: Problem, then: Side, now: Side
) -> Finding:
    if problem.kind == "bug-back":
        source = next((d[4:] for d in problem.details if d.startswith("at: ")), "")
        path, _, line = source.rpartition(":")
        return Finding(
            f"today's code already contains mutation {entry_id} (the bug it guards is back)",
            path=path or None,
            line=int(line) if line.isdigit() else None,
            details=tuple(problem.render().splitlines()),
        )
    then_row, now_row = then.rows.get(entry_id), now.rows.get(entry_id)
    changed = (
        "updated in this change, but not to today's code"
        if _updated(trees, then_row, now_row)
        else "not updated in this change"
    )
    path, line = _where(now_row)
    return Finding(
        f"{entry_id}: applied at the base, {problem.kind} now ({changed})",
        path=path,
        line=line,
        details=tuple(problem.render().splitlines()),
    )


def _regression(entry_id: str, before: MutantResult, now: MutantResult, row: Row | None) -> Finding:
    path, line = _where(row)
    caught_by = ", ".join(before.killers) or "its tests"
    if now.status is Status.WEAKENED:
        weak = [k for k in now.mutant.killed_by if not any(is_named(k, t) for t in now.killers)]
        still = ", ".join(now.killers) or "another test"
        return Finding(
            f"{entry_id}: weakened: the named killer {', '.join(weak) or 'of killed_by'} "
            f"passed against it now (caught at the base by {caught_by}; still caught by "
            f"{still})",
            path=path,
            line=line,
        )
    return Finding(
        f"{entry_id}: caught at the base by {caught_by}; {now.status} now: {now.reason}",
        path=path,
        line=line,
    )


def is_named(named: str, nodeid: str) -> bool:
    """Does a `killed_by` id stand for this test (itself, its class, or any parametrization)?"""
    bare = nodeid.split("[", 1)[0]
    return named in (nodeid, bare) or bare.startswith(named + "::")


def _red_today(now: Side, reported: set[str], back: list[Finding]) -> CheckResult | None:
    """Today's suite is red: say it once, without the tests old-tests already blamed (the
    bugs back in today's code are known before any test runs, so they are kept)."""
    if not now.red:
        return None
    lines = zip(now.red_lines, now.red, strict=True)
    fresh = [line for line, test in lines if test not in reported]
    findings = list(back)
    if fresh:
        findings.append(
            Finding(
                f"today's tests are red, so no mutation can be judged: {len(fresh)} test(s) "
                "fail without any mutation",
                details=tuple(line.strip() for line in fresh),
            )
        )
    where = "" if fresh else ", reported under old tests on new code"
    summary = f"today's tests are red ({len(now.red)} failing test(s){where})"
    if back:
        summary = f"{len(back)} bug(s) back in today's code; " + summary
    outcome = Outcome.FAILED if findings else Outcome.SKIPPED
    return CheckResult(
        KEY, TITLE, outcome, f"skipped: {summary}" if not back else summary, findings
    )


def check_mutations(trees: Trees, reported: set[str] | None = None) -> CheckResult:
    """`reported`: node ids the old-tests check already reported as failing today."""
    then_options = trees.then.with_overrides(output=trees.scratch / "mutations-base")
    now_options = trees.today.with_overrides(output=trees.scratch / "mutations-now")
    then, now = _run_side(then_options), _run_side(now_options)
    if then.empty and now.empty:
        return CheckResult(KEY, TITLE, Outcome.SKIPPED, "skipped: no catalogue")
    back = [
        _problem_finding(trees, p.entry_id, p, then, now)
        for p in now.problems
        if p.entry_id and p.kind == "bug-back"
    ]
    red = _red_today(now, reported or set(), back)
    if red is not None:
        return red
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
    for entry_id, problem in problems_now.items():
        if entry_id in then.results or problem.kind == "bug-back":
            findings.append(_problem_finding(trees, entry_id, problem, then, now))
    for entry_id in sorted(then.results):
        result = now.results.get(entry_id)
        if entry_id in caught_then and result is not None and not trees.today.gate.passes(result):
            findings.append(
                _regression(entry_id, then.results[entry_id], result, now.rows.get(entry_id))
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
