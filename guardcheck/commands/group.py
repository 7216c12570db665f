"""The click group class and the settings every command reads from the context."""

from __future__ import annotations

import click

from guardcheck.errors import CatalogueInvalid, GuardcheckError
from guardcheck.exitcodes import ExitCode
from guardcheck.options import Settings


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


def settings_of(ctx: click.Context) -> Settings:
    settings = ctx.find_object(Settings)
    if settings is None:  # only when a command is invoked without the group
        raise GuardcheckError("internal: command invoked without settings")
    return settings
