"""`guardcheck run`, start to finish short of rendering: the lab around the cache.

Refuses while a mutant is applied; the catalogue is validated (or the given mutants
taken) and every `killed_by` checked against the run's own collection before any test
runs; then the baseline, the plan and every selected mutant in isolation, each result
written to the output folder as it comes.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from guardcheck.applyfile import refuse_while_applied
from guardcheck.cache import Restorer, ResultCache, Saver, cached_run, open_cache
from guardcheck.cache.replay import remember, replay, run_scope
from guardcheck.errors import GuardcheckError
from guardcheck.exitcodes import ExitCode
from guardcheck.lab.execute.session import LabSession, sigterm_as_interrupt
from guardcheck.lab.sandbox.projectcopy import private_copy
from guardcheck.lab.sandbox.pytestguard import keep_pytest_out
from guardcheck.model import Gate, Mutant, Provenance, RunReport
from guardcheck.options import RunOptions
from guardcheck.pipeline.catalogue import check, check_killers_collected
from guardcheck.pipeline.inputs import Generator, Given, SweepCounts
from guardcheck.pipeline.select import choose
from guardcheck.reports import FanOut, RunEvents
from guardcheck.reports.outdir import OutputFolder, OutputFolderUnusable


def run(
    options: RunOptions,
    events: RunEvents | None = None,
    *,
    mutants: Sequence[Mutant] | None = None,
) -> RunReport:
    """What `guardcheck run` does, start to finish, short of rendering.

    Validates the catalogue (unless `mutants` are given, e.g. by a review) and checks
    every `killed_by` against the run's own collection before any test runs; results go
    to the output folder as they come and to `events`.

    Raises CatalogueInvalid / GuardcheckError (exit 2) before anything runs,
    BaselineFailed (exit 3) for a red or flaky baseline. An interrupt
    (Ctrl-C, SIGTERM) returns the report so far with `interrupted`; the host
    dying or an internal error mid-run returns it with `incomplete`.
    """
    return run_from(options, events, None if mutants is None else Given(tuple(mutants)))


def run_from(
    options: RunOptions, events: RunEvents | None, source: Given | Generator | None
) -> RunReport:
    """`run` of the catalogue (`source` None), of given mutants, or of a sweep's generator."""
    try:
        with sigterm_as_interrupt():
            return _run(options, events, source)
    except KeyboardInterrupt:
        return RunReport(root=str(options.root), matrix=options.matrix, interrupted=True)


def exit_code(report: RunReport, gate: Gate) -> ExitCode:
    """The documented exit code of a finished run under `gate`."""
    if report.interrupted:
        return ExitCode.INTERRUPTED
    if report.incomplete:
        return ExitCode.INCOMPLETE
    return ExitCode.OK if gate.passed(report) else ExitCode.GATE_FAILED


@dataclass(frozen=True)
class _Selected:
    """A run's mutants before the lab, and what the cache needs to remember them."""

    cache: ResultCache | None  # None under --no-cache
    catalogue: list[Mutant]  # every mutant made: each `killed_by` is checked
    chosen: list[Mutant]  # after --only and --shard
    provenance: Provenance
    scope: tuple[str, ...]  # what made them, for a replay; empty: not remembered
    counts: SweepCounts | None


def _run(
    options: RunOptions, events: RunEvents | None, source: Given | Generator | None
) -> RunReport:
    refuse_while_applied(options)
    _refuse_missing_source(options)
    if not isinstance(source, Generator):
        selected = _before_the_lab(options, source)  # bad input is refused before any output
        with _output_folder(options) as outdir, contextlib.ExitStack() as labs:
            return _through_the_lab(options, events, outdir, labs, selected, None)
    if not options.source:
        raise ValueError("a Generator needs options.source")
    with _output_folder(options) as outdir, contextlib.ExitStack() as labs:
        # The lab's copy and pytest start now; the generator runs meanwhile.
        early = labs.enter_context(LabSession(_lab_options(options)))
        # Opened now: reading the project's digests need not delay pytest's start.
        cache = open_cache(options)
        made, counts = source.make()
        selected = _select(options, cache, list(made), source.scope, counts)
        return _through_the_lab(options, events, outdir, labs, selected, early)


def _before_the_lab(options: RunOptions, given: Given | None) -> _Selected:
    """The given mutants, or the catalogue: replayed unbuilt (no libcst) when nothing that
    made it changed, else validated."""
    cache = open_cache(options)
    if given is not None:
        return _select(options, cache, list(given.mutants), given.scope, given.counts)
    scope = tuple(run_scope(options))
    replayed = replay(cache, scope)
    catalogue = replayed[0] if replayed is not None else check(options)
    return _select(options, cache, catalogue, scope, None)


def _select(
    options: RunOptions,
    cache: ResultCache | None,
    catalogue: list[Mutant],
    scope: tuple[str, ...],
    counts: SweepCounts | None,
) -> _Selected:
    chosen, provenance = choose(options, catalogue)
    return _Selected(cache, catalogue, chosen, provenance, scope, counts)


def _through_the_lab(
    options: RunOptions,
    events: RunEvents | None,
    outdir: OutputFolder,
    labs: contextlib.ExitStack,
    selected: _Selected,
    early: LabSession | None,
) -> RunReport:
    listeners = FanOut.of([events, outdir])
    listeners.run_started(selected.chosen)

    def run_lab(
        mutants: Sequence[Mutant], restorer: Restorer | None, saver: Saver | None
    ) -> RunReport:
        lab = early or labs.enter_context(LabSession(_lab_options(options)))
        try:
            lab.add(mutants)
            check_killers_collected(selected.catalogue, lab.collect())
            report = lab.run(FanOut.of([listeners, saver]), restorer)
        except BaseException as exc:
            lab.close(urgent=isinstance(exc, KeyboardInterrupt))
            raise
        lab.close(urgent=lab.interrupted)  # its processes are done before the cache is saved
        return report

    # Restores unchanged mutants' results and runs the lab on the rest only (or not at all).
    cache = selected.cache
    report = cached_run(cache, selected.chosen, listeners, run_lab)
    report.root = str(options.root)
    if selected.scope:
        counts = None if selected.counts is None else selected.counts.to_json()
        remember(cache, selected.scope, selected.chosen, report, counts)
    if cache is not None:
        cache.evict(report)  # what this run did not use, so the cache stays bounded
    report.provenance = selected.provenance
    outdir.finish(report)
    return report


def _output_folder(options: RunOptions) -> OutputFolder:
    """The run's output folder, locked for this run (before the private copy in it is synced)."""
    try:
        folder = OutputFolder(options.output_dir)
    except (OutputFolderUnusable, OSError) as exc:
        raise GuardcheckError(str(exc)) from None
    try:
        keep_pytest_out(options.output_dir)  # its copy's tests are not the user's to collect
    except OSError as exc:
        folder.close()
        raise GuardcheckError(f"{options.output_dir}: cannot write in it: {exc}") from None
    return folder


def _lab_options(options: RunOptions) -> RunOptions:
    """Tests run in a private copy: whatever they write, git included, stays there."""
    return options.with_overrides(
        root=private_copy(options), output=options.output_dir, origin=options.root
    )


def _refuse_missing_source(options: RunOptions) -> None:
    missing = [s for s in options.source if not options.resolve(Path(s)).exists()]
    if missing:
        raise GuardcheckError(
            f"[tool.guardcheck] source: {', '.join(missing)} does not exist (under "
            f"{options.root})\n  fix: name folders or files of the project"
        )
