"""Click commands, one module per command family; `ALL` is what the group registers."""

from __future__ import annotations

import click

ALL: list[click.Command] = []
