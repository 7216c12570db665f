"""The click group class, the global options, and the RunOptions every command reads.

`--root` and `--catalogue` work before the subcommand (`guardcheck --root X run`)
and after it (`guardcheck run --root X`), where new users type them; given in
both places, the subcommand's wins. Options are loaded when a command asks
for them, so `--help` works anywhere.
"""

from __future__ import annotations

import os
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from guardcheck import api

F = TypeVar("F", bound=Callable[..., Any])
_ROOT = "guardcheck.root"
_CATALOGUES = "guardcheck.catalogues"


class GuardcheckGroup(click.Group):
    """Turns GuardcheckError into its message and exit code instead of a traceback."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            with api.sigterm_as_interrupt():  # SIGTERM is 130 too, in every phase of every command
                api.check_installed()  # a library outside its range: said before anything runs
                return super().invoke(ctx)
        except api.CatalogueInvalid as exc:
            # Each problem already starts with its file:line; a prefix would hide that.
            click.echo(str(exc), err=True)
            ctx.exit(int(exc.code))
        except api.GuardcheckError as exc:
            click.echo(f"guardcheck: {exc}", err=True)
            ctx.exit(int(exc.code))
        except KeyboardInterrupt:
            click.echo("guardcheck: interrupted", err=True)
            ctx.exit(int(api.ExitCode.INTERRUPTED))
        except (click.exceptions.Exit, click.ClickException, click.Abort):
            raise
        except Exception as exc:  # a bug of ours: one line and exit 4, never a traceback
            click.echo(f"guardcheck: internal error: {type(exc).__name__}: {exc}", err=True)
            if os.environ.get("GUARDCHECK_DEBUG"):
                traceback.print_exc()
            ctx.exit(int(api.ExitCode.INCOMPLETE))


def _remember(key: str) -> Callable[[click.Context, click.Parameter, Any], None]:
    def store(ctx: click.Context, param: click.Parameter, value: Any) -> None:
        if value:  # the innermost context that names it wins
            ctx.meta[key] = value

    return store


def global_options(command: F) -> F:
    """`--root` and `--catalogue`, for the group and for every subcommand."""
    root = click.option(
        "--root",
        type=click.Path(file_okay=False, exists=True, path_type=Path),
        expose_value=False,
        callback=_remember(_ROOT),
        help=api.RunOptions.help_for("root"),
    )
    catalogue = click.option(
        "--catalogue",
        multiple=True,
        type=click.Path(path_type=Path),
        expose_value=False,
        callback=_remember(_CATALOGUES),
        help="Catalogue file or folder; repeatable. Overrides [tool.guardcheck] catalogue.",
    )
    return root(catalogue(command))


def options_of(ctx: click.Context, **overrides: Any) -> api.RunOptions:
    """The invocation's RunOptions: command-line `overrides` over [tool.guardcheck]."""
    catalogues = ctx.meta.get(_CATALOGUES)
    if catalogues:
        overrides["catalogue"] = tuple(p.resolve() for p in catalogues)
    return api.load_options(ctx.meta.get(_ROOT), **overrides)
