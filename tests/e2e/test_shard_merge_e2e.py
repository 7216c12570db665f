"""Acceptance: two shards merged give the same verdicts as one full run (real processes)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from guardcheck.reports.stryker import nodeids_by_id

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def guardcheck(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "guardcheck", *args, "-q"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def verdicts(path: Path) -> dict[str, tuple[str, str, tuple[str, ...]]]:
    doc = json.loads(path.read_text(encoding="utf-8"))
    names = nodeids_by_id(doc)  # ids differ between reports; node ids do not
    return {
        m["guardcheck"]["id"]: (
            m["status"],
            m["guardcheck"]["verdict"],
            tuple(names[i] for i in m["killedBy"]),
        )
        for f in doc["files"].values()
        for m in f["mutants"]
        if m["guardcheck"]["part"] == 1
    }


def test_two_merged_shards_match_one_full_run(tmp_path):
    a, b, merged, full = (tmp_path / f"{n}.json" for n in ("a", "b", "m", "full"))
    first = guardcheck("run", "--shard", "1/2", "--json", str(a))
    assert first.returncode == 0, first.stderr
    assert "shard 1/2:" in first.stdout
    second = guardcheck("run", "--shard", "2/2", "--json", str(b))
    assert second.returncode == 0, second.stderr
    merge = guardcheck(
        "merge", str(a), str(b), "--json", str(merged), "--html", str(tmp_path / "m.html")
    )
    assert merge.returncode == 0, merge.stderr
    assert "merged from 2 shards" in merge.stdout
    whole = guardcheck("run", "--json", str(full))
    assert whole.returncode == 0, whole.stderr

    shard_ids = [set(verdicts(a)), set(verdicts(b))]
    assert all(shard_ids)  # both shards ran something
    assert not shard_ids[0] & shard_ids[1]
    assert verdicts(merged) == verdicts(full)
    alone = guardcheck("merge", str(a))
    assert alone.returncode == 2
    assert "shard(s) 2 of 2 missing" in alone.stderr
    merged_order = json.loads(merged.read_text(encoding="utf-8"))["guardcheck"]["mutants"]
    full_order = json.loads(full.read_text(encoding="utf-8"))["guardcheck"]["mutants"]
    assert merged_order == full_order
