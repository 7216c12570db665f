"""The report flags `run` and `merge` share, and how both end: reports written, exit code."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import click

from guardcheck import api
from guardcheck.reports.html import write_html
from guardcheck.reports.junit import write_junit
from guardcheck.reports.markdown import write_markdown
from guardcheck.reports.stryker import write_json

F = TypeVar("F", bound=Callable[..., Any])
_PATHS = "guardcheck.report_paths"

# flag -> (help, writer)
_REPORTS: dict[str, tuple[str, Callable[..., Path]]] = {
    "--json": ("Stryker-schema JSON report (what `merge` reads).", write_json),
    "--junit": ("JUnit XML report.", write_junit),
    "--markdown": ("Markdown summary.", write_markdown),
    "--html": ("Self-contained HTML report (Stryker's viewer, offline).", write_html),
}


def _remember(flag: str) -> Callable[[click.Context, click.Parameter, Any], None]:
    def store(ctx: click.Context, param: click.Parameter, value: Path | None) -> None:
        if value is not None:
            ctx.meta.setdefault(_PATHS, {})[flag] = value

    return store


def report_options(command: F) -> F:
    """`--json`, `--junit`, `--markdown`, `--html PATH`; `finish` writes what was asked."""
    for flag, (help_text, _write) in reversed(_REPORTS.items()):
        option = click.option(
            flag,
            type=click.Path(path_type=Path),
            expose_value=False,
            callback=_remember(flag),
            help=help_text,
        )
        command = option(command)
    return command


def check_report_paths(ctx: click.Context, root: Path) -> None:
    """Before anything runs: every report flag's path can be written (see `check_paths`)."""
    check_paths(ctx.meta.get(_PATHS, {}), root)


def check_paths(paths: Mapping[str, Path], root: Path) -> None:
    """Every report path can be written, and is no file of the project; missing folders made.

    `--markdown pkg/core.py` would overwrite source code; a folder, a file where a
    parent folder should be, a folder that cannot be made or a file that cannot be
    written would only fail after the whole run, with its results unreported. A
    refusal is a GuardcheckError (exit 2) and leaves no folder this check made.
    """
    made: list[Path] = []
    try:
        for flag, path in paths.items():
            _check_path(flag, path, root, made)
    except api.GuardcheckError:
        for folder in reversed(made):
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise


def _check_path(flag: str, path: Path, root: Path, made: list[Path]) -> None:
    full = path if path.is_absolute() else Path.cwd() / path
    try:
        _check_place(flag, path, full, root, made)
    except OSError as exc:  # even looking failed (a name too long, a folder we may not read)
        raise api.GuardcheckError(
            f"{flag} {path}: cannot be written: {exc.strerror or exc}\n"
            "  fix: name a file you can write, in a folder you can write"
        ) from None


def _check_place(flag: str, path: Path, full: Path, root: Path, made: list[Path]) -> None:
    if full.is_dir():
        raise api.GuardcheckError(f"{flag} {path}: is a folder\n  fix: name a file")
    existing = next(p for p in full.parents if p.exists())
    if not existing.is_dir():
        raise api.GuardcheckError(
            f"{flag} {path}: {existing} is a file, so no folder can be made below it\n"
            "  fix: name a path in a folder"
        )
    if full.is_file() and _project_file(full, root):
        raise api.GuardcheckError(
            f"{flag} {path}: is a file of your project (source, or tracked by git); "
            "a report would overwrite it\n  fix: write the report somewhere else"
        )
    missing = [p for p in reversed(full.parents) if not p.exists()]
    for folder in missing:
        try:
            folder.mkdir()
        except OSError as exc:
            raise api.GuardcheckError(
                f"{flag} {path}: cannot create the folder {folder}: {exc.strerror or exc}\n"
                "  fix: name a path in a folder you can write, or create it first"
            ) from None
        made.append(folder)
    _probe(full)


def _probe(full: Path) -> None:
    """Open the report for appending, as a writer will open it; remove it if it was not there."""
    existed = full.exists()
    with full.open("ab"):
        pass
    if not existed:
        full.unlink(missing_ok=True)


def _project_file(path: Path, root: Path) -> bool:
    try:
        path.resolve().relative_to(root)
    except ValueError:
        return False
    if path.suffix in {".py", ".pyi", ".toml"}:
        return True
    tracked = subprocess.run(
        ["git", "ls-files", "--error-unmatch", "--", str(path.resolve())],
        cwd=root,
        capture_output=True,
        check=False,
    )
    return tracked.returncode == 0


def finish(ctx: click.Context, report: api.RunReport, gate: api.Gate) -> NoReturn:
    """Write the requested reports, say when results are incomplete, exit with the gate's code."""
    failed = []
    for flag, path in ctx.meta.get(_PATHS, {}).items():
        try:
            _REPORTS[flag][1](report, path, gate=gate)
        except OSError as exc:  # e.g. the disk filled: the other reports are still written
            failed.append(f"{flag} {path}: {exc.strerror or exc}")
    if failed:
        click.echo("guardcheck: could not write: " + "; ".join(failed), err=True)
        if not report.incomplete and not report.interrupted:
            report.incomplete = "report(s) not written: " + "; ".join(failed)
    if report.incomplete:
        click.echo(f"guardcheck: results incomplete: {report.incomplete}", err=True)
    sys.stdout.flush()
    ctx.exit(int(api.exit_code(report, gate)))
