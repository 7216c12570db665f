"""The `guardcheck` command group: global options, then one module per command family."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import click

from guardcheck import __version__
from guardcheck.commands.catalogue import COMMANDS as CATALOGUE_COMMANDS
from guardcheck.commands.equiv import equiv_command
from guardcheck.commands.group import GuardcheckGroup
from guardcheck.commands.run import run
from guardcheck.options import find_root, load_settings


@click.group(cls=GuardcheckGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="guardcheck")
@click.option(
    "--root",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    help="Project root (default: the nearest folder with a pyproject.toml).",
)
@click.option(
    "--catalogue",
    "catalogues",
    multiple=True,
    type=click.Path(path_type=Path),
    help="Catalogue file or folder; repeatable. Overrides [tool.guardcheck] catalogue.",
)
@click.pass_context
def main(ctx: click.Context, root: Path | None, catalogues: tuple[Path, ...]) -> None:
    """Prove that your pytest suite catches the regressions it claims to.

    Exit codes: 0 ok, 1 gate failed, 2 catalogue or usage error,
    3 baseline failed, 130 interrupted.
    """
    settings = load_settings(root if root is not None else find_root(Path.cwd()))
    if catalogues:
        settings = replace(settings, catalogue=tuple(p.resolve() for p in catalogues))
    ctx.obj = settings


for command in (*CATALOGUE_COMMANDS, run, equiv_command):
    main.add_command(command)

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
