"""Catalogue commands: `list`, `check`, `show`, `apply`.

Only `apply` writes to the working tree; `list`, `check` and `show` build
mutants in memory and write nothing at all.
"""

from __future__ import annotations

import json
import sys

import click

from guardcheck import api
from guardcheck.commands.group import global_options, options_of


@click.command("list")
@global_options
@click.option("--json", "as_json", is_flag=True, help="Print the stable JSON listing instead.")
@click.pass_context
def list_command(ctx: click.Context, as_json: bool) -> None:
    """Every entry: id, target file:line, tags and summary.

    Works on a broken catalogue too: entries that do not build are listed as
    invalid, and the exit code is still 0. `guardcheck check` is the gate.
    """
    options = options_of(ctx)
    _note_applied(options)
    listing = api.list_entries(options)
    if as_json:
        click.echo(json.dumps(listing.json, indent=2, ensure_ascii=False))
    else:
        _print_table(listing.rows)
    if listing.problems:
        count = listing.problems
        noun = "problem" if count == 1 else "problems"
        click.echo(f"catalogue has {count} {noun}: run `guardcheck check` to see them", err=True)


def _print_table(listed: list[api.Row]) -> None:
    if sys.stdout.isatty():
        _print_rich_table(listed)
        return
    # Plain, aligned columns when piped: one entry per line, easy to grep.
    cells = [(row.id, _target(row), ",".join(row.tags), row.summary) for row in listed]
    widths = [max((len(c[i]) for c in cells), default=0) for i in range(3)]
    for id_, target, tags, summary in cells:
        click.echo(
            f"{id_:<{widths[0]}}  {target:<{widths[1]}}  {tags:<{widths[2]}}  {summary}".rstrip()
        )
    click.echo(f"{len(listed)} {'mutation' if len(listed) == 1 else 'mutations'}")


def _print_rich_table(listed: list[api.Row]) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    table = Table()
    for column in ("id", "target", "tags", "summary"):
        table.add_column(column, overflow="fold")
    for row in listed:
        # Text, not markup strings: a summary like "a[0] stays" must print as written.
        target = Text(_target(row), style="" if row.valid else "red")
        table.add_row(Text(row.id), target, Text(", ".join(row.tags)), Text(row.summary))
    console = Console(highlight=False)
    console.print(table)
    console.print(f"{len(listed)} {'mutation' if len(listed) == 1 else 'mutations'}")


def _target(row: api.Row) -> str:
    return row.target if row.valid else f"{row.target} (INVALID: {', '.join(row.problems)})"


@click.command("check")
@global_options
@click.option(
    "--collect",
    is_flag=True,
    help="Also run `pytest --collect-only` and check every killed_by test id.",
)
@click.pass_context
def check_command(ctx: click.Context, collect: bool) -> None:
    """Validate every entry and apply it in memory; exit 2 on any problem."""
    options = options_of(ctx)
    _note_applied(options)
    mutants = api.check(options, collect=collect)
    noun = "mutation" if len(mutants) == 1 else "mutations"
    checked = " (killed_by collected)" if collect else ""
    click.echo(f"{len(mutants)} {noun} OK{checked}")


@click.command("show")
@global_options
@click.argument("ids", nargs=-1, required=True, metavar="ID...")
@click.pass_context
def show_command(ctx: click.Context, ids: tuple[str, ...]) -> None:
    """The unified diff each mutation makes, headed by its id and summary."""
    options = options_of(ctx)
    _note_applied(options)
    mutants = api.show(options, ids)
    for index, mutant in enumerate(mutants):
        if index:
            click.echo()
        where = f" ({mutant.declared_at})" if mutant.declared_at else ""
        click.echo(f"# {mutant.id}{where}: {mutant.summary}")
        click.echo(mutant.diff(), nl=False)


@click.command("apply")
@global_options
@click.argument("mutation_id", metavar="ID")
@click.option("--revert", "undo", is_flag=True, help="Restore the files `apply ID` changed.")
@click.pass_context
def apply_command(ctx: click.Context, mutation_id: str, undo: bool) -> None:
    """Write one mutant into the working tree, for debugging; `--revert` restores it exactly."""
    options = options_of(ctx)
    if undo:
        restored = api.revert(options, mutation_id)
        click.echo(f"reverted {mutation_id}: restored {', '.join(restored)}", err=True)
        return
    mutant, state = api.apply(options, mutation_id)
    click.echo(mutant.diff(), nl=False)
    files = ", ".join(f"{c.path}:{c.span.line}" for c in mutant.changes)
    click.secho(
        f"WARNING: mutation `{mutant.id}` is now written into your working tree ({files}).\n"
        f"  This is the bug, on purpose. Original bytes saved in {options.display(state)}.\n"
        f"  Run `guardcheck apply --revert {mutant.id}` to restore them.",
        err=True,
        fg="yellow",
        bold=True,
    )


def _note_applied(options: api.RunOptions) -> None:
    applied = api.applied(options)
    if applied:
        # An applied mutant no longer matches its own `find`: say why before it reads as stale.
        click.secho(
            f"note: applied to the working tree: {', '.join(applied)}; "
            "revert with `guardcheck apply --revert ID`",
            err=True,
            fg="yellow",
        )


COMMANDS = [list_command, check_command, show_command, apply_command]
