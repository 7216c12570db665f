"""`guardcheck run`: parse the flags, call `api.run`, render the report, exit with its code."""

from __future__ import annotations

from typing import Any

import click

from guardcheck import api
from guardcheck.commands.group import global_options
from guardcheck.commands.labflags import Publisher, lab_flags


@click.command("run")
@global_options
@click.option(
    "--only",
    "only",
    multiple=True,
    metavar="GLOB",
    help="Run only mutations whose id or tag matches; repeatable.",
)
@lab_flags
@click.pass_context
def run(ctx: click.Context, only: tuple[str, ...], **flags: Any) -> None:
    """Prove the tests catch every mutation in the catalogue.

    Validates the catalogue (as `check --collect`: `killed_by` ids are checked
    against the run's own collection before any test runs), runs the tests once
    unmutated, then each mutant in isolation, in memory: the working tree is
    never written. Exit 0 when every mutant is caught, 1 when the gate fails,
    2 on a catalogue or usage error, 3 when the baseline fails (or, with
    --baseline-runs N, a test changes outcome between runs), 4 when guardcheck
    could not finish (the pytest host died, an internal error: the reports
    hold what finished), 130 when interrupted.
    """
    publish = Publisher.from_flags(ctx, flags, only=only or None)
    with publish.progress() as progress:
        report = api.run(publish.options, progress)
    publish.finish(ctx, report)
