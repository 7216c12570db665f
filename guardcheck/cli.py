"""The `guardcheck` command group: global options, then one module per command family."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import click

from guardcheck import __version__
from guardcheck.config import Settings, find_root, load_settings
from guardcheck.errors import CatalogueInvalid, GuardcheckError
from guardcheck.exitcodes import ExitCode


class GuardcheckGroup(click.Group):
    """Turns GuardcheckError into its message and exit code instead of a traceback."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except CatalogueInvalid as exc:
            # Each problem already starts with its file:line; a prefix would hide that.
            click.echo(str(exc), err=True)
            ctx.exit(int(exc.code))
        except GuardcheckError as exc:
            click.echo(f"guardcheck: {exc}", err=True)
            ctx.exit(int(exc.code))
        except KeyboardInterrupt:
            click.echo("guardcheck: interrupted", err=True)
            ctx.exit(int(ExitCode.INTERRUPTED))


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


def settings_of(ctx: click.Context) -> Settings:
    settings = ctx.find_object(Settings)
    if settings is None:  # only when a command is invoked without the group
        raise GuardcheckError("internal: command invoked without settings")
    return settings


def _register() -> None:
    # Command modules import `main`/`settings_of` from here, so register them last.
    from guardcheck import commands

    for command in commands.ALL:
        main.add_command(command)


_register()

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
