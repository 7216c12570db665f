"""`guardcheck run`: validate, baseline, run every mutant, report, gate."""

from __future__ import annotations

import fnmatch
import os
import sys
from dataclasses import replace
from pathlib import Path

import click
from rich.console import Console

from guardcheck.catalogue.validate import unknown_killers, validate
from guardcheck.commands.group import settings_of
from guardcheck.errors import CatalogueInvalid, GuardcheckError
from guardcheck.exitcodes import ExitCode
from guardcheck.lab.run import LabOptions, run_lab
from guardcheck.model import Mutant, RunReport
from guardcheck.options import Settings
from guardcheck.reports import FanOut, Gate
from guardcheck.reports.console import (
    ConsoleProgress,
    Verbosity,
    render_matrix,
    render_table,
    summary_line,
)
from guardcheck.reports.junit import write_junit
from guardcheck.reports.markdown import write_markdown
from guardcheck.reports.outdir import OutputFolder
from guardcheck.reports.stryker import write_json
from guardcheck.worktree import applied_ids

# Wide enough for a pytest node id beside the verdict without wrapping.
CI_LOG_WIDTH = 160


def select_mutants(mutants: list[Mutant], patterns: tuple[str, ...]) -> list[Mutant]:
    """Keep mutants whose id or tag matches any glob in `patterns` (all when none given)."""
    if not patterns:
        return mutants
    chosen = [
        m
        for m in mutants
        if any(
            fnmatch.fnmatchcase(m.id, p) or any(fnmatch.fnmatchcase(t, p) for t in m.tags)
            for p in patterns
        )
    ]
    if not chosen:
        known = ", ".join(m.id for m in mutants)
        raise GuardcheckError(
            f"--only {' '.join(patterns)} matches no mutation id or tag; known: {known}"
        )
    return chosen


def refuse_while_applied(settings: Settings) -> None:
    """The gate proves the tests against the real code, not against a mutant
    someone wrote into the tree with `guardcheck apply` and forgot."""
    applied = applied_ids(settings)
    if applied:
        reverts = "; ".join(f"guardcheck apply --revert {mutant_id}" for mutant_id in applied)
        raise GuardcheckError(
            f"mutation(s) {', '.join(applied)} are written into your working tree "
            f"(guardcheck apply), so the catalogue would not match the real code\n"
            f"  fix: {reverts}"
        )


def check_killers(mutants: list[Mutant], collected: tuple[str, ...]) -> None:
    """`check --collect`'s killed_by rule, against the ids the run's own pytest collected.

    Every entry is checked, not only those `--only` selected: the catalogue is
    sound or it is not.
    """
    claims = [(m.id, m.declared_at, test) for m in mutants for test in m.killed_by]
    problems = unknown_killers(claims, collected, f"collected {len(collected)} tests for this run")
    if problems:
        raise CatalogueInvalid(problems)


def make_console() -> Console:
    """The run's console; CI logs get a wide page instead of rich's 80-column default."""
    console = Console()
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = Console(width=CI_LOG_WIDTH)
    return console


def exit_code_for(report: RunReport, gate: Gate) -> ExitCode:
    if report.interrupted:
        return ExitCode.INTERRUPTED
    return ExitCode.OK if gate.passed(report) else ExitCode.GATE_FAILED


@click.command("run")
@click.option("-j", "--jobs", type=click.IntRange(min=1), help="Parallel workers (default: CPUs).")
@click.option("--matrix", is_flag=True, help="Run every selected test: the full kill matrix.")
@click.option(
    "--allow-caught-elsewhere",
    is_flag=True,
    help="Pass mutants caught by a test other than their named killed_by tests.",
)
@click.option(
    "--fail-under",
    type=click.FloatRange(0, 100),
    help="Gate on the mutation score (percent) instead of requiring every mutant caught.",
)
@click.option(
    "--only",
    "only",
    multiple=True,
    metavar="GLOB",
    help="Run only mutations whose id or tag matches; repeatable.",
)
@click.option(
    "--json", "json_path", type=click.Path(path_type=Path), help="Stryker-schema JSON report."
)
@click.option("--junit", "junit_path", type=click.Path(path_type=Path), help="JUnit XML report.")
@click.option(
    "--markdown", "markdown_path", type=click.Path(path_type=Path), help="Markdown summary."
)
@click.option("--timeout-factor", type=click.FloatRange(min=0), help="Mutant time budget factor.")
@click.option("--timeout-constant", type=click.FloatRange(min=0), help="Seconds added to it.")
@click.option(
    "--baseline-runs",
    type=click.IntRange(min=1),
    metavar="N",
    help="Run the baseline N times; a test whose outcome changes is flaky (exit 3).",
)
@click.option("-q", "--quiet", is_flag=True, help="Print only the final summary.")
@click.option("-v", "--verbose", is_flag=True, help="Also print each mutant's tests.")
@click.pass_context
def run(
    ctx: click.Context,
    jobs: int | None,
    matrix: bool,
    allow_caught_elsewhere: bool,
    fail_under: float | None,
    only: tuple[str, ...],
    json_path: Path | None,
    junit_path: Path | None,
    markdown_path: Path | None,
    timeout_factor: float | None,
    timeout_constant: float | None,
    baseline_runs: int | None,
    quiet: bool,
    verbose: bool,
) -> None:
    """Prove the tests catch every mutation in the catalogue.

    Validates the catalogue (as `check --collect`: `killed_by` ids are checked
    against the run's own collection before any test runs), runs the tests once
    unmutated, then each mutant in isolation, in memory: the working tree is
    never written. Exit 0 when every mutant is caught, 1 when the gate fails,
    2 on a catalogue or usage error, 3 when the baseline fails (or, with
    --baseline-runs N, a test changes outcome between runs), 130 when
    interrupted.
    """
    if quiet and verbose:
        raise GuardcheckError("--quiet and --verbose contradict each other; pick one")
    settings = settings_of(ctx)
    overrides = {
        key: value
        for key, value in (
            ("jobs", jobs),
            ("timeout_factor", timeout_factor),
            ("timeout_constant", timeout_constant),
            ("baseline_runs", baseline_runs),
        )
        if value is not None
    }
    settings = replace(settings, **overrides)
    refuse_while_applied(settings)
    catalogue = validate(settings, collect=False)
    mutants = select_mutants(catalogue, only)
    gate = Gate(allow_caught_elsewhere=allow_caught_elsewhere, fail_under=fail_under)
    options = LabOptions(
        jobs=settings.jobs,
        matrix=matrix,
        timeout_factor=settings.timeout_factor,
        timeout_constant=settings.timeout_constant,
        baseline_runs=settings.baseline_runs,
    )
    console = make_console()
    verbosity = Verbosity.QUIET if quiet else Verbosity.VERBOSE if verbose else Verbosity.NORMAL
    outdir = OutputFolder(settings.output_dir)
    with ConsoleProgress(console, total=len(mutants), verbosity=verbosity, gate=gate) as progress:
        report = run_lab(
            settings,
            mutants,
            options,
            FanOut(progress, outdir),
            on_collected=lambda collected: check_killers(catalogue, collected),
        )
    outdir.finish(report)
    if quiet:
        console.print(summary_line(report, gate), highlight=False)
    else:
        render_table(report, console, gate=gate)
        if matrix:
            render_matrix(report, console)
    writers = ((json_path, write_json), (junit_path, write_junit), (markdown_path, write_markdown))
    for path, write in writers:
        if path is not None:
            write(report, path, gate=gate)
    sys.stdout.flush()
    ctx.exit(int(exit_code_for(report, gate)))
