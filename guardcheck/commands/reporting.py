"""The report flags `run` and `merge` share, and how both end: reports written, exit code."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import click

from guardcheck import api
from guardcheck.reports.html import write_html
from guardcheck.reports.junit import write_junit
from guardcheck.reports.markdown import write_markdown
from guardcheck.reports.stryker import write_json

F = TypeVar("F", bound=Callable[..., Any])
_PATHS = "guardcheck.report_paths"

# flag -> (help, writer)
_REPORTS: dict[str, tuple[str, Callable[..., Path]]] = {
    "--json": ("Stryker-schema JSON report (what `merge` reads).", write_json),
    "--junit": ("JUnit XML report.", write_junit),
    "--markdown": ("Markdown summary.", write_markdown),
    "--html": ("Self-contained HTML report (Stryker's viewer, offline).", write_html),
}


def _remember(flag: str) -> Callable[[click.Context, click.Parameter, Any], None]:
    def store(ctx: click.Context, param: click.Parameter, value: Path | None) -> None:
        if value is not None:
            ctx.meta.setdefault(_PATHS, {})[flag] = value

    return store


def report_options(command: F) -> F:
    """`--json`, `--junit`, `--markdown`, `--html PATH`; `finish` writes what was asked."""
    for flag, (help_text, _write) in reversed(_REPORTS.items()):
        option = click.option(
            flag,
            type=click.Path(path_type=Path),
            expose_value=False,
            callback=_remember(flag),
            help=help_text,
        )
        command = option(command)
    return command


def finish(ctx: click.Context, report: api.RunReport, gate: api.Gate) -> NoReturn:
    """Write the requested reports, say when results are incomplete, exit with the gate's code."""
    for flag, path in ctx.meta.get(_PATHS, {}).items():
        _REPORTS[flag][1](report, path, gate=gate)
    if report.incomplete:
        click.echo(f"guardcheck: results incomplete: {report.incomplete}", err=True)
    sys.stdout.flush()
    ctx.exit(int(api.exit_code(report, gate)))
