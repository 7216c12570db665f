"""Issue 23's clean reports: accepted intended changes with pytest's whole diff, the bug
that came back, no catalogue, red tests said once, and the weak killer named."""

from __future__ import annotations

import pytest
from support.refactor import edit, pyproject, run_refactor, two_revisions

pytestmark = pytest.mark.slow

PYPROJECT = pyproject("fields")

NAMES = ["_running_agents", "_pending_messages", "_failure_streak", "_session_override"]


def table(names: list[str]) -> str:
    return f"def legacy_fields() -> set[str]:\n    return set({names!r})\n"


def pinning(names: list[str]) -> str:
    return (
        "from fields import legacy_fields\n\n\n"
        "def test_every_legacy_field_is_listed():\n"
        f"    assert legacy_fields() == {set(names)!r}\n\n\n"
        "def test_the_table_is_not_empty():\n"
        "    assert legacy_fields()\n"
    )


@pytest.fixture
def grown_table(tmp_path):
    """A faithful migration that must extend a table a base test pins (the issue's case)."""
    grown = [*NAMES, "_agent_cache", "_voice_mode_override"]
    base = {
        "pyproject.toml": PYPROJECT,
        "fields/__init__.py": table(NAMES),
        "tests/test_fields.py": pinning(NAMES),
    }
    change = {"fields/__init__.py": table(grown), "tests/test_fields.py": pinning(grown)}
    return two_revisions(tmp_path / "project", base, change)


def test_an_old_test_failure_shows_the_whole_assertion_diff(grown_table):
    """Regression (issue 23): the finding showed a truncated `assert {'_running_ag...`."""
    done = run_refactor(grown_table, "--base", "HEAD~1", "--only", "old-tests")
    assert done.code == 1
    (finding,) = done.check("old-tests")["findings"]
    diff = "\n".join(finding["details"])
    assert "'_voice_mode_override'" in diff
    assert "'_agent_cache'" in diff
    assert "..." not in diff


def test_an_accepted_change_does_not_fail_and_says_why(grown_table):
    (grown_table / "moves.toml").write_text(
        "[[accept]]\n"
        'test = "tests/test_fields.py::test_every_legacy_field_is_listed"\n'
        'reason = "the migration adds the two SessionState fields on purpose"\n\n'
        "[[accept]]\n"
        'test = "tests/test_fields.py::test_the_table_is_not_empty"\n'
        'reason = "kept from an earlier draft"\n'
    )
    done = run_refactor(
        grown_table, "--base", "HEAD~1", "--moves", "moves.toml", "--only", "old-tests"
    )
    assert done.code == 0, done.out + done.err
    check = done.check("old-tests")
    assert check["findings"] == []
    assert check["notes"] == [
        "accepted (moves file line 1): tests/test_fields.py::test_every_legacy_field_is_listed "
        "fails on today's source as intended: the migration adds the two SessionState fields "
        "on purpose",
        "tests/test_fields.py::test_the_table_is_not_empty passes on today's source: it no "
        "longer needs the [[accept]] entry at moves file line 5",
    ]
    assert "1 failing as accepted in the moves file" in check["summary"]


def test_an_empty_catalogue_folder_is_skipped_as_no_catalogue(grown_table):
    """Regression (issue 23): an empty catalogue folder read "the catalogue itself is
    invalid:" with an empty reason."""
    text = (grown_table / "pyproject.toml").read_text()
    (grown_table / "pyproject.toml").write_text(text + 'catalogue = ["mutations"]\n')
    (grown_table / "mutations").mkdir()
    done = run_refactor(grown_table, "--base", "HEAD~1", "--only", "mutations")
    assert done.code == 0, done.out + done.err
    check = done.check("mutations")
    assert (check["outcome"], check["summary"], check["findings"]) == (
        "skipped",
        "skipped: no catalogue",
        [],
    )


def test_red_tests_are_reported_once(migration):
    """Regression (issue 23): whenever today's tests were red, the mutations check repeated
    the old-tests failure."""
    edit(migration, "relay/runner.py", "            state.end_turn()", "            pass")
    done = run_refactor(migration, "--base", "HEAD~1", "--only", "old-tests", "--only", "mutations")
    assert done.code == 1
    assert len(done.check("old-tests")["findings"]) == 1
    mutations = done.check("mutations")
    assert mutations["outcome"] == "skipped"
    assert mutations["findings"] == []
    assert mutations["summary"] == (
        "skipped: today's tests are red (1 failing test(s), reported under old tests on new code)"
    )


def test_a_bug_brought_back_by_the_refactor_is_named_at_its_line(migration):
    """Regression (issue 23): an entry whose `replace` is today's code was reported "stale
    ... delete the entry if the bug is gone for good"."""
    edit(
        migration,
        "relay/runner.py",
        "min(BASE_COOLDOWN_SECONDS * 3 ** (streak - 1), COOLDOWN_CAP_SECONDS)",
        "min(BASE_COOLDOWN_SECONDS, COOLDOWN_CAP_SECONDS)",
    )
    done = run_refactor(migration, "--base", "HEAD~1", "--only", "old-tests", "--only", "mutations")
    assert done.code == 1
    mutations = done.check("mutations")
    assert mutations["outcome"] == "failed"
    back, red = mutations["findings"]
    assert back["message"] == (
        "today's code already contains mutation flat-cooldown (the bug it guards is back)"
    )
    # Today's suite is red too: only the test old-tests did not already report is listed.
    assert red["details"] == [
        "tests/test_session_state.py::test_the_streak_survives_the_end_of_a_turn (failed): "
        "tests/test_session_state.py:21: AssertionError: assert 60 == 180"
    ]
    line = (migration / back["path"]).read_text().splitlines()[back["line"] - 1]
    assert line.strip() == "return min(BASE_COOLDOWN_SECONDS, COOLDOWN_CAP_SECONDS)"
    assert "stale" not in done.out


def test_weakened_names_the_named_killer_that_passed(migration):
    """Regression (issue 23): "weakened now: X: <failure>, but the named killer(s) Y passed"
    named as X the test that still catches the mutant."""
    edit(
        migration,
        "tests/test_runner.py",
        'assert [relay.record_failure("chat") for _ in range(3)] == [60, 180, 540]',
        'assert relay.record_failure("chat") == 60',
    )
    tests = migration / "tests" / "test_session_state.py"
    tests.write_text(
        tests.read_text() + "\n\ndef test_the_second_failure_waits_longer():\n"
        "    from relay.runner import cooldown_seconds\n\n"
        "    assert cooldown_seconds(2) == 180\n"
    )
    edit(
        migration,
        "mutations/relay.toml",
        'killed_by = ["tests/test_runner.py::test_consecutive_failures_escalate"]',
        'killed_by = ["tests/test_runner.py::test_consecutive_failures_escalate",\n'
        '             "tests/test_session_state.py::test_the_second_failure_waits_longer"]',
    )
    done = run_refactor(migration, "--base", "HEAD~1", "--only", "mutations")
    assert done.code == 1, done.out
    (finding,) = done.check("mutations")["findings"]
    assert finding["message"].startswith(
        "flat-cooldown: weakened: the named killer "
        "tests/test_runner.py::test_consecutive_failures_escalate passed against it now "
        "(caught at the base by tests/test_runner.py::test_consecutive_failures_escalate; "
        "still caught by tests/test_session_state.py::test_the_second_failure_waits_longer"
    )
