"""`guardcheck lint-tests`: static test-smell checks; exit 1 on any finding, 2 on a bad path."""

from __future__ import annotations

import json
from pathlib import Path

import click

from guardcheck import api
from guardcheck.commands.group import global_options, options_of

DEFAULT_TESTS = ("tests",)


@click.command("lint-tests")
@global_options
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path), metavar="[PATHS]...")
@click.option("--json", "as_json", is_flag=True, help="Print the stable JSON report instead.")
@click.pass_context
def lint_tests_command(ctx: click.Context, paths: tuple[Path, ...], as_json: bool) -> None:
    """Find test smells: source-reading, no-assert, tautology, broad-raises,
    skip-without-reason (and files that do not parse).

    PATHS default to `tests` of [tool.guardcheck], else tests/. Silence one
    finding with `# guardcheck: allow RULE  reason` on its line. Exit 0 when
    clean, 1 on any finding, 2 when a path does not exist.
    """
    settings = options_of(ctx)
    # Paths typed by the user are relative to the current folder; configured ones to the root.
    chosen = list(paths) or [settings.resolve(Path(p)) for p in settings.tests or DEFAULT_TESTS]
    report = api.lint_tests(chosen, settings.root)
    if as_json:
        click.echo(json.dumps(report.as_json(), indent=2, ensure_ascii=False))
    else:
        click.echo(report.render())
    ctx.exit(int(report.exit_code))
