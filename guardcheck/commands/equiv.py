"""`guardcheck equiv OLD NEW`: differential fuzzing of two implementations, across revisions."""

from __future__ import annotations

import click

from guardcheck import api
from guardcheck.commands.group import global_options, options_of


def _methods(text: str | None) -> tuple[str, ...] | None:
    if text is None:
        return None
    return tuple(m.strip() for m in text.split(",") if m.strip()) or None


@click.command("equiv")
@global_options
@click.argument("old")
@click.argument("new")
@click.option(
    "--strategy",
    metavar="MODULE:FUNCTION",
    help="A function returning a Hypothesis strategy of keyword-argument dicts "
    "(with --stateful: a dict of 'keys'/'values' strategies).",
)
@click.option(
    "--assume",
    metavar="MODULE:FUNCTION",
    help="A predicate over the keyword arguments: only inputs it accepts are compared.",
)
@click.option(
    "--examples",
    type=int,
    metavar="N",
    help=f"Inputs to compare (default {api.DEFAULT_EXAMPLES:,}); "
    "with --stateful, call sequences (default 500).",
)
@click.option(
    "--bound",
    type=int,
    metavar="N",
    help="Draw ints from [-N, N], which makes them a finite (enumerable) domain.",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Hypothesis seed.")
@click.option(
    "--backend",
    type=click.Choice(["hypothesis", "crosshair"]),
    default="hypothesis",
    show_default=True,
    help="crosshair: symbolic search (pip install 'guardcheck[crosshair]').",
)
@click.option(
    "--stateful",
    is_flag=True,
    help="OLD and NEW are zero-argument factories; compare call sequences on the objects.",
)
@click.option("--methods", metavar="A,B,C", help="With --stateful: only these methods.")
@click.option(
    "--steps",
    type=int,
    default=40,
    show_default=True,
    help="With --stateful: the longest call sequence.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON (version 1).")
@click.pass_context
def equiv_command(
    ctx: click.Context,
    old: str,
    new: str,
    strategy: str | None,
    assume: str | None,
    examples: int | None,
    bound: int | None,
    seed: int,
    backend: str,
    stateful: bool,
    methods: str | None,
    steps: int,
    as_json: bool,
) -> None:
    """Do OLD and NEW behave the same? Each is package.module:qualname, optionally @REV.

    Inputs come from OLD's type annotations (or --strategy): exhaustive when every
    argument has a small finite domain, then each defaulted argument left out (alone
    and all together), boundary values from the constants in the code, then
    Hypothesis. A disagreement is shrunk and shown with both outcomes. @REV serves the
    whole project from that commit; modules are found from the project root, its
    source folders and pytest's pythonpath.

    Exit codes: 0 no disagreement, 1 disagreement, 2 usage error.
    """
    settings = options_of(ctx)
    request = api.EquivRequest(
        root=settings.root,
        old=old,
        new=new,
        sources=settings.source,
        strategy=strategy,
        assume=assume,
        examples=examples,
        bound=bound,
        seed=seed,
        backend=backend,
        stateful=stateful,
        methods=_methods(methods),
        steps=steps,
    )
    result = api.equiv(request)
    click.echo(result.json_text() if as_json else result.text())
    ctx.exit(0 if result.equal else 1)
