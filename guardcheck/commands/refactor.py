"""`guardcheck refactor --base REV [--moves PATH]`: does a refactor keep the base's promises?"""

from __future__ import annotations

import os
from pathlib import Path

import click

from guardcheck import api
from guardcheck.commands.group import global_options, options_of


class _UsageWithFix(click.Command):
    """click's own usage errors (a bad choice, a number out of range) end with a fix line,
    like every other usage error of the command."""

    def make_context(
        self,
        info_name: str | None,
        args: list[str],
        parent: click.Context | None = None,
        **extra: object,
    ) -> click.Context:
        try:
            return super().make_context(info_name, args, parent=parent, **extra)  # type: ignore[arg-type]
        except click.UsageError as exc:
            if "fix:" not in exc.message:
                exc.message += "\n  fix: `guardcheck refactor --help` lists every option and value"
            raise


@click.command("refactor", cls=_UsageWithFix)
@global_options
@click.option(
    "--base",
    metavar="REV",
    help="The revision before the refactor (default: the merge base of HEAD with "
    "origin/HEAD, else main, else master).",
)
@click.option(
    "--moves",
    type=click.Path(path_type=Path),
    metavar="PATH",
    help="A migration table (moves.toml): old names, where they may still appear, and views.",
)
@click.option(
    "--moves-scan-tests",
    is_flag=True,
    help="Also look for old names of the migration table in the tests.",
)
@click.option(
    "--fail-on",
    "fail_on",
    multiple=True,
    type=click.Choice(sorted(api.REFACTOR_INFORMATIONAL)),
    help="Make an informational check fail the command; repeatable.",
)
@click.option(
    "--only",
    "only",
    multiple=True,
    type=click.Choice(api.REFACTOR_CHECKS),
    help="Run only this check; repeatable (default: every check).",
)
@click.option(
    "--equiv-examples",
    type=click.IntRange(min=1),
    default=api.REFACTOR_EQUIV_EXAMPLES,
    show_default=True,
    metavar="N",
    help="Inputs per changed function for the differential check.",
)
@click.option("--no-equiv", is_flag=True, help="Skip the differential check of changed functions.")
@click.option("--json", "json_path", type=click.Path(path_type=Path), help="JSON report.")
@click.option(
    "--markdown", "markdown_path", type=click.Path(path_type=Path), help="Markdown summary."
)
@click.pass_context
def refactor_command(
    ctx: click.Context,
    base: str | None,
    moves: Path | None,
    moves_scan_tests: bool,
    fail_on: tuple[str, ...],
    only: tuple[str, ...],
    equiv_examples: int,
    no_equiv: bool,
    json_path: Path | None,
    markdown_path: Path | None,
) -> None:
    """Verify a refactor against the base revision, one check at a time.

    old-tests: the base's tests run against today's source (failures already
    failing at the base are excluded). names: names removed or changed
    incompatibly since the base that are still used. lost-assertions: base
    tests gone or asserting less (informational unless --fail-on). mutations:
    catalogue entries caught at the base and not caught (or stale, or back
    in today's code) now. equiv: every function whose body or signature
    changed, run base-vs-today on the same generated inputs. moves: with
    --moves, old names used outside their adapters, and each view compared
    with the container it replaced; its [[accept]] tables let named base
    tests fail on purpose.

    Exit codes: 0 every check passed, 1 a check failed, 2 usage error.
    """
    request = api.RefactorRequest(
        options=options_of(ctx),
        base=base,
        moves=moves,
        moves_scan_tests=moves_scan_tests,
        fail_on=frozenset(fail_on),
        only=only,
        equiv_examples=equiv_examples,
        no_equiv=no_equiv,
    )
    report = api.refactor(request)
    click.echo(api.refactor_report(report, "text"))
    if os.environ.get("GITHUB_ACTIONS"):
        click.echo(api.refactor_report(report, "annotations"))
    for path, form in ((markdown_path, "markdown"), (json_path, "json")):
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(api.refactor_report(report, form), encoding="utf-8")
    ctx.exit(int(api.ExitCode.GATE_FAILED if report.failed else api.ExitCode.OK))
