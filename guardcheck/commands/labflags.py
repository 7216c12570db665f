"""The flags every command that runs mutants shares (`run`, `sweep`), and how it publishes.

`lab_flags` adds the options; `Publisher.from_flags` turns them into the gate,
the RunOptions and the console; `Publisher.finish` renders the table, then
`reporting.finish` writes the report files and exits with the run's code.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import click
from rich.console import Console

from guardcheck import api
from guardcheck.commands.group import options_of
from guardcheck.commands.reporting import check_report_paths, finish, report_options
from guardcheck.reports.console import (
    ConsoleProgress,
    Verbosity,
    make_console,
    render_matrix,
    render_table,
    summary_line,
)

F = TypeVar("F", bound=Callable[..., Any])

_FLAGS: list[Callable[[F], F]] = [
    click.option("-j", "--jobs", type=click.IntRange(min=1), help=api.RunOptions.help_for("jobs")),
    click.option("--matrix", is_flag=True, help=api.RunOptions.help_for("matrix")),
    click.option(
        "--allow-caught-elsewhere",
        is_flag=True,
        help="Pass mutants caught by a test other than their named killed_by tests.",
    ),
    click.option(
        "--fail-under",
        type=click.FloatRange(0, 100),
        help="Gate on the mutation score (percent) instead of requiring every mutant caught.",
    ),
    click.option(
        "--shard",
        metavar="K/N",
        help=api.RunOptions.help_for("shard"),
    ),
    click.option(
        "--shard-times",
        type=click.Path(dir_okay=False, path_type=Path),
        metavar="REPORT.json",
        help=api.RunOptions.help_for("shard_times"),
    ),
    report_options,
    click.option(
        "--no-cache",
        is_flag=True,
        help="Run every mutant: neither reuse nor store results in <output>/cache/.",
    ),
    click.option(
        "--timeout-factor",
        type=click.FloatRange(min=0),
        help=api.RunOptions.help_for("timeout_factor"),
    ),
    click.option(
        "--timeout-constant",
        type=click.FloatRange(min=0),
        help=api.RunOptions.help_for("timeout_constant"),
    ),
    click.option(
        "--baseline-runs",
        type=click.IntRange(min=1),
        metavar="N",
        help=api.RunOptions.help_for("baseline_runs"),
    ),
    click.option(
        "--baseline-timeout",
        type=click.FloatRange(min=0, min_open=True),
        metavar="S",
        help=api.RunOptions.help_for("baseline_timeout"),
    ),
    click.option(
        "--memory-limit-mb",
        type=click.IntRange(min=0),
        metavar="MB",
        help=api.RunOptions.help_for("memory_limit_mb"),
    ),
    click.option("-q", "--quiet", is_flag=True, help="Print only the final summary."),
    click.option("-v", "--verbose", is_flag=True, help="Also print each mutant's tests."),
]


def lab_flags(command: F) -> F:
    """The flags of a command that runs mutants (the report paths go to `reporting`)."""
    for flag in reversed(_FLAGS):
        command = flag(command)
    return command


@dataclass
class Publisher:
    """What a mutant-running command prints and writes, as its flags asked."""

    gate: api.Gate
    options: api.RunOptions
    console: Console
    verbosity: Verbosity

    @classmethod
    def from_flags(cls, ctx: click.Context, flags: dict[str, Any], **overrides: Any) -> Publisher:
        if flags["quiet"] and flags["verbose"]:
            raise api.GuardcheckError("--quiet and --verbose contradict each other; pick one")
        gate = api.Gate(
            allow_caught_elsewhere=flags["allow_caught_elsewhere"], fail_under=flags["fail_under"]
        )
        shard = flags["shard"]
        options = options_of(
            ctx,
            shard=api.parse_shard(shard) if shard is not None else None,
            shard_times=flags["shard_times"],
            jobs=flags["jobs"],
            timeout_factor=flags["timeout_factor"],
            timeout_constant=flags["timeout_constant"],
            baseline_runs=flags["baseline_runs"],
            baseline_timeout=flags["baseline_timeout"],
            memory_limit_mb=flags["memory_limit_mb"],
            matrix=flags["matrix"] or None,
            cache=False if flags["no_cache"] else None,
            gate=gate,
            **overrides,
        )
        check_report_paths(ctx, options.root)
        quiet, verbose = flags["quiet"], flags["verbose"]
        verbosity = Verbosity.QUIET if quiet else Verbosity.VERBOSE if verbose else Verbosity.NORMAL
        return cls(gate, options, make_console(), verbosity)

    def progress(self) -> ConsoleProgress:
        return ConsoleProgress(self.console, verbosity=self.verbosity, gate=self.gate)

    def finish(self, ctx: click.Context, report: api.RunReport) -> None:
        """The table (or the summary line), every report file, the exit code."""
        if self.verbosity is Verbosity.QUIET:
            self.console.print(summary_line(report, self.gate), highlight=False)
        else:
            render_table(report, self.console, gate=self.gate)
            if self.options.matrix:
                render_matrix(report, self.console)
        finish(ctx, report, self.gate)
