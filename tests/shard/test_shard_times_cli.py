"""`--shard-times REPORT.json` on the command line: real `python -m guardcheck` processes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow


def guardcheck(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "guardcheck", "run", "-q", *args],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.mark.parametrize(
    ("content", "message"),
    [(None, "no such file"), ("{not json", "not JSON"), ('{"files": {}}', "not a guardcheck")],
    ids=["missing", "not-json", "foreign"],
)
def test_a_bad_times_report_is_exit_2_with_a_fix(project, content, message):
    """Issue 13 §2: the times file is input like any other: a clear error, never a traceback."""
    root = project("ladder", git=True)
    times = root.parent / "times.json"
    if content is not None:
        times.write_text(content, encoding="utf-8")
    done = guardcheck(root, "--shard", "1/2", "--shard-times", str(times))
    assert done.returncode == 2, done.stdout + done.stderr
    assert "--shard-times" in done.stderr
    assert message in done.stderr
    assert "fix:" in done.stderr
    assert "Traceback" not in done.stderr


def test_shards_balanced_by_an_earlier_report_add_up_to_the_full_run(project, tmp_path):
    """Issue 13 §2: both shards, given the same times report, split the run exactly."""
    root = project("ladder", "ladder-run", git=True)
    full = tmp_path / "full.json"
    first = guardcheck(
        root, "--only", "flat-cooldown", "--only", "ungated-reset", "--json", str(full)
    )
    assert first.returncode in (0, 1), first.stdout + first.stderr
    parts = []
    for k in (1, 2):
        out = tmp_path / f"shard{k}.json"
        done = guardcheck(
            root, "--shard", f"{k}/2", "--shard-times", str(full), "--no-cache", "--json", str(out),
        )  # fmt: skip
        assert done.returncode in (0, 1), done.stdout + done.stderr
        parts.append(json.loads(out.read_text(encoding="utf-8"))["guardcheck"]["mutants"])
    assert sorted(parts[0] + parts[1]) == ["flat-cooldown", "ungated-reset"]
    assert len(parts[0]) == len(parts[1]) == 1  # two mutants, two shards: one each
    shard_files = [str(tmp_path / f"shard{k}.json") for k in (1, 2)]
    merged = subprocess.run(
        [sys.executable, "-m", "guardcheck", "merge", *shard_files],
        cwd=root, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert merged.returncode in (0, 1), merged.stdout + merged.stderr
