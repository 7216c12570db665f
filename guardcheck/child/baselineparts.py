"""The baseline under coverage, split by test file over the workers (pure).

The first baseline run is the fixed cost every run pays: every test under
coverage.py with a context per test, much slower than plain pytest
(bench/README.md). With several workers the host forks one child per part, each
running whole test files in collection order, and merges their reports into the one
report a single child would have sent. A part sees what a mutant's child
sees: a fork of the collected host running a subset of the tests.

A suite whose tests depend on another file's tests having run (or that
collide when two run at once) can fail when split; the host then runs the
baseline again in one child, and only that run's verdict counts.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeVar

from guardcheck import messages
from guardcheck.model import TestOutcome

T = TypeVar("T")
_RED = (TestOutcome.FAILED, TestOutcome.ERROR)


def split_by_file(items: Sequence[T], files: Sequence[Hashable], parts: int) -> list[list[T]]:
    """`items` (with their files) in at most `parts` groups of whole files, order kept.

    Each file goes, in collection order, to the part with the fewest tests so far.
    Fewer than two files, or one part: a single group.
    """
    by_file: dict[Hashable, list[T]] = {}
    for item, file in zip(items, files, strict=True):
        by_file.setdefault(file, []).append(item)
    count = min(parts, len(by_file))
    if count < 2:
        return [list(items)]
    groups: list[list[T]] = [[] for _ in range(count)]
    for members in by_file.values():
        min(groups, key=len).extend(members)
    return [group for group in groups if group]


def clean(parts: Sequence[messages.ChildEnded]) -> bool:
    """Every part reported, none crashed or timed out, and no test failed or errored.

    Anything else is run again in one child, whose report then stands alone: a
    merge must never stand for tests that did not run.
    """
    for part in parts:
        report = part.report
        if report is None or report.crash or part.timed_out is not None or part.exit:
            return False
        if report.collect_errors or any(t.outcome in _RED for t in report.tests):
            return False
    return True


def merge(parts: Sequence[messages.ChildEnded], order: dict[str, int]) -> messages.ChildEnded:
    """One baseline run's report from its clean parts' (`order`: node id -> collection index)."""
    reports = [p.report for p in parts if p.report is not None]
    assert len(reports) == len(parts), "merge only clean parts"
    tests = sorted((t for r in reports for t in r.tests), key=lambda t: order[t.nodeid])
    coverage: dict[str, dict[str, list[int]]] = {}
    for report in reports:
        for filename, by_line in (report.coverage or {}).items():
            lines = coverage.setdefault(filename, {})
            for line, indices in by_line.items():
                lines[line] = sorted(set(lines.get(line, [])).union(indices))
    merged = messages.ChildReport(
        tests=tests,
        coverage=coverage,
        log="\n".join(r.log for r in reports if r.log),
        unfollowed={k: v for r in reports for k, v in r.unfollowed.items()},
        spawners=sorted({s for r in reports for s in r.spawners}),
        source_reads=_merged_reads(reports),
        linecache_reads=_merged_linecache_reads(reports),
        copy_writes=_united([report.copy_writes for report in reports]),
        copy_opens=_united([report.copy_opens for report in reports]),
        foreign=sorted({f for r in reports for f in r.foreign}),
    )
    return messages.ChildEnded(baseline=True, key=parts[0].key, report=merged, current=None)


def _merged_reads(reports: Sequence[messages.ChildReport]) -> dict[str, list[str]]:
    return _united([report.source_reads for report in reports])


def _united(parts: Sequence[dict[str, list[str]]]) -> dict[str, list[str]]:
    merged: dict[str, set[str]] = {}
    for part in parts:
        for path, tests in part.items():
            merged.setdefault(path, set()).update(tests)
    return {path: sorted(tests) for path, tests in sorted(merged.items())}


def _merged_linecache_reads(reports: Sequence[messages.ChildReport]) -> dict[str, list[str]]:
    """A test's read counts as through linecache only if no part saw it read otherwise."""
    cached: dict[str, set[str]] = {}
    otherwise: dict[str, set[str]] = {}
    for report in reports:
        for path, tests in report.source_reads.items():
            through = set(report.linecache_reads.get(path, ()))
            cached.setdefault(path, set()).update(through)
            otherwise.setdefault(path, set()).update(set(tests) - through)
    merged = {path: tests - otherwise.get(path, set()) for path, tests in cached.items()}
    return {path: sorted(tests) for path, tests in sorted(merged.items()) if tests}
