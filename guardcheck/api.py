"""guardcheck's library API: every command calls only this module.

Each capability is one function that takes a `RunOptions` (or plain values)
and returns plain values; the click commands parse flags, call one of these,
render the result and map it to an exit code (`exit_code`). Errors a user can
act on are `GuardcheckError` (with its exit code) or `CatalogueInvalid`
(every problem of a catalogue at once).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from guardcheck.cache import Restorer, Saver, cached_run, open_cache
from guardcheck.cache.replay import remember, replay, run_scope
from guardcheck.catalogue.load import did_you_mean
from guardcheck.catalogue.select import select_mutants
from guardcheck.equiv.request import DEFAULT_EXAMPLES, EquivRequest
from guardcheck.errors import CatalogueInvalid, GuardcheckError
from guardcheck.exitcodes import ExitCode
from guardcheck.lab.projectcopy import private_copy
from guardcheck.lab.session import LabSession, sigterm_as_interrupt
from guardcheck.merge import merge_reports, read_report
from guardcheck.model import (
    BaselineTest,
    Gate,
    Mutant,
    MutantResult,
    Provenance,
    RunReport,
    Status,
)
from guardcheck.options import RunOptions, load_options
from guardcheck.provenance import run_provenance
from guardcheck.refactor.request import CHECKS as REFACTOR_CHECKS
from guardcheck.refactor.request import DEFAULT_EQUIV_EXAMPLES as REFACTOR_EQUIV_EXAMPLES
from guardcheck.refactor.request import INFORMATIONAL as REFACTOR_INFORMATIONAL
from guardcheck.refactor.request import RefactorRequest
from guardcheck.reports import FanOut, RunEvents
from guardcheck.reports.outdir import OutputFolder, OutputFolderUnusable
from guardcheck.review.request import CATEGORIES as REVIEW_CATEGORIES
from guardcheck.review.request import DEFAULT_FAIL_ON as REVIEW_DEFAULT_FAIL_ON
from guardcheck.review.request import ReviewRequest
from guardcheck.shard import costs_from, parse_shard, take_shard
from guardcheck.worktree import applied_ids, apply_mutant, refuse_if_applied, refuse_while_applied
from guardcheck.worktree import revert as revert_mutant

if TYPE_CHECKING:
    from guardcheck.catalogue.listing import Row
    from guardcheck.catalogue.validate import Assessment
    from guardcheck.equiv.check import EquivResult
    from guardcheck.github import CommentOutcome
    from guardcheck.lint import LintReport
    from guardcheck.refactor.findings import RefactorReport
    from guardcheck.review.findings import ReviewReport
    from guardcheck.sweep import Sweep

__all__ = [
    "CatalogueInvalid",
    "ExitCode",
    "Gate",
    "GuardcheckError",
    "Listing",
    "RunOptions",
    "RunReport",
    "applied",
    "apply",
    "check",
    "exit_code",
    "list_entries",
    "load_options",
    "revert",
    "run",
    "show",
    "sigterm_as_interrupt",
]


# The catalogue's validation loads libcst (~0.4-0.8 s): imported when an entry is built,
# not at import, so a run served whole by guardcheck/cache/ never pays for it.
def _validate(options: RunOptions, *, collect: bool) -> list[Mutant]:
    from guardcheck.catalogue.validate import validate as validating

    return validating(options, collect=collect)


def _assess(options: RunOptions, *, only: set[str] | None = None) -> Assessment:
    from guardcheck.catalogue.validate import assess as assessing

    return assessing(options, only=only)


def _check_killers_collected(catalogue: Sequence[Mutant], collected: tuple[str, ...]) -> None:
    from guardcheck.catalogue.validate import check_killers_collected as checking

    checking(catalogue, collected)


def __getattr__(name: str) -> Any:
    # Re-exported for the commands; their modules load libcst.
    if name == "Row":
        from guardcheck.catalogue.listing import Row

        return Row
    if name == "LintReport":
        from guardcheck.lint import LintReport

        return LintReport
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass(frozen=True)
class Listing:
    """`guardcheck list`: a row per declared entry, its stable JSON, and how many problems."""

    rows: list[Row]
    json: dict[str, Any]
    problems: int


def applied(options: RunOptions) -> list[str]:
    """Ids of mutants `guardcheck apply` wrote into the working tree and not yet reverted."""
    return applied_ids(options)


def check(options: RunOptions, *, collect: bool = False) -> list[Mutant]:
    """Every entry built and vetted in memory; raises CatalogueInvalid with every problem.

    With `collect`, each `killed_by` is checked against a `pytest --collect-only`.
    """
    return _validate(options, collect=collect)


def list_entries(options: RunOptions) -> Listing:
    """Every declared entry, buildable or not (a broken catalogue still lists)."""
    from guardcheck.catalogue.listing import listing_json, rows

    assessment = _assess(options)
    return Listing(rows(assessment), listing_json(options, assessment), len(assessment.problems))


def show(options: RunOptions, ids: Iterable[str]) -> list[Mutant]:
    """The requested entries' mutants, in the order asked; unknown or invalid ids raise."""
    ids = list(dict.fromkeys(ids))
    return _build(_assess(options, only=set(ids)), ids)


def apply(options: RunOptions, mutant_id: str) -> tuple[Mutant, Path]:
    """Write one mutant into the working tree; returns it and the saved-state file."""
    # Before building: an applied mutant no longer matches its own `find`.
    refuse_if_applied(options, mutant_id)
    (mutant,) = _build(_assess(options, only={mutant_id}), [mutant_id])
    return mutant, apply_mutant(options, mutant)


def revert(options: RunOptions, mutant_id: str) -> list[str]:
    """Restore the files `apply` changed, exactly; returns their paths."""
    return revert_mutant(options, mutant_id)


def run(
    options: RunOptions,
    events: RunEvents | None = None,
    *,
    mutants: Sequence[Mutant] | None = None,
    cache_scope: list[str] | None = None,
    cache_extra: object = None,
    make_mutants: MakeMutants | None = None,
) -> RunReport:
    """What `guardcheck run` does, start to finish, short of rendering.

    Refuses while a mutant is applied; validates the catalogue (unless
    `mutants` are given, e.g. by a sweep) and checks every `killed_by`
    against the run's own collection before any test runs; then the
    baseline, the plan and every selected mutant in isolation. Results are
    written to the output folder as they come and passed on to `events`.

    Raises CatalogueInvalid / GuardcheckError (exit 2) before anything runs,
    BaselineFailed (exit 3) for a red or flaky baseline. An interrupt
    (Ctrl-C, SIGTERM) returns the report so far with `interrupted`; the host
    dying or an internal error mid-run returns it with `incomplete`.

    `cache_scope` names what produced `mutants` (a sweep's parameters) so that an
    unchanged project's next run can replay them; `cache_extra` is stored with them.
    `make_mutants` (instead of `mutants`) returns the mutants and the extra once
    pytest has been started: making them overlaps its start-up and the baseline.
    It needs `options.source` and is for generated mutants only: a catalogue must
    be validated before any test runs.
    """
    try:
        with sigterm_as_interrupt():
            return _run(options, events, mutants, cache_scope, cache_extra, make_mutants)
    except KeyboardInterrupt:
        return RunReport(root=str(options.root), matrix=options.matrix, interrupted=True)


# A sweep's generator: the mutants, and what the cache stores beside them.
MakeMutants = Callable[[], tuple[Sequence[Mutant], object]]


def _run(
    options: RunOptions,
    events: RunEvents | None,
    given: Sequence[Mutant] | None,
    cache_scope: list[str] | None = None,
    cache_extra: object = None,
    make_mutants: MakeMutants | None = None,
) -> RunReport:
    refuse_while_applied(options)
    _refuse_missing_source(options)
    if make_mutants is not None and (given is not None or not options.source):
        raise ValueError("make_mutants needs options.source and no `mutants`")
    # None under --no-cache. A sweep opens it once its lab has started: reading the
    # project's digests need not delay pytest's start, which the whole run waits for.
    cache = open_cache(options) if make_mutants is None else None
    # What made the mutants, for replaying them unbuilt (libcst, mutmut) when nothing changed.
    scope = run_scope(options) if given is None and make_mutants is None else cache_scope
    replayed = replay(cache, scope) if given is None and make_mutants is None and scope else None
    if replayed is not None:
        given = replayed[0]
    catalogue: list[Mutant] = []
    if make_mutants is None:  # bad input is refused before the output folder is touched
        catalogue = list(given) if given is not None else _validate(options, collect=False)
        chosen, provenance = _choose(options, catalogue)
    with _output_folder(options) as outdir, contextlib.ExitStack() as labs:
        early: LabSession | None = None
        if make_mutants is not None:
            # The lab's copy and pytest start now; the generator runs meanwhile.
            early = labs.enter_context(LabSession(_lab_options(options)))
            cache = open_cache(options)
            made, cache_extra = make_mutants()
            catalogue = list(made)
            chosen, provenance = _choose(options, catalogue)
        listeners = FanOut.of([events, outdir])
        listeners.run_started(chosen)

        def run_lab(
            mutants: Sequence[Mutant], restorer: Restorer | None, saver: Saver | None
        ) -> RunReport:
            lab = early or labs.enter_context(LabSession(_lab_options(options)))
            try:
                lab.add(mutants)
                _check_killers_collected(catalogue, lab.collect())
                report = lab.run(FanOut.of([listeners, saver]), restorer)
            except BaseException as exc:
                lab.close(urgent=isinstance(exc, KeyboardInterrupt))
                raise
            lab.close(urgent=lab.interrupted)  # its processes are done before the cache is saved
            return report

        # Restores unchanged mutants' results and runs the lab on the rest only (or not at all).
        report = cached_run(cache, chosen, listeners, run_lab)
        report.root = str(options.root)
        if scope:
            remember(cache, scope, chosen, report, cache_extra)
        if cache is not None:
            cache.evict(report)  # what this run did not use, so the cache stays bounded
        report.provenance = provenance
        outdir.finish(report)
    return report


def _choose(options: RunOptions, catalogue: list[Mutant]) -> tuple[list[Mutant], Provenance]:
    """`--only` and `--shard` applied; the provenance names the selection before the split."""
    chosen = select_mutants(catalogue, options.only)
    costs = _shard_costs(options)  # before the provenance, which hashes the same file
    # Recorded before the split: every shard names the same full selection.
    provenance = run_provenance(options, chosen)
    return take_shard(chosen, options.shard, costs), provenance


def _output_folder(options: RunOptions) -> OutputFolder:
    """The run's output folder, locked for this run (before the private copy in it is synced)."""
    try:
        return OutputFolder(options.output_dir)
    except (OutputFolderUnusable, OSError) as exc:
        raise GuardcheckError(str(exc)) from None


def _lab_options(options: RunOptions) -> RunOptions:
    """Tests run in a private copy: whatever they write, git included, stays there."""
    return options.with_overrides(
        root=private_copy(options), output=options.output_dir, origin=options.root
    )


def _shard_costs(options: RunOptions) -> dict[str, float] | None:
    """The mutants' estimated seconds from `--shard-times REPORT.json`, for a sharded run."""
    if options.shard is None or options.shard_times is None:
        return None
    path = options.resolve(options.shard_times)
    try:
        return costs_from(read_report(path))
    except GuardcheckError as exc:
        raise GuardcheckError(
            f"--shard-times: {exc}\n  fix: give every shard the same earlier "
            "`guardcheck run --json` (or merged) report, or drop --shard-times"
        ) from None


def _refuse_missing_source(options: RunOptions) -> None:
    missing = [s for s in options.source if not options.resolve(Path(s)).exists()]
    if missing:
        raise GuardcheckError(
            f"[tool.guardcheck] source: {', '.join(missing)} does not exist (under "
            f"{options.root})\n  fix: name folders or files of the project"
        )


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
    chosen = list(paths) or list(options.source)
    if not chosen:
        raise GuardcheckError(
            "nothing to sweep: give source paths, or set [tool.guardcheck] source"
        )
    for path in chosen:
        if not options.resolve(Path(path)).exists():
            raise GuardcheckError(f"sweep path {path} does not exist (under {options.root})")
    measured = options if options.source else options.with_overrides(source=tuple(chosen))
    # An unchanged project's sweep is replayed from the cache without mutmut (not --since:
    # its changed lines depend on the git history, which the key does not read).
    scope = ["sweep", *chosen, *options.exclude, "arid", *options.mutate_arid]
    replayed = None if since else replay(open_cache(measured), scope)
    if replayed is not None:
        mutants, extra = replayed
        report = run(measured, events, mutants=mutants, cache_scope=scope, cache_extra=extra)
        total, skipped, files, warnings = extra
        return SweepReport(report, total, skipped, files, tuple(warnings))
    made: list[Sweep] = []

    def make() -> tuple[list[Mutant], list[object]]:
        # mutmut and libcst load here: with no --since, while pytest starts in the lab.
        from guardcheck import sweep as sweeping

        try:
            arid = sweeping.arid_rules_except(options.mutate_arid)
        except ValueError as exc:
            raise GuardcheckError(f"[tool.guardcheck] mutate_arid: {exc}") from None
        changed = sweeping.changed_lines_since(options.root, since, chosen) if since else None
        generated = sweeping.generate(
            options.root, chosen, exclude=options.exclude, arid_rules=arid, changed_lines=changed
        )
        made.append(generated)
        extra = [_total(generated), generated.skipped, generated.files, [*generated.warnings]]
        return generated.mutants, extra

    if since:  # a diff's mutants may all be cached: make them first, start pytest only if needed
        mutants, extra = make()
        report = run(measured, events, mutants=mutants, cache_extra=extra)
    else:  # the cache has no replay of this sweep, so the lab is needed: it starts first
        report = run(measured, events, cache_scope=scope, make_mutants=make)
    if not made:  # interrupted before the mutants were made
        return SweepReport(report, 0, {}, 0)
    generated = made[0]
    return SweepReport(
        report, _total(generated), generated.skipped, generated.files, generated.warnings
    )


def _total(generated: Sweep) -> int:
    """Mutants mutmut's operators made, before guardcheck's filters skipped some."""
    return len(generated.mutants) + sum(generated.skipped.values())


def emit_catalogue(results: Iterable[MutantResult], root: Path) -> str:
    """Survivors as ready-to-edit catalogue entries (id and summary left for a person)."""
    from guardcheck.sweep import emit_catalogue as emit

    return emit([r.mutant for r in results], root)


def exit_code(report: RunReport, gate: Gate) -> ExitCode:
    """The documented exit code of a finished run under `gate`."""
    if report.interrupted:
        return ExitCode.INTERRUPTED
    if report.incomplete:
        return ExitCode.INCOMPLETE
    return ExitCode.OK if gate.passed(report) else ExitCode.GATE_FAILED


def _build(assessment: Assessment, ids: list[str]) -> list[Mutant]:
    declared = [entry_id for entry_id, _ in assessment.catalogue.declared]
    unknown = [i for i in ids if i not in declared]
    if unknown:
        raise GuardcheckError(_unknown_message(unknown, declared, assessment))
    problems = [p for p in assessment.problems if p.entry_id in ids]
    if problems:
        raise CatalogueInvalid(problems)
    by_id = {c.entry.id: c.mutant for c in assessment.checked if c.mutant is not None}
    return [by_id[i] for i in ids]


def _unknown_message(unknown: list[str], declared: list[str], assessment: Assessment) -> str:
    lines = []
    for entry_id in unknown:
        suggestion = did_you_mean(entry_id, declared)
        hint = f" (did you mean `{suggestion}`?)" if suggestion else ""
        lines.append(f"no mutation with id `{entry_id}`{hint}")
    unreadable = sum(1 for p in assessment.problems if p.entry_id is None)
    if unreadable:
        lines.append(
            f"  note: {unreadable} catalogue problem(s) hide entries: run `guardcheck check`"
        )
    lines.append("  fix: use an id from `guardcheck list`")
    return "\n".join(lines)


def lint_tests(paths: Sequence[Path], root: Path) -> LintReport:
    """Static test-smell findings for the test files under `paths` (see docs/lint-tests.md).

    Raises GuardcheckError (exit 2) when a path does not exist.
    """
    from guardcheck.lint import lint_paths

    return lint_paths(paths, root)


def equiv(request: EquivRequest) -> EquivResult:
    """Compare OLD and NEW (functions, or with `stateful` zero-argument factories) on the
    same generated inputs; the result says whether they agree and renders text or JSON."""
    # Hypothesis is imported when `equiv` runs, not when a command imports this module.
    from guardcheck.equiv.check import check

    return check(request)


# Types the commands render; re-exported so commands import nothing but this module.
__all__ += [
    "DEFAULT_EXAMPLES",
    "BaselineTest",
    "EquivRequest",
    "LintReport",
    "MutantResult",
    "Row",
    "Status",
    "SweepReport",
    "emit_catalogue",
    "equiv",
    "lint_tests",
    "parse_shard",
    "sweep",
]


def merge(
    paths: Sequence[Path],
    *,
    allow_caught_elsewhere: bool | None = None,
    fail_under: float | None = None,
) -> RunReport:
    """`guardcheck merge`: shard JSON reports read back and combined into one RunReport.

    Its `provenance.gate` is the gate the shards ran under; the gate options, when
    given, must equal it. Raises GuardcheckError (exit 2) for an unreadable or
    foreign report, and for reports that are not exactly one run's shards (see
    guardcheck/merge/).
    """
    named = [(str(path), read_report(Path(path))) for path in paths]
    return merge_reports(
        named, allow_caught_elsewhere=allow_caught_elsewhere, fail_under=fail_under
    )


__all__ += ["merge"]
# -- guardcheck refactor --------------------------------------------------------


def refactor(request: RefactorRequest) -> RefactorReport:
    """Verify a refactor against a base revision: the base's tests on today's source,
    removed or changed names still in use, lost assertions, named mutations across the
    change and the migration table (see docs/refactoring.md). Each check is a
    `CheckResult` in the report; raises GuardcheckError (exit 2) for bad input (an
    unknown revision, a bad moves.toml) before anything runs."""
    # refactor's checks call this module: import them when a refactor runs, not at import.
    from guardcheck.refactor.verify import verify

    return verify(request)


def refactor_report(report: RefactorReport, form: str) -> str:
    """A refactor report as "text", "markdown", "json" or GitHub "annotations" lines."""
    from guardcheck.refactor import report as rendering

    render = {
        "text": rendering.to_text,
        "markdown": rendering.to_markdown,
        "json": rendering.json_text,
        "annotations": lambda r: "\n".join(rendering.annotations(r)),
    }
    return render[form](report)


__all__ += [
    "REFACTOR_CHECKS",
    "REFACTOR_EQUIV_EXAMPLES",
    "REFACTOR_INFORMATIONAL",
    "RefactorRequest",
    "refactor",
    "refactor_report",
]

# -- end of guardcheck refactor ---------------------------------------------------
# -- guardcheck review ----------------------------------------------------------


def read_source(root: Path, path: str) -> str:
    """A project file's text as Python decodes it: its coding cookie's encoding, BOM kept.

    GuardcheckError (exit 2) when Python could not decode it either, naming the line,
    the byte and the fix (splices.read_source).
    """
    from guardcheck.splices import SourceEncodingError
    from guardcheck.splices import read_source as read

    try:
        return read(root / path)
    except SourceEncodingError as exc:
        raise GuardcheckError(
            f"{path} cannot be decoded as Python source: {exc}\n  fix: {exc.fix}"
        ) from None


def changed_lines_since(root: Path, rev: str, paths: Sequence[str] = ()) -> dict[str, set[int]]:
    """path -> lines of today's files changed since `rev` (working tree, committed or not)."""
    from guardcheck.sweep import changed_lines_since as changed

    return changed(root, rev, paths)


def import_roots_first(paths: Sequence[Path], environ: Mapping[str, str]) -> dict[str, str]:
    """`{"PYTHONPATH": ...}` with the import roots of `paths` ahead of `environ`'s: a
    checkout's own packages then import from it, whatever an editable install points at
    (the rule the lab's runs use, lab/importroots.py)."""
    from guardcheck.lab.importroots import import_roots, with_roots_first

    return with_roots_first(import_roots(str(p) for p in paths), dict(environ))


def operator_mutants(
    options: RunOptions, paths: Sequence[str], changed_lines: dict[str, set[int]]
) -> list[Mutant]:
    """mutmut's operator mutants of `paths` on `changed_lines` only, built and not run
    (the sweep's generator, with the project's exclude and arid settings)."""
    from guardcheck import sweep as sweeping

    if not paths:
        return []
    try:
        arid = sweeping.arid_rules_except(options.mutate_arid)
    except ValueError as exc:
        raise GuardcheckError(f"[tool.guardcheck] mutate_arid: {exc}") from None
    generated = sweeping.generate(
        options.root, paths, exclude=options.exclude, arid_rules=arid, changed_lines=changed_lines
    )
    return generated.mutants


def review(request: ReviewRequest) -> ReviewReport:
    """`guardcheck review`: the strength of a change's tests (see docs/review.md).
    Raises GuardcheckError (exit 2) for bad input, BaselineFailed (exit 3) for a red suite."""
    # review calls this module: import it when a review runs, not at import.
    from guardcheck.review.verify import review as reviewing

    return reviewing(request)


def review_report(report: ReviewReport, form: str) -> str:
    """A review as "text", "markdown", "json" or GitHub "annotations" lines."""
    from guardcheck.review.report import FORMS

    return FORMS[form](report)


def pr_comment(markdown: str, environ: Mapping[str, str]) -> CommentOutcome:
    """`review --pr-comment`: post the review as the pull request's one guardcheck comment,
    or update it (docs/review.md). Never raises for GitHub: a failure is a warning."""
    from guardcheck.github import post_review_comment

    return post_review_comment(markdown, environ)


__all__ += [
    "REVIEW_CATEGORIES",
    "REVIEW_DEFAULT_FAIL_ON",
    "ReviewRequest",
    "changed_lines_since",
    "import_roots_first",
    "operator_mutants",
    "pr_comment",
    "review",
    "review_report",
]

# -- end of guardcheck review -----------------------------------------------------
