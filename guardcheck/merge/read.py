"""Reading a JSON report back for `guardcheck merge`: every way it can be wrong is exit 2."""

from __future__ import annotations

import json
from pathlib import Path

from guardcheck.errors import GuardcheckError
from guardcheck.model import RunReport
from guardcheck.reports.record import NotAGuardcheckReport, report_from_json


def read_report(path: Path) -> RunReport:
    """A JSON report written by `guardcheck run --json`; clear errors (exit 2) otherwise."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise GuardcheckError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise GuardcheckError(f"{path}: is a folder, not a JSON report") from None
    except UnicodeDecodeError:
        raise GuardcheckError(f"{path}: not a JSON report (not UTF-8 text)") from None
    except OSError as exc:
        raise GuardcheckError(f"{path}: cannot be read: {exc.strerror}") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise GuardcheckError(f"{path}: not JSON ({exc})") from None
    try:
        return report_from_json(doc)
    except NotAGuardcheckReport as exc:
        raise GuardcheckError(
            f"{path}: {exc}\n  fix: pass the reports `guardcheck run --json PATH` wrote"
        ) from None
