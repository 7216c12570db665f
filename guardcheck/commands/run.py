"""`guardcheck run`: parse the flags, call `api.run`, render the report, exit with its code."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from guardcheck import api
from guardcheck.commands.group import global_options, options_of
from guardcheck.reports.console import (
    ConsoleProgress,
    Verbosity,
    make_console,
    render_matrix,
    render_table,
    summary_line,
)
from guardcheck.reports.junit import write_junit
from guardcheck.reports.markdown import write_markdown
from guardcheck.reports.stryker import write_json


@click.command("run")
@global_options
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
    --baseline-runs N, a test changes outcome between runs), 4 when guardcheck
    could not finish (the pytest host died, an internal error: the reports
    hold what finished), 130 when interrupted.
    """
    if quiet and verbose:
        raise api.GuardcheckError("--quiet and --verbose contradict each other; pick one")
    gate = api.Gate(allow_caught_elsewhere=allow_caught_elsewhere, fail_under=fail_under)
    options = options_of(
        ctx,
        jobs=jobs,
        timeout_factor=timeout_factor,
        timeout_constant=timeout_constant,
        baseline_runs=baseline_runs,
        matrix=matrix,
        only=only,
        gate=gate,
    )
    console = make_console()
    verbosity = Verbosity.QUIET if quiet else Verbosity.VERBOSE if verbose else Verbosity.NORMAL
    with ConsoleProgress(console, verbosity=verbosity, gate=gate) as progress:
        report = api.run(options, progress)
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
    if report.incomplete:
        click.echo(f"guardcheck: results incomplete: {report.incomplete}", err=True)
    sys.stdout.flush()
    ctx.exit(int(api.exit_code(report, gate)))
