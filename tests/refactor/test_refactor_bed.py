"""Acceptance (issue 23): `guardcheck refactor` on a test bed of refactor commits whose
ground truth (tests/fixtures/projects/refactor_bed/commits/*/truth.toml) was written
with each commit, before guardcheck ran on it.

Faithful commits (a rename kept as an alias, an extracted function, loops and
comprehensions swapped, a move with a re-export) must give no finding in any check.
Each behaviour change is one no test pins (the base tests pass on it), so only the
differential check can see it, and it must, at the changed function."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from support.refactor import Refactor, bed_commits, bed_truth, build_bed_commit, run_refactor

pytestmark = pytest.mark.slow

FAITHFUL = [name for name in bed_commits() if bed_truth(name)["behaviour"] == "same"]
CHANGED = [name for name in bed_commits() if bed_truth(name)["behaviour"] == "changed"]


@pytest.fixture(scope="module")
def bed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Refactor]]:
    """Every commit of the bed, each `guardcheck refactor --base HEAD~1`, a few at a time
    (each run is mostly waiting on its pytest and equiv processes)."""
    top = tmp_path_factory.mktemp("bed")
    roots = {name: build_bed_commit(top / name, name) for name in bed_commits()}
    with ThreadPoolExecutor(max_workers=4) as pool:
        runs = pool.map(lambda root: run_refactor(root, "--base", "HEAD~1"), roots.values())
        return dict(zip(roots, zip(roots.values(), runs, strict=True), strict=True))


def test_the_bed_holds_both_kinds():
    assert len(FAITHFUL) >= 4
    assert len(CHANGED) >= 3


@pytest.mark.parametrize("name", FAITHFUL)
def test_a_faithful_refactor_gives_no_finding(bed, name):
    _, done = bed[name]
    assert done.code == 0, done.out + done.err
    assert {
        key: check["findings"] for key, check in ((c["check"], c) for c in done.report["checks"])
    } == {key: [] for key in done.outcomes()}
    equiv = done.check("equiv")
    assert equiv["outcome"] == "passed"
    assert "not compared" not in " ".join(equiv["notes"])


@pytest.mark.parametrize("name", CHANGED)
def test_a_behaviour_change_no_test_pins_is_found_by_the_differential_check(bed, name):
    truth = bed_truth(name)
    root, done = bed[name]
    assert done.code == 1, done.out + done.err
    assert done.outcomes()["old-tests"] == "passed"  # no test pins it
    failed = {key for key, outcome in done.outcomes().items() if outcome == "failed"}
    assert failed == {"equiv"}
    (finding,) = done.check("equiv")["findings"]
    assert finding["message"].startswith(f"{truth['function']} behaves differently from the base: ")
    module, _, qualname = truth["function"].partition(":")
    assert finding["path"] == module.replace(".", "/") + ".py"
    line = (root / finding["path"]).read_text().splitlines()[finding["line"] - 1]
    assert line.startswith(f"def {qualname}(")
    assert " at the base, " in finding["message"]
    assert finding["details"]
