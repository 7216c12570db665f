"""Click commands, one module per command family; `ALL` is what the group registers."""

from __future__ import annotations

import click

from guardcheck.commands.catalogue import COMMANDS as CATALOGUE_COMMANDS
from guardcheck.commands.run import run

ALL: list[click.Command] = [*CATALOGUE_COMMANDS, run]
