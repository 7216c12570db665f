"""The `run` command's own decisions: which mutants, the killed_by check, the exit code."""

from __future__ import annotations

import subprocess
import sys

import pytest
from support.catalogue import run_cli, tree_state
from support.projects import edit

from guardcheck.api import exit_code
from guardcheck.catalogue.select import select_mutants
from guardcheck.catalogue.validate import check_killers_collected as check_killers
from guardcheck.errors import CatalogueInvalid, GuardcheckError
from guardcheck.exitcodes import ExitCode
from guardcheck.model import FileChange, Mutant, MutantResult, RunReport, Status, Where
from guardcheck.reports import Gate


def mutant(mutant_id: str, tags: tuple[str, ...] = (), killed_by: tuple[str, ...] = ()) -> Mutant:
    change = FileChange("m.py", "x = 1\n", "x = 2\n", Where("m.py", 1))
    return Mutant(
        mutant_id,
        "s",
        (change,),
        tags=tags,
        killed_by=killed_by,
        declared_at=Where("mutations/m.toml", 3),
    )


CATALOGUE = [mutant("flat-cooldown", ("ladder",)), mutant("removed-cap", ("ladder", "cap"))]


def test_only_matches_ids_and_tags_by_glob():
    assert [m.id for m in select_mutants(CATALOGUE, ("flat-*",))] == ["flat-cooldown"]
    assert [m.id for m in select_mutants(CATALOGUE, ("cap",))] == ["removed-cap"]
    assert select_mutants(CATALOGUE, ()) == CATALOGUE


def test_only_matching_nothing_is_a_usage_error_listing_the_ids():
    with pytest.raises(GuardcheckError) as raised:
        select_mutants(CATALOGUE, ("nosuch",))
    assert raised.value.code is ExitCode.USAGE
    assert "flat-cooldown, removed-cap" in str(raised.value)


def test_killed_by_must_name_a_collected_test_and_gets_a_suggestion():
    collected = ("tests/t.py::test_ladder_escalates[1]", "tests/t.py::TestCap::test_cap")
    fine = mutant("a", killed_by=("tests/t.py::test_ladder_escalates", "tests/t.py::TestCap"))
    check_killers([fine], collected)  # a parametrized name and a class stand for their tests
    typo = mutant("b", killed_by=("tests/t.py::test_ladder_escalate",))
    with pytest.raises(CatalogueInvalid) as raised:
        check_killers([fine, typo], collected)
    (problem,) = raised.value.problems
    assert (problem.kind, problem.entry_id) == ("killed_by", "b")
    assert str(problem.where) == "mutations/m.toml:3"
    assert "tests/t.py::test_ladder_escalates[1]" in problem.fix


def report(status: Status, *, interrupted: bool = False) -> RunReport:
    outcome = MutantResult(CATALOGUE[0], status, "why")
    return RunReport(root=".", results=[outcome], interrupted=interrupted)


def test_exit_code_follows_the_gate_and_an_interrupt_wins():
    caught, survived = report(Status.CAUGHT), report(Status.SURVIVED)
    assert exit_code(caught, Gate()) is ExitCode.OK
    assert exit_code(survived, Gate()) is ExitCode.GATE_FAILED
    assert exit_code(survived, Gate(fail_under=0)) is ExitCode.OK
    assert exit_code(report(Status.CAUGHT, interrupted=True), Gate()) is ExitCode.INTERRUPTED


@pytest.mark.slow
def test_unknown_killed_by_stops_the_run_before_any_test_runs(project):
    """Regression guard: `run` checks killed_by against its own pytest session
    (no second collect process); a bad id must still stop it before the baseline."""
    root = project("ladder")
    edit(root / "mutations" / "ladder.toml", "test_ladder_escalates", "test_ladder_escalatez")
    done = subprocess.run(
        [sys.executable, "-m", "guardcheck", "--root", str(root), "run"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == ExitCode.USAGE, done.stdout + done.stderr
    assert "flat-cooldown" in done.stderr
    assert "mutations/ladder.toml:1" in done.stderr
    assert "tests/test_ladder.py::test_ladder_escalates" in done.stderr
    assert "baseline" not in done.stdout
    assert not (root / ".guardcheck" / "baseline.json").exists()


def test_run_refuses_while_a_mutant_is_applied_and_says_how_to_revert(project):
    """Regression: with `guardcheck apply` left in place, run reported the applied
    entry as stale, which hides the real cause."""
    root = project("ladder")
    assert run_cli(root, "apply", "flat-cooldown").exit_code == 0
    applied = tree_state(root)
    refused = run_cli(root, "run")
    assert refused.exit_code == ExitCode.USAGE
    assert "flat-cooldown" in refused.stderr
    assert "guardcheck apply --revert flat-cooldown" in refused.stderr
    assert "stale" not in refused.stderr
    assert tree_state(root) == applied  # nothing ran, nothing was written
    assert run_cli(root, "apply", "--revert", "flat-cooldown").exit_code == 0
