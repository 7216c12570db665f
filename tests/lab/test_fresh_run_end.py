"""How a fresh-interpreter run ends (child/freshrun.py `_leave`).

Once its report is written the run exits at once, as a forked child does, instead
of going through the rest of pytest's session end. What must survive that: the
verdicts, and the teardown of session-scoped fixtures (a fixture that cleans up
what it made in the project copy must still get to).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from support.lab import by_id, mutant, run
from support.projects import copy_project, write_files

from guardcheck.model import Status

pytestmark = pytest.mark.slow

SESSION_FIXTURE_TEST = """\
import os

import pytest

from calc.ops import LIMIT


@pytest.fixture(scope="session")
def made():
    yield
    kind = "fresh" if os.environ.get("GUARDCHECK_FRESH") else "fork"
    with open(os.environ["TEARDOWN_LOG"], "a") as out:
        out.write(kind + "\\n")


def test_limit_is_ten(made):
    assert LIMIT == 10


def test_limit_is_positive(made):
    assert LIMIT > 0
"""


KILLER = "tests/test_session_fixture.py::test_limit_is_ten"


def test_a_fresh_run_tears_down_session_fixtures_and_keeps_its_verdicts(tmp_path, monkeypatch):
    """Regression guard for the quick exit: without the explicit teardown a session
    fixture's cleanup never ran in a fresh run (pytest does it after our report)."""
    root = copy_project(tmp_path / "calc", "calc", git=True)
    write_files(root, {"tests/test_session_fixture.py": SESSION_FIXTURE_TEST})
    log = tmp_path / "teardowns.txt"
    monkeypatch.setenv("TEARDOWN_LOG", str(log))
    mutants = [
        # Module level, so fresh. Its named killer runs first and uses the session fixture;
        # the run stops there, with tests left, so pytest's own last-item teardown never
        # comes: only the explicit one can tear the fixture down.
        mutant(root, "limit-eleven", "LIMIT = 10", "LIMIT = 11", killed_by=(KILLER,)),
        mutant(root, "limit-ten-again", "LIMIT = 10", "LIMIT = int('10')"),  # same value
    ]
    results = by_id(run(root, mutants, jobs=1))
    caught, same = results["limit-eleven"], results["limit-ten-again"]
    assert caught.path.value == same.path.value == "subprocess"
    assert caught.status is Status.CAUGHT, caught.reason
    assert [t.nodeid for t in caught.tests] == [KILLER]
    assert same.status is Status.SURVIVED, same.reason
    # Three fresh runs set the fixture up: the survivor's, the kill's, and the kill's
    # control run (the killer again without the mutant). Each tore it down.
    assert log.read_text(encoding="utf-8").split().count("fresh") == 3
    assert not list(Path(root).glob("**/teardowns.txt"))


INTERRUPT_CONFTEST = """\
import os


def pytest_keyboard_interrupt(excinfo):
    kind = "fresh" if os.environ.get("GUARDCHECK_FRESH") else "fork"
    with open(os.environ["INTERRUPT_LOG"], "a") as out:
        out.write(kind + "\\n")
"""


def test_a_fresh_run_stopped_at_its_first_failure_ends_before_pytest_formats_the_stop(
    tmp_path, monkeypatch
):
    """Regression: a fresh run stopped at its kill unwound as pytest's Interrupted, and
    pytest's interrupt hooks (the terminal reporter formats the whole traceback with
    source) ran before the report was sent; that was about a third of such a run. The
    run now ends at the interrupt hook, before any other plugin's, verdicts intact."""
    root = copy_project(tmp_path / "calc", "calc", git=True)
    write_files(
        root,
        {
            "tests/test_session_fixture.py": SESSION_FIXTURE_TEST,
            "tests/conftest.py": INTERRUPT_CONFTEST,
        },
    )
    log = tmp_path / "interrupts.txt"
    monkeypatch.setenv("INTERRUPT_LOG", str(log))
    monkeypatch.setenv("TEARDOWN_LOG", str(tmp_path / "teardowns.txt"))
    stopped = mutant(root, "limit-eleven", "LIMIT = 10", "LIMIT = 11", killed_by=(KILLER,))

    result = by_id(run(root, [stopped], jobs=1))["limit-eleven"]

    assert result.path.value == "subprocess"
    assert result.status is Status.CAUGHT, result.reason
    assert [t.nodeid for t in result.tests] == [KILLER]  # stopped with a test left to run
    assert not log.exists(), log.read_text(encoding="utf-8")


def test_a_fresh_run_whose_collection_fails_ends_before_pytest_formats_the_errors(
    tmp_path, monkeypatch
):
    """Regression (issue 10, speed): a mutant breaking an import stops pytest after
    collection with its own Interrupted, and the terminal reporter's interrupt hook
    formatted every collection error with source (0.15-0.3 s a run) after the errors
    were recorded. The run now ends first; the verdict names the error."""
    root = copy_project(tmp_path / "calc", "calc", git=True)
    write_files(root, {"tests/conftest.py": INTERRUPT_CONFTEST})
    log = tmp_path / "interrupts.txt"
    monkeypatch.setenv("INTERRUPT_LOG", str(log))
    broken = mutant(root, "import-error", "LIMIT = 10", "LIMIT = 1 / 0")

    result = by_id(run(root, [broken], jobs=1))["import-error"]

    assert result.path.value == "subprocess"
    assert result.status is Status.CAUGHT, result.reason
    assert result.reason.startswith("crash: collection aborted: tests/test_ops.py")
    assert "ZeroDivisionError" in result.reason
    assert not log.exists(), log.read_text(encoding="utf-8")
