"""`guardcheck run` with its result cache: real processes on a throwaway ladder project.

A witness conftest.py (tests/fixtures/projects/ladder-run) appends the node id of every
test that runs to a file outside the project, so "nothing ran" is observed, not assumed.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.projects import commit, copy_project, edit

from guardcheck.cache.store import Store

pytestmark = pytest.mark.slow

RESETS = "tests/test_ladder.py::test_success_resets_only_on_progress"
VERDICT = re.compile(r"^\[\s*\d+/\d+\] (\S+)\s+(\S+)", re.MULTILINE)


def project(tmp_path: Path) -> Path:
    return commit(copy_project(tmp_path / "ladder", "ladder", "ladder-run"))


def guardcheck(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_") and k != "COLUMNS"}
    env["GC_WITNESS"] = str(root.parent / "witness.txt")
    return subprocess.run(
        [sys.executable, "-m", "guardcheck", "run", *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


def ran(root: Path) -> list[str]:
    """Node ids the witness saw since the last call (and forget them)."""
    witness = root.parent / "witness.txt"
    if not witness.exists():
        return []
    seen = witness.read_text(encoding="utf-8").split()
    witness.unlink()
    return seen


def verdicts(stdout: str) -> dict[str, str]:
    return {ident: verdict for verdict, ident in VERDICT.findall(stdout)}


def summary(done: subprocess.CompletedProcess[str]) -> str:
    return done.stdout.strip().splitlines()[-1]


def test_a_rerun_with_nothing_changed_runs_no_test_and_prints_the_cached_table(tmp_path):
    root = project(tmp_path)
    first = guardcheck(root)
    assert first.returncode == 0, first.stdout + first.stderr
    assert RESETS in ran(root)
    assert "(cached)" not in summary(first)

    again = guardcheck(root)
    assert again.returncode == 0, again.stdout + again.stderr
    assert ran(root) == []  # not one test, not even the baseline
    assert "(cached)" in summary(again)
    assert summary(again).endswith("gate passed")
    assert (
        verdicts(again.stdout)
        == verdicts(first.stdout)
        == {
            "flat-cooldown": "caught",
            "ungated-reset": "caught",
        }
    )
    assert "Caught by" in again.stdout  # the table, restored
    assert RESETS in again.stdout


def test_a_partly_cached_run_runs_only_the_misses_and_keeps_the_order(tmp_path):
    root = project(tmp_path)
    assert guardcheck(root, "--only", "flat-cooldown").returncode == 0
    ran(root)
    both = guardcheck(root)
    assert both.returncode == 0, both.stdout + both.stderr
    assert "(1 cached)" in summary(both)
    seen = ran(root)
    assert RESETS in seen  # the baseline and ungated-reset's tests ran ...
    assert list(verdicts(both.stdout)) == ["flat-cooldown", "ungated-reset"]
    table = both.stdout[both.stdout.index("Mutant") :]
    assert table.index("flat-cooldown") < table.index("ungated-reset")  # catalogue order


def test_editing_the_source_re_tests_and_the_new_verdict_is_right(tmp_path):
    root = project(tmp_path)
    assert guardcheck(root).returncode == 0
    ran(root)
    # Weaken the code so that the ungated reset is no longer a change: it survives now.
    edit(root / "tests/test_ladder.py", "assert gate.record_success(10, 10) == 1", "pass")
    after = guardcheck(root)
    assert ran(root), "an edited test file must re-run the mutants"
    assert "cached" not in summary(after)
    assert verdicts(after.stdout)["ungated-reset"] == "survived"
    assert after.returncode == 1


def test_a_changed_memory_limit_re_runs_the_mutants_instead_of_replaying_them(tmp_path):
    """Regression: memory_limit_mb was in no cache key, so a run under another limit replayed
    the verdicts reached under the old one (a mutant over the limit is caught, so it counts)."""
    root = project(tmp_path)
    first = guardcheck(root)
    assert first.returncode == 0, first.stdout + first.stderr
    ran(root)
    other = guardcheck(root, "--memory-limit-mb", "3072")
    assert other.returncode == 0, other.stdout + other.stderr
    assert RESETS in ran(root)  # the baseline and the mutants ran again
    assert "cached" not in summary(other)
    assert verdicts(other.stdout) == {"flat-cooldown": "caught", "ungated-reset": "caught"}
    same = guardcheck(root, "--memory-limit-mb", "3072")  # that limit's verdicts are stored
    assert ran(root) == []
    assert "(cached)" in summary(same)


def test_no_cache_neither_reads_nor_writes_the_cache(tmp_path):
    root = project(tmp_path)
    first = guardcheck(root, "--no-cache")
    assert first.returncode == 0, first.stdout + first.stderr
    assert not (root / ".guardcheck" / "cache").exists()
    assert guardcheck(root).returncode == 0  # fills the cache
    ran(root)
    forced = guardcheck(root, "--no-cache")
    assert forced.returncode == 0
    assert RESETS in ran(root)
    assert "cached" not in summary(forced)


def test_a_corrupt_entry_is_discarded_with_a_warning_and_its_mutant_re_runs(tmp_path):
    root = project(tmp_path)
    assert guardcheck(root).returncode == 0
    ran(root)
    cache = root / ".guardcheck" / "cache"
    keys = [key for kind, key in Store(cache).entries() if kind == "mutant"]
    assert len(keys) == 2
    (pack,) = (cache / "packs").glob("*.jsonl")
    lines = pack.read_text(encoding="utf-8").splitlines(keepends=True)
    for n, line in enumerate(lines):
        if line.startswith(f"mutant {keys[0]} "):  # cut short, as by a full disk
            lines[n] = f'mutant {keys[0]} {{"format": 1, "truncat\n'
        elif line.startswith(f"mutant {keys[1]} "):  # another entry's line
            lines[n] = line.replace('"key":"', '"key":"x')
    pack.write_text("".join(lines), encoding="utf-8")
    again = guardcheck(root)
    assert again.returncode == 0, again.stdout + again.stderr
    assert again.stderr.count("discarded") == 2, again.stderr
    assert RESETS in ran(root)
    assert verdicts(again.stdout) == {"flat-cooldown": "caught", "ungated-reset": "caught"}
    third = guardcheck(root)  # the re-run stored fresh entries
    assert "(cached)" in summary(third)
    assert ran(root) == []


def sweep(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_") and k != "COLUMNS"}
    env["GC_WITNESS"] = str(root.parent / "witness.txt")
    return subprocess.run(
        [sys.executable, "-m", "guardcheck", "sweep", "app", *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_an_unchanged_sweep_is_replayed_whole_and_no_cache_runs_it_again(tmp_path):
    root = project(tmp_path)
    first = sweep(root)
    assert first.returncode in (0, 1), first.stdout + first.stderr
    assert ran(root)
    again = sweep(root)
    assert again.returncode == first.returncode, again.stdout + again.stderr
    assert ran(root) == []
    assert "(cached)" in summary(again)
    assert verdicts(again.stdout) == verdicts(first.stdout)
    assert len(verdicts(first.stdout)) > 2  # mutmut's operators made several mutants
    forced = sweep(root, "--no-cache")
    assert ran(root)
    assert verdicts(forced.stdout) == verdicts(first.stdout)
