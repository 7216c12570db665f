"""`guardcheck sweep`: mutmut's operator mutants through the same lab as `run`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from guardcheck import api
from guardcheck.commands.group import global_options
from guardcheck.commands.labflags import Publisher, lab_flags


@click.command("sweep")
@global_options
@click.argument("paths", nargs=-1, metavar="[PATHS]...")
@click.option("--since", metavar="REV", help="Only mutate lines changed since this git revision.")
@click.option(
    "--emit-catalogue",
    "emit_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write each survivor as a ready-to-edit catalogue entry to this TOML file.",
)
@lab_flags
@click.pass_context
def sweep_command(
    ctx: click.Context,
    paths: tuple[str, ...],
    since: str | None,
    emit_path: Path | None,
    **flags: Any,
) -> None:
    """Mutate PATHS (default: [tool.guardcheck] source) with mutmut's operators and run
    each mutant like `guardcheck run` does.

    Gate: every mutant caught, or with --fail-under SCORE the mutation score
    (caught over caught + survived + no-coverage) at least SCORE. Exit codes as
    for `run`.
    """
    publish = Publisher.from_flags(ctx, flags)
    with publish.progress() as progress:
        swept = api.sweep(publish.options, paths, since=since, events=progress)
    skipped = ", ".join(f"{n} {name}" for name, n in swept.skipped.items() if n)
    publish.console.print(
        f"sweep: {swept.generated} mutants from {swept.files} file(s) with mutmut's operators; "
        f"skipped {sum(swept.skipped.values())}" + (f" ({skipped})" if skipped else ""),
        highlight=False,
    )
    for warning in swept.warnings:
        click.echo(f"guardcheck: warning: {warning}", err=True)
    if emit_path is not None:
        survivors = [r for r in swept.report.results if r.status is api.Status.SURVIVED]
        emit_path.write_text(api.emit_catalogue(survivors, publish.options.root), "utf-8")
        click.echo(f"wrote {len(survivors)} survivor(s) as catalogue entries to {emit_path}")
    publish.finish(ctx, swept.report)
