"""The `guardcheck` command group; one module per command family registers its commands."""

from __future__ import annotations

import sys

import click

from guardcheck import __version__
from guardcheck.commands.catalogue import COMMANDS as CATALOGUE_COMMANDS
from guardcheck.commands.equiv import equiv_command
from guardcheck.commands.group import GuardcheckGroup, global_options
from guardcheck.commands.lint import lint_tests_command
from guardcheck.commands.merge import merge_command
from guardcheck.commands.refactor import refactor_command
from guardcheck.commands.review import review_command
from guardcheck.commands.run import run
from guardcheck.commands.sweep import sweep_command


@click.group(cls=GuardcheckGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="guardcheck")
@global_options
def main() -> None:
    """Prove that your pytest suite catches the regressions it claims to.

    Exit codes: 0 ok, 1 gate failed, 2 catalogue or usage error,
    3 baseline failed, 4 internal error (results incomplete), 130 interrupted.
    """


for command in (
    *CATALOGUE_COMMANDS,
    run,
    sweep_command,
    merge_command,
    lint_tests_command,
    equiv_command,
    refactor_command,
    review_command,
):
    main.add_command(command)

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
