"""One review, start to finish: scope, the kill matrix, then each finding."""

from __future__ import annotations

from pathlib import Path

from guardcheck import api
from guardcheck.errors import CatalogueInvalid, GuardcheckError
from guardcheck.exitcodes import ExitCode
from guardcheck.gitbase import Base, resolve_base
from guardcheck.model import Mutant, MutantResult, Status
from guardcheck.options import RunOptions
from guardcheck.review import audit, pinning, scope
from guardcheck.review.diff import Change, Function, build_change, functions_of
from guardcheck.review.findings import (
    FlaggedTest,
    FunctionRow,
    ReviewReport,
    StaleEntry,
    Survivor,
)
from guardcheck.review.request import ReviewRequest


def review(request: ReviewRequest) -> ReviewReport:
    options = request.options
    root = options.root
    base = resolve_base(root, request.base, command="review")
    change = build_change(root, api.changed_lines_since(root, base.sha, []))
    report = ReviewReport(base.label, base.sha, request.fail_on)
    report.changed_files = sorted(change.lines)

    catalogue, stale = _catalogue(options, change)
    report.stale = stale
    sources = _source_files(options, change)
    operator = api.operator_mutants(options, sources, {p: change.lines[p] for p in sources})
    if not request.all_mutants:
        operator = scope.likeliest_per_line(operator)
    mutants = [m for m in catalogue if scope.touches_change(m, change)] + operator
    report.in_scope = [m.id for m in mutants]

    results: list[MutantResult] = []
    measured = options.with_overrides(matrix=True, source=options.source or tuple(sources) or None)
    if mutants:
        results = _matrix(measured, mutants)
    tests = scope.changed_tests(change)
    test_ids = [t.nodeid() for t in tests]

    # Every test that might count: the killers, and the new or changed tests.
    killers = sorted({k for r in results for k in r.killers})
    audited = sorted(set(killers) | set(test_ids))
    roots = [measured.resolve(Path(s)) for s in measured.source]
    opened = audit.opened_sources(root, audited, roots, request.timeout)
    test_files = sorted({t.split("::")[0] for t in audited})
    linted = audit.lint_flags(root, test_files)
    reading = _source_reading(opened, linted, root)
    report.source_reading = reading
    readers = {t.nodeid for t in reading}

    _judge(report, results, readers, change)
    report.vacuous = _vacuous(tests, results)
    # Listed whether or not it gates: informational by default.
    report.unpinned = _unpinned(root, base, change, tests, request.timeout)
    if not mutants:
        report.notes.append("no mutant in scope: the change touches no mutable source line")
    return report


def _matrix(options: RunOptions, mutants: list[Mutant]) -> list[MutantResult]:
    """Every mutant's results; a run that did not finish is no basis for findings."""
    run = api.run(options, mutants=mutants)
    if run.interrupted:
        raise KeyboardInterrupt
    if run.incomplete:
        raise GuardcheckError(
            f"the mutant run stopped early ({run.incomplete}); no findings were judged",
            ExitCode.INCOMPLETE,
        )
    return run.results


def _catalogue(options: RunOptions, change: Change) -> tuple[list[Mutant], list[StaleEntry]]:
    """The catalogue's buildable mutants, and the broken entries whose target changed."""
    if not any(options.resolve(p).exists() for p in options.catalogue):
        return [], []
    try:
        return api.check(options), []
    except CatalogueInvalid as exc:
        problems = exc.problems
    listing = api.list_entries(options)
    target = {row.id: row.file for row in listing.rows}
    broken = {p.entry_id for p in problems if p.entry_id}
    stale = [
        StaleEntry(
            entry_id=p.entry_id,
            path=p.where.path if p.where else "",
            line=p.where.line if p.where else 0,
            target=target[p.entry_id],
            message=p.render(),
        )
        for p in problems
        if p.entry_id and target.get(p.entry_id) in change.lines
    ]
    good = [row.id for row in listing.rows if row.id not in broken and not row.problems]
    return (api.show(options, good) if good else []), stale


def _source_files(options: RunOptions, change: Change) -> list[str]:
    """Changed non-test `.py` files, under `source` when it is configured."""
    files = change.source_files()
    if not options.source:
        return files
    roots = [Path(s).as_posix().rstrip("/") for s in options.source]
    return [f for f in files if any(f == r or f.startswith(f"{r}/") for r in roots)]


def _source_reading(
    opened: dict[str, list[str]], linted: dict[str, str], root: Path
) -> list[FlaggedTest]:
    flagged: dict[str, str] = {}
    for nodeid, paths in opened.items():
        flagged[nodeid] = f"opens {', '.join(paths)} while it runs"
    for test, message in linted.items():
        hits = [n for n in opened if scope.names(test, [n])]
        if not hits:
            flagged[test] = f"source-reading (lint-tests, {message})"
    return [FlaggedTest(n, *_place(n, root), reason=why) for n, why in sorted(flagged.items())]


def _place(nodeid: str, root: Path) -> tuple[str, int]:
    path = nodeid.split("::")[0]
    function = nodeid.split("[")[0]
    file = root / path
    if file.is_file():
        for f in functions_of(path, file.read_text(encoding="utf-8")):
            if f.nodeid() == function:
                return path, f.start
    return path, 1


def _judge(
    report: ReviewReport, results: list[MutantResult], readers: set[str], change: Change
) -> None:
    rows: dict[tuple[str, str], FunctionRow] = {}
    for path in change.source_files():
        for f in change.changed_functions(path):
            rows[(path, f.qualname)] = FunctionRow(path, f.qualname, f.start, 0, 0, 0, ())
    for result in results:
        honest = [k for k in result.killers if not scope.names_any(readers, k)]
        mutant = result.mutant
        span = mutant.span
        function = scope.function_at(change, span.path, span.line)
        caught = bool(honest) or result.status is Status.TIMEOUT
        reason = _survival(result, honest)
        if caught:
            report.caught += 1
        else:
            report.survivors.append(
                Survivor(
                    mutant.id,
                    span.path,
                    span.line,
                    _mutated_line(mutant),
                    reason,
                    function.qualname if function else None,
                )
            )
        report.mutants += 1
        if function is not None:
            key = (span.path, function.qualname)
            row = rows.get(key) or FunctionRow(
                span.path, function.qualname, function.start, 0, 0, 0, ()
            )
            rows[key] = FunctionRow(
                row.path,
                row.qualname,
                row.line,
                row.mutants + 1,
                row.caught + caught,
                row.survivors + (not caught),
                tuple(sorted({*row.killers, *honest})),
            )
    report.functions = sorted(rows.values(), key=lambda r: (r.path, r.line))


def _survival(result: MutantResult, honest: list[str]) -> str:
    if result.killers and not honest:
        return "caught only by source-reading tests: " + ", ".join(result.killers)
    if result.status is Status.ERROR:
        return f"no verdict: {result.reason}"
    return result.reason


def _mutated_line(mutant: Mutant) -> str:
    change = mutant.changes[0]
    lines = change.mutated.splitlines()
    at = mutant.span.line - 1
    return lines[at].strip() if 0 <= at < len(lines) else ""


def _vacuous(tests: list[Function], results: list[MutantResult]) -> list[FlaggedTest]:
    flagged = []
    for test in tests:
        test_id = test.nodeid()
        runs = any(scope.names(test_id, r.covered_by) for r in results)
        kills = any(scope.names(test_id, r.killers) for r in results)
        if runs and not kills:
            flagged.append(
                FlaggedTest(
                    test_id,
                    test.path,
                    test.start,
                    "runs the changed code but catches none of its mutants",
                )
            )
    return flagged


def _unpinned(
    root: Path, base: Base, change: Change, tests: list[Function], timeout: float
) -> list[FlaggedTest]:
    copied = [p for p in change.lines if p in change.test_files() or p.endswith("conftest.py")]
    by_id = {t.nodeid(): t for t in tests}
    passing = pinning.passing_on_base(root, base, copied, list(by_id), timeout)
    return [
        FlaggedTest(t, by_id[t].path, by_id[t].start, f"passes on the base ({base.label})")
        for t in passing
    ]
