"""`guardcheck sweep`: mutmut's operator mutants through the same run as the catalogue's.

mutmut and libcst are imported when mutants are made, not at import: an unchanged
project's sweep is replayed from the cache without them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from guardcheck.cache import open_cache
from guardcheck.cache.replay import replay
from guardcheck.errors import GuardcheckError
from guardcheck.model import Mutant, MutantResult, RunReport
from guardcheck.options import RunOptions
from guardcheck.pipeline.inputs import Generator, Given, SweepCounts
from guardcheck.pipeline.run import run_from
from guardcheck.reports import RunEvents


@dataclass(frozen=True)
class SweepReport:
    """A sweep: the run of mutmut's operator mutants, and what the filters skipped."""

    report: RunReport
    generated: int  # mutants mutmut's operators made, before guardcheck's filters
    skipped: dict[str, int]  # filter name -> mutants it skipped
    files: int
    warnings: tuple[str, ...] = ()


def sweep(
    options: RunOptions,
    paths: Sequence[str] = (),
    *,
    since: str | None = None,
    events: RunEvents | None = None,
) -> SweepReport:
    """mutmut's operator mutants of `paths` (default: `source`) through the same lab as `run`.

    `since` keeps only mutants on lines changed since that git revision.
    """
    chosen = _sweep_paths(options, paths)
    measured = options if options.source else options.with_overrides(source=tuple(chosen))
    if since:  # a diff's mutants may all be cached: make them first, start pytest only if needed
        changed = changed_lines_since(options.root, since, chosen)
        mutants, counts = _generate(options, chosen, changed)
        # Not remembered for a replay: its changed lines depend on the git history.
        report = run_from(measured, events, Given(tuple(mutants), counts))
        return _sweep_report(report, counts)
    scope = ("sweep", *chosen, *options.exclude, "arid", *options.mutate_arid)
    # An unchanged project's sweep is replayed from the cache without mutmut.
    replayed = replay(open_cache(measured), scope)
    stored = None if replayed is None else SweepCounts.from_json(replayed[1])
    if replayed is not None and stored is not None:
        report = run_from(measured, events, Given(tuple(replayed[0]), stored, scope))
        return _sweep_report(report, stored)
    made: list[SweepCounts] = []

    def make() -> tuple[list[Mutant], SweepCounts]:
        # mutmut and libcst load here, while pytest starts in the lab.
        mutants, counts = _generate(options, chosen, None)
        made.append(counts)
        return mutants, counts

    # The cache has no replay of this sweep, so the lab is needed: it starts first.
    report = run_from(measured, events, Generator(make, scope))
    # No counts: interrupted before the mutants were made.
    return _sweep_report(report, made[0] if made else SweepCounts(0))


def _sweep_paths(options: RunOptions, paths: Sequence[str]) -> list[str]:
    chosen = list(paths) or list(options.source)
    if not chosen:
        raise GuardcheckError(
            "nothing to sweep: give source paths, or set [tool.guardcheck] source"
        )
    for path in chosen:
        if not options.resolve(Path(path)).exists():
            raise GuardcheckError(f"sweep path {path} does not exist (under {options.root})")
    return chosen


def _sweep_report(report: RunReport, counts: SweepCounts) -> SweepReport:
    return SweepReport(
        report, counts.generated, dict(counts.skipped), counts.files, counts.warnings
    )


def operator_mutants(
    options: RunOptions, paths: Sequence[str], changed_lines: dict[str, set[int]]
) -> list[Mutant]:
    """mutmut's operator mutants of `paths` on `changed_lines` only, built and not run
    (the sweep's generator, with the project's exclude and arid settings)."""
    if not paths:
        return []
    return _generate(options, paths, changed_lines)[0]


def _generate(
    options: RunOptions, paths: Sequence[str], changed_lines: dict[str, set[int]] | None
) -> tuple[list[Mutant], SweepCounts]:
    """The mutants mutmut's operators make of `paths`, after guardcheck's filters."""
    from guardcheck import sweep as sweeping

    try:
        arid = sweeping.arid_rules_except(options.mutate_arid)
    except ValueError as exc:
        raise GuardcheckError(f"[tool.guardcheck] mutate_arid: {exc}") from None
    generated = sweeping.generate(
        options.root, paths, exclude=options.exclude, arid_rules=arid, changed_lines=changed_lines
    )
    total = len(generated.mutants) + sum(generated.skipped.values())
    counts = SweepCounts(total, generated.skipped, generated.files, tuple(generated.warnings))
    return generated.mutants, counts


def changed_lines_since(root: Path, rev: str, paths: Sequence[str] = ()) -> dict[str, set[int]]:
    """path -> lines of today's files changed since `rev` (working tree, committed or not)."""
    from guardcheck.sweep import changed_lines_since as changed

    return changed(root, rev, paths)


def emit_catalogue(results: Iterable[MutantResult], root: Path) -> str:
    """Survivors as ready-to-edit catalogue entries (id and summary left for a person)."""
    from guardcheck.sweep import emit_catalogue as emit

    return emit([r.mutant for r in results], root)
