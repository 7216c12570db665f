"""`guardcheck merge`: shard reports read back and combined into one run's report."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from guardcheck.merge import merge_reports, read_report
from guardcheck.model import RunReport


def merge(
    paths: Sequence[Path],
    *,
    allow_caught_elsewhere: bool | None = None,
    fail_under: float | None = None,
) -> RunReport:
    """`guardcheck merge`: shard JSON reports read back and combined into one RunReport.

    Its `provenance.gate` is the gate the shards ran under; the gate options, when
    given, must equal it. Raises GuardcheckError (exit 2) for an unreadable or
    foreign report, and for reports that are not exactly one run's shards (see
    guardcheck/merge/).
    """
    named = [(str(path), read_report(Path(path))) for path in paths]
    return merge_reports(
        named, allow_caught_elsewhere=allow_caught_elsewhere, fail_under=fail_under
    )
