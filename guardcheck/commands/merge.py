"""`guardcheck merge`: shard reports into one run's reports and gate (see guardcheck/merge/)."""

from __future__ import annotations

from pathlib import Path

import click

from guardcheck import api
from guardcheck.commands.group import global_options
from guardcheck.commands.reporting import check_report_paths, finish, report_options
from guardcheck.reports.console import make_console, render_table, summary_line


@click.command("merge")
@global_options
@click.argument("reports", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option(
    "--allow-caught-elsewhere",
    is_flag=True,
    default=None,
    help="Must match the shards' gate (default: the gate they recorded).",
)
@click.option(
    "--fail-under",
    type=click.FloatRange(0, 100),
    help="Must match the shards' gate (default: the gate they recorded).",
)
@report_options
@click.option("-q", "--quiet", is_flag=True, help="Print only the final summary.")
@click.pass_context
def merge_command(
    ctx: click.Context,
    reports: tuple[Path, ...],
    allow_caught_elsewhere: bool | None,
    fail_under: float | None,
    quiet: bool,
) -> None:
    """Combine shard reports (`run --shard K/N --json PATH`) into one run, and gate it.

    Refuses (exit 2, saying what differs) reports of different guardcheck
    versions, git revisions, configurations or gates, and a missing or
    duplicated shard. Otherwise writes the requested reports of the merged run
    and exits as `run` would: 0 gate passed, 1 gate failed, 4 a shard's results
    were incomplete, 130 a shard was interrupted.
    """
    check_report_paths(ctx, Path.cwd())  # merge may run outside a project: cwd is its root
    report = api.merge(
        reports, allow_caught_elsewhere=allow_caught_elsewhere, fail_under=fail_under
    )
    assert report.provenance is not None  # a merge always records one
    gate = report.provenance.gate
    console = make_console()
    if quiet:
        console.print(summary_line(report, gate), highlight=False, soft_wrap=True)
    else:
        render_table(report, console, gate=gate)
    finish(ctx, report, gate)
