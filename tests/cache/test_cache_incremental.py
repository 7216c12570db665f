"""The per-mutant cache on a real project: after an edit only the mutants that can see it re-run.

tests/fixtures/projects/incremental: `double`, `triple`, and `quadruple` (which calls
`double`), one test each, one catalogue entry per function. The witness conftest.py
appends every test that runs to a file outside the project: the baseline runs each test
once, and a re-tested (caught) mutant runs its tests again, once under the mutant and once
in the control run. So a test seen exactly once belongs to no re-tested mutant.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from support.projects import commit, copy_project, edit
from test_cache_cli import guardcheck, ran, summary, verdicts

from guardcheck.cache import RESTORED_LOG
from guardcheck.cache.store import Store

pytestmark = pytest.mark.slow

T_DOUBLE = "tests/test_calc.py::test_double"
T_TRIPLE = "tests/test_calc.py::test_triple"
T_QUADRUPLE = "tests/test_calc.py::test_quadruple"
ALL_CAUGHT = {"double-plus": "caught", "triple-minus": "caught", "quadruple-once": "caught"}


def project(tmp_path: Path) -> Path:
    return commit(copy_project(tmp_path / "incremental", "incremental"))


def runs(root: Path) -> Counter[str]:
    return Counter(ran(root))


def restored(root: Path) -> set[str]:
    """The mutants whose log says their verdict came from the cache."""
    logs = (root / ".guardcheck" / "mutants").glob("*.log")
    return {log.stem for log in logs if log.read_text(encoding="utf-8") == RESTORED_LOG}


def test_editing_one_function_re_tests_its_mutants_and_those_whose_tests_call_it(tmp_path):
    """Issue 13 §1: the cache was keyed by the whole project, so any edit re-ran every mutant."""
    root = project(tmp_path)
    first = guardcheck(root)
    assert first.returncode == 0, first.stdout + first.stderr
    assert verdicts(first.stdout) == ALL_CAUGHT
    runs(root)

    # triple's body changes: only triple-minus can see it (no other selected test calls it).
    edit(root / "app/calc.py", "def triple(x):\n", "def triple(x):\n    x = int(x)\n")
    second = guardcheck(root)
    assert second.returncode == 0, second.stdout + second.stderr
    seen = runs(root)
    assert seen[T_DOUBLE] == seen[T_QUADRUPLE] == 1  # the baseline only
    assert seen[T_TRIPLE] >= 2  # the baseline, then triple-minus
    assert "(2 cached)" in summary(second)
    assert restored(root) == {"double-plus", "quadruple-once"}
    assert verdicts(second.stdout) == ALL_CAUGHT

    # double's body changes: double-plus re-runs, and so does quadruple-once, whose
    # selected test executes double; triple-minus's test never calls double.
    edit(root / "app/calc.py", "def double(x):\n", "def double(x):\n    x = int(x)\n")
    third = guardcheck(root)
    assert third.returncode == 0, third.stdout + third.stderr
    seen = runs(root)
    assert seen[T_TRIPLE] == 1
    # The baseline (2), each re-tested mutant's first killer (2) and at least one control
    # run (mutants that ran the same tests share theirs).
    assert seen[T_DOUBLE] + seen[T_QUADRUPLE] >= 5
    assert "(1 cached)" in summary(third)
    assert restored(root) == {"triple-minus"}

    fourth = guardcheck(root)  # nothing changed since: not even the baseline runs
    assert runs(root) == Counter()
    assert "(cached)" in summary(fourth)
    assert verdicts(fourth.stdout) == ALL_CAUGHT
    # Entries of the three earlier project states were evicted: one of each per mutant.
    kinds = Counter(kind for kind, _ in Store(root / ".guardcheck" / "cache").entries())
    assert (kinds["mutant"], kinds["dependency"], kinds["baseline"]) == (3, 3, 1)


def test_a_test_that_starts_executing_a_mutant_re_tests_it(tmp_path):
    """Issue 13 §1 soundness: a mutant whose new selection gains a test is not restored.

    `triple-minus` survives while no test checks triple's result; once test_double also
    checks triple, triple-minus must run again (and is caught), and so must double-plus
    (its test changed); quadruple-once, whose test is unchanged, is restored.
    """
    root = project(tmp_path)
    edit(root / "tests/test_calc.py", "assert triple(5) == 15", "triple(5)")
    commit(root)
    first = guardcheck(root)
    assert verdicts(first.stdout)["triple-minus"] == "survived", first.stdout
    runs(root)
    edit(
        root / "tests/test_calc.py", "assert double(5) == 10", "assert double(5) + triple(1) == 13"
    )
    second = guardcheck(root)
    assert verdicts(second.stdout) == ALL_CAUGHT, second.stdout + second.stderr
    assert "(1 cached)" in summary(second)
    assert restored(root) == {"quadruple-once"}
