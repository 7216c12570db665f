"""The `guardcheck` command group; one module per command family registers its commands."""

from __future__ import annotations

import atexit
import os
import sys
from typing import NoReturn

import click

from guardcheck.api import __version__
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


def cli() -> NoReturn:
    """The console script: `main`, then an exit without the interpreter's teardown.

    By the time a command exits, the lab has stopped its processes and the reports and
    the cache are on disk; freeing every module and libcst tree one by one was a visible
    part of a short sweep (bench/README.md). Exit handlers still run.
    """
    try:
        main()
        code = 0
    except SystemExit as exc:
        code = _exit_status(exc.code)
    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def _exit_status(code: object) -> int:
    """What the interpreter would exit with for `SystemExit(code)`."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


if __name__ == "__main__":  # pragma: no cover
    cli()
