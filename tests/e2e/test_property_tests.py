"""Property-based tests in mutant runs stop at their first failing example.

A real `python -m guardcheck run` on the `properties` fixture: one Hypothesis
test, one mutant on the fork path and one in a fresh interpreter. Each verdict
is checked against the mutant applied by hand and the whole suite run there with
plain pytest, which shrinks as usual; the test logs every failing example it
sees, so the two runs' counts show whether Hypothesis shrank.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.projects import copy_project, edit, git_status
from support.verdicts import guardcheck_run, suite_outcomes, tracked_bytes

pytestmark = pytest.mark.slow

PROPERTY = "tests/test_limits.py::test_cap_never_exceeds_one_thousand"


def failing_examples(log: Path, limit: int) -> list[int]:
    """The failing inputs logged while LIMIT was `limit`, in the order they were tried."""
    if not log.exists():
        return []
    rows = [line.split() for line in log.read_text(encoding="utf-8").splitlines()]
    return [int(value) for seen, value in rows if int(seen) == limit]


def by_hand(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, old: str, new: str):
    """The whole suite with `old` -> `new` written into a copy; the failing examples it saw."""
    name = f"by-hand-{len(list(tmp_path.iterdir()))}"
    root = copy_project(tmp_path / name, "properties")
    edit(root / "pkg/limits.py", old, new)
    log = tmp_path / f"{name}.txt"
    monkeypatch.setenv("FAILING_EXAMPLES", str(log))
    return suite_outcomes(root), log


def test_mutant_runs_skip_shrinking_and_keep_the_hand_applied_verdicts(tmp_path, monkeypatch):
    """Regression guard for the shrink skip: without it, each killed mutant's run logged
    every example Hypothesis shrank through, as the hand-applied runs below still do."""
    root = copy_project(tmp_path / "project", "properties", git=True)
    before = tracked_bytes(root)
    log = tmp_path / "guardcheck-examples.txt"
    monkeypatch.setenv("FAILING_EXAMPLES", str(log))  # guardcheck's children inherit it
    done, mutants = guardcheck_run(root, tmp_path / "r.json")
    assert done.returncode == 0, done.stdout + done.stderr
    assert tracked_bytes(root) == before
    assert git_status(root) == ""

    for mutant_id, old, new, limit, path in [
        ("uncapped", "min(value, LIMIT)", "value", 1000, "fork"),
        ("raised-limit", "LIMIT = 1000", "LIMIT = 1000000", 1000000, "subprocess"),
    ]:
        outcomes, hand_log = by_hand(tmp_path, monkeypatch, old, new)
        assert outcomes[PROPERTY] == "failed"
        fields = mutants[mutant_id]["guardcheck"]
        assert fields["verdict"] == "caught", fields["reason"]
        assert fields["executionPath"] == path
        assert {t["id"]: t["outcome"] for t in fields["tests"]} == {PROPERTY: "failed"}
        # Plain pytest shrinks towards 1001 through many failing examples; the mutant run
        # saw its first failing example and the replay that reports it, nothing more.
        shrunk = failing_examples(hand_log, limit)
        assert len(shrunk) > 5
        assert min(shrunk) == 1001
        seen = failing_examples(log, limit)
        assert 1 <= len(seen) <= 2, seen
        assert len(set(seen)) == 1, seen
