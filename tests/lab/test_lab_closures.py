"""Closures alive since import stay on the fork path when a mutant only drops a reference.

Regression for issue 10 (sweep speed, cause 1): mutmut's `replace host with None`
inside target_app's `legacy_dict_property` getter/setter changed the closures' free
variables, so each such mutant went to a fresh interpreter (~1/3 of the sweep's worker
time). The mutated code now keeps the original's closure layout and the live closures
are swapped in the fork. Also issue 10 cause 2: a unittest-style test's failure is a
one-line report that still names the test's line.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.lab import mutant, run
from support.projects import copy_project

from guardcheck.model import ExecutionPath, MutantResult, Status

pytestmark = pytest.mark.slow

VIEWS = "closures/views.py"
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
