"""`guardcheck run`: parse the flags, call `api.run`, render the report, exit with its code."""

from __future__ import annotations

import click

from guardcheck import api
from guardcheck.commands.group import global_options, options_of
from guardcheck.commands.reporting import finish, report_options
from guardcheck.reports.console import (
    ConsoleProgress,
    Verbosity,
    make_console,
    render_matrix,
    render_table,
    summary_line,
)
from guardcheck.shard import parse_shard


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
    "--shard",
    metavar="K/N",
    help="Run only shard K of N (1-based); `guardcheck merge` combines the shards' --json.",
)
@report_options
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
    shard: str | None,
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
        shard=parse_shard(shard) if shard is not None else None,
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
    finish(ctx, report, gate)
