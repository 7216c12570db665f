"""One review, start to finish: scope, the kill matrix, then each finding."""

from __future__ import annotations

from pathlib import Path

from guardcheck.errors import CatalogueInvalid, GuardcheckError
from guardcheck.exitcodes import ExitCode
from guardcheck.gitbase import Base, resolve_base
from guardcheck.model import Mutant, MutantResult
from guardcheck.options import RunOptions
from guardcheck.pipeline.catalogue import check, list_entries, show
from guardcheck.pipeline.project import read_source
from guardcheck.pipeline.run import run as run_mutants
from guardcheck.pipeline.sweep import changed_lines_since, operator_mutants
from guardcheck.review import audit, matrix, pinning, scope
from guardcheck.review.diff import Change, Function, build_change, functions_of
from guardcheck.review.findings import (
    FlaggedTest,
    MatrixRow,
    ReviewReport,
    Sample,
    StaleEntry,
)
from guardcheck.review.request import ReviewRequest


def review(request: ReviewRequest) -> ReviewReport:
    options = request.options
    root = options.root
    base = resolve_base(root, request.base, command="review")
    change = build_change(root, changed_lines_since(root, base.sha, []))
    report = ReviewReport(base.label, base.sha, request.fail_on)
    report.changed_files = sorted(change.lines)

    catalogue, stale = _catalogue(options, change)
    report.stale = stale
    sources = _source_files(options, change)
    operator = operator_mutants(options, sources, {p: change.lines[p] for p in sources})
    if request.max_mutants is not None and len(operator) > request.max_mutants:
        report.sample = Sample(len(operator), request.max_mutants, request.sample_seed)
        operator = scope.sample(operator, request.max_mutants, request.sample_seed)
        report.notes.append(report.sample.phrase())
    mutants = [m for m in catalogue if scope.touches_change(m, change)] + operator
    report.in_scope = [m.id for m in mutants]

    results: list[MutantResult] = []
    measured = options.with_overrides(matrix=True, source=options.source or tuple(sources) or None)
    if mutants:
        results = _matrix(measured, mutants)
    tests = scope.changed_tests(change)
    test_ids = [t.nodeid() for t in tests]

    # Every test that might count: the killers, and the new or changed tests.
    killers = sorted({k for r in results for k in matrix.killing_tests(r)})
    audited = sorted(set(killers) | set(test_ids))
    roots = [measured.resolve(Path(s)) for s in measured.source]
    opened = audit.opened_sources(root, audited, roots, request.timeout)
    test_files = sorted({t.split("::")[0] for t in audited})
    linted = audit.lint_flags(root, test_files)
    reading = _source_reading(opened, linted, root)
    report.source_reading = reading
    readers = {t.nodeid for t in reading}

    _judge(report, [matrix.row(r, readers, test_ids, change) for r in results], readers, change)
    report.vacuous = _vacuous(tests, report.matrix)
    # Listed whether or not it gates: informational by default.
    report.unpinned = _unpinned(root, base, change, tests, request.timeout, roots)
    if not mutants:
        report.notes.append("no mutant in scope: the change touches no mutable source line")
    return report


def _matrix(options: RunOptions, mutants: list[Mutant]) -> list[MutantResult]:
    """Every mutant's results; a run that did not finish is no basis for findings."""
    run = run_mutants(options, mutants=mutants)
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
        return check(options), []
    except CatalogueInvalid as exc:
        problems = exc.problems
    listing = list_entries(options)
    target = {row.id: row.file for row in listing.rows}
    broken = {p.entry_id for p in problems if p.entry_id}
    stale = [
        StaleEntry(
            entry_id=p.entry_id,
            path=p.where.path if p.where else "",
            line=p.where.line if p.where else 0,
            target=target[p.entry_id],
            message=p.render(),
            kind=p.kind,
        )
        for p in problems
        if p.entry_id and target.get(p.entry_id) in change.lines
    ]
    good = [row.id for row in listing.rows if row.id not in broken and not row.problems]
    return (show(options, good) if good else []), stale


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
        for f in functions_of(path, read_source(root, path)):
            if f.nodeid() == function:
                return path, f.start
    return path, 1


def _judge(report: ReviewReport, rows: list[MatrixRow], readers: set[str], change: Change) -> None:
    report.matrix = rows
    report.mutants = len(rows)
    report.caught = sum(r.caught for r in rows)
    report.survivors = [matrix.survivor(r) for r in rows if not r.caught]
    report.functions = matrix.function_rows(rows, readers, change)
    report.lines = matrix.changed_lines(rows, change)


def _vacuous(tests: list[Function], rows: list[MatrixRow]) -> list[FlaggedTest]:
    flagged = []
    for test in tests:
        test_id = test.nodeid()
        runs = any(scope.names(test_id, r.ran_by) for r in rows)
        kills = any(scope.names(test_id, r.killed_by) for r in rows)
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
    root: Path,
    base: Base,
    change: Change,
    tests: list[Function],
    timeout: float,
    source_roots: list[Path],
) -> list[FlaggedTest]:
    copied = [p for p in change.lines if p in change.test_files() or p.endswith("conftest.py")]
    by_id = {t.nodeid(): t for t in tests}
    top = root.resolve()
    inside = [s.resolve() for s in source_roots if s.resolve().is_relative_to(top)]
    source = [s.relative_to(top).as_posix() for s in inside]
    passing = pinning.passing_on_base(root, base, copied, list(by_id), timeout, source)
    return [
        FlaggedTest(t, by_id[t].path, by_id[t].start, f"passes on the base ({base.label})")
        for t in passing
    ]
