"""Closures alive since import stay on the fork path when a mutant only drops a reference.

Regression for issue 10 (sweep speed, cause 1): mutmut's `replace host with None`
inside target_app's `legacy_dict_property` getter/setter changed the closures' free
variables, so each such mutant went to a fresh interpreter (~1/3 of the sweep's worker
time). The mutated code now keeps the original's closure layout and the live closures
are swapped in the fork. Also issue 10 cause 2: a unittest-style test's failure is a
one-line report that still names the test's line.

Also issue 22 (corpus speed, more-itertools and boltons): a comprehension that stops
reading a variable of its function (`combinations(s, r)` -> `combinations(r)` inside a
generator expression), and a method that stops calling `super()` (its class body then
builds it without the `__class__` cell), went to a fresh interpreter at 0.5-4 s each;
both now run in a fork, with the verdict of the mutant applied by hand.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.lab import mutant, run
from support.projects import copy_project, edit
from support.verdicts import suite_outcomes

from guardcheck.model import ExecutionPath, MutantResult, Status

pytestmark = pytest.mark.slow

VIEWS = "closures/views.py"
COLLECT = "closures/collect.py"
# (id, find, replace) in COLLECT: each drops a closure reference the swap must keep.
DROPPED = [
    ("comprehension-drops-a-cell", "combinations(s, r)", "combinations(r)"),
    ("comprehension-survivor", "if n)", "if True)"),
    ("method-drops-super", "super().setdefault(key, 0)", "None"),
]
READS = "tests/test_views.py::test_size_reads_the_field"
KIND = "tests/test_kind.py::KindTest::test_kind_is_box"


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict[str, MutantResult]:
    root: Path = copy_project(tmp_path_factory.mktemp("lab") / "closures", "closures", git=True)
    mutants = [
        # Drops `name` and `default` from the getter; the enclosing function loses its
        # `default` cell too, since nothing else references it.
        mutant(
            root, "getter-none", "return host.data.get(name, default)", "return None", path=VIEWS
        ),
        # Drops `default` only; no test reads a missing key, so it survives.
        mutant(root, "default-none", "get(name, default)", "get(name, None)", path=VIEWS),
        mutant(root, "constant-none", "return value", "return None", path=VIEWS),
        # A genuinely new free variable: no dead reference can make the layouts match.
        mutant(root, "new-free-variable", "return value", "return getter", path=VIEWS),
        *(mutant(root, ident, find, replace, path=COLLECT) for ident, find, replace in DROPPED),
    ]
    report = run(root, mutants, jobs=2)
    return {r.mutant.id: r for r in report.results}


def test_a_mutant_dropping_closure_references_is_caught_in_a_fork(results):
    result = results["getter-none"]
    assert result.status is Status.CAUGHT, result.reason
    assert result.path is ExecutionPath.FORK
    assert result.killers == (READS,)
    assert result.reason.startswith(f"{READS}: tests/test_views.py:7: ")


def test_a_survivor_dropping_a_closure_reference_ran_in_a_fork_with_evidence(results):
    result = results["default-none"]
    assert result.status is Status.SURVIVED, result.reason
    assert result.path is ExecutionPath.FORK
    assert result.outcome is not None
    assert result.outcome.evidence


def test_a_unittest_failure_names_the_test_line_not_unittest_internals(results):
    result = results["constant-none"]
    assert result.status is Status.CAUGHT, result.reason
    assert result.path is ExecutionPath.FORK
    assert result.killers == (KIND,)
    assert result.reason == f"{KIND}: tests/test_kind.py:8: AssertionError: None != 'box'"


def test_a_new_free_variable_still_needs_a_fresh_interpreter(results):
    result = results["new-free-variable"]
    assert result.path is ExecutionPath.FRESH
    assert result.status is Status.CAUGHT, result.reason
    assert result.killers == (KIND,)


@pytest.fixture(scope="module")
def by_hand(tmp_path_factory) -> dict[str, bool]:
    """Each DROPPED mutant written into a checkout by hand: does plain pytest fail?"""
    root: Path = copy_project(tmp_path_factory.mktemp("hand") / "closures", "closures")
    caught = {}
    for ident, find, replace in DROPPED:
        edit(root / COLLECT, find, replace)
        caught[ident] = "failed" in suite_outcomes(root).values()
        edit(root / COLLECT, replace, find)
    return caught


@pytest.mark.parametrize("ident", [ident for ident, _, _ in DROPPED])
def test_a_dropped_reference_in_a_comprehension_or_to_super_runs_in_a_fork(results, by_hand, ident):
    result = results[ident]
    assert result.path is ExecutionPath.FORK, result.path_reason
    assert (result.status is Status.CAUGHT) == by_hand[ident], result.reason
    assert result.status in (Status.CAUGHT, Status.SURVIVED), result.reason
    assert result.outcome is not None
    assert result.outcome.evidence  # the mutated code ran in the fork
