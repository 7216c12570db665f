"""`guardcheck review --base REV`: how strong are the tests of this change?"""

from __future__ import annotations

import os
from pathlib import Path

import click

from guardcheck import api
from guardcheck.commands.group import global_options, options_of
from guardcheck.commands.reporting import check_paths


def _categories(ctx: click.Context, param: click.Parameter, value: str | None) -> frozenset[str]:
    if value is None:
        return frozenset(api.REVIEW_DEFAULT_FAIL_ON)
    chosen = {part.strip() for part in value.split(",") if part.strip()}
    unknown = sorted(chosen - set(api.REVIEW_CATEGORIES))
    if unknown:
        raise click.BadParameter(
            f"unknown {', '.join(unknown)}; choose from {', '.join(api.REVIEW_CATEGORIES)}"
        )
    return frozenset(chosen)


@click.command("review")
@global_options
@click.option(
    "--base",
    metavar="REV",
    help="The revision the change is measured from (default: the merge base of HEAD with "
    "origin/HEAD, else main, else master).",
)
@click.option(
    "--all-mutants",
    is_flag=True,
    help="Accepted for older scripts; every operator mutant on the changed lines is now the "
    "default.",
)
@click.option(
    "--max-mutants",
    type=click.IntRange(min=1),
    metavar="N",
    help="Run at most N operator mutants (a seeded sample spread over the changed lines, "
    "reported as such); catalogue entries always run. Default: every one.",
)
@click.option(
    "--sample-seed",
    type=int,
    default=0,
    show_default=True,
    help="The seed of the --max-mutants sample.",
)
@click.option(
    "--fail-on",
    "fail_on",
    metavar="LIST",
    callback=_categories,
    help="Comma-separated findings that fail the command: survived, vacuous, source-reading, "
    "unpinned, stale (default: survived,vacuous,source-reading,stale).",
)
@click.option("--json", "json_path", type=click.Path(path_type=Path), help="JSON report.")
@click.option(
    "--markdown",
    "markdown_path",
    type=click.Path(path_type=Path),
    help="Markdown summary (also appended to $GITHUB_STEP_SUMMARY when set).",
)
@click.option(
    "--pr-comment",
    is_flag=True,
    help="Post the Markdown as the pull request's guardcheck comment, or update it "
    "(GITHUB_TOKEN, GITHUB_REPOSITORY, GITHUB_EVENT_PATH; a failure is a warning).",
)
@click.pass_context
def review_command(
    ctx: click.Context,
    base: str | None,
    all_mutants: bool,
    max_mutants: int | None,
    sample_seed: int,
    fail_on: frozenset[str],
    json_path: Path | None,
    markdown_path: Path | None,
    pr_comment: bool,
) -> None:
    """Test strength of the change since REV: mutants on changed lines (a kill matrix),
    survivors, vacuous tests, source-reading tests, tests that pass on the base, and
    named mutations the change made stale.

    Exit codes: 0 no failing finding, 1 a --fail-on finding, 2 usage error,
    3 the baseline is red, 4 the mutant run stopped early, 130 interrupted.
    """
    options = options_of(ctx)
    reports = {"--json": json_path, "--markdown": markdown_path}
    check_paths({flag: path for flag, path in reports.items() if path is not None}, options.root)
    request = api.ReviewRequest(
        options=options,
        base=base,
        max_mutants=max_mutants,
        sample_seed=sample_seed,
        fail_on=fail_on,
    )
    report = api.review(request)
    click.echo(api.review_report(report, "text"))
    if os.environ.get("GITHUB_ACTIONS"):
        click.echo(api.review_report(report, "annotations"))
    markdown = api.review_report(report, "markdown")
    for path, text in ((markdown_path, markdown), (json_path, None)):
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text or api.review_report(report, "json"), encoding="utf-8")
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        with open(summary, "a", encoding="utf-8") as out:
            out.write(markdown)
    if pr_comment:
        click.echo(api.pr_comment(markdown, os.environ).message, err=True)
    ctx.exit(int(api.ExitCode.GATE_FAILED if report.failed else api.ExitCode.OK))
