"""Acceptance: `guardcheck refactor --base HEAD~1 --moves moves.toml` on the fixture migration
(target_app's SessionState refactor in small), passing, then broken five ways."""

from __future__ import annotations

import pytest
from support.refactor import build_migration, edit, repository_state, run_refactor

pytestmark = pytest.mark.slow

# 100 inputs, not the default 2,000: the differential check is not what these tests are
# about (a faithful change stays faithful); with more inputs the search reaches an int so
# large that `_cooldown_seconds` hangs on it, and every run waits out that call (~10 s).
MOVES = ("--base", "HEAD~1", "--moves", "moves.toml", "--equiv-examples", "100")


def test_the_faithful_migration_passes_every_check(migration):
    before = repository_state(migration)
    done = run_refactor(migration, *MOVES)
    assert done.code == 0, done.out + done.err
    assert done.outcomes() == {
        "old-tests": "passed",
        "names": "passed",
        "lost-assertions": "passed",
        "mutations": "passed",
        "equiv": "passed",
        "moves": "passed",
    }
    assert "6 of 6 base test(s) pass on today's source" in done.out
    assert "2 of 2 caught at the base, 3 of 3 caught now" in done.out
    assert "behaves like builtins:dict" in done.out
    assert done.out.rstrip().endswith("refactor check passed: 6 check(s)")
    assert repository_state(migration) == before


def test_a_view_that_forgets_the_key_on_pop_fails_the_migration_table(migration):
    """Regression: a hand-written `pop` on the legacy view that returns the value but never
    resets the field; equiv against builtins:dict must show the key left behind."""
    edit(
        migration,
        "relay/session_state.py",
        "    def __iter__(self)",
        (
            "    def pop(self, key: str, *default: Any) -> Any:\n"
            "        try:\n"
            "            return self[key]\n"
            "        except KeyError:\n"
            "            if default:\n"
            "                return default[0]\n"
            "            raise\n\n"
            "    def __iter__(self)"
        ),
    )
    done = run_refactor(migration, *MOVES, "--only", "moves")
    assert done.code == 1
    assert done.outcomes() == {"moves": "failed"}
    (finding,) = done.check("moves")["findings"]
    assert finding["message"] == (
        "Relay._running_agents: view refactor_hooks:running_agents_view "
        "does not behave like builtins:dict"
    )
    assert (finding["path"], finding["line"]) == ("moves.toml", 3)
    steps = "\n".join(finding["details"])
    assert "x.pop('a')" in steps
    assert "OLD list(x.items()) after it returned []" in steps


def test_a_stray_old_name_outside_the_adapters_fails_the_migration_table(migration):
    """Regression: new runner code reading `self._running_agents` instead of SessionState."""
    edit(
        migration,
        "relay/runner.py",
        "    def is_busy(self, key: str) -> bool:",
        (
            "    def busy_keys(self) -> list[str]:\n"
            "        return list(self._running_agents)\n\n"
            "    def is_busy(self, key: str) -> bool:"
        ),
    )
    done = run_refactor(migration, *MOVES)
    assert done.code == 1
    assert done.outcomes() == {
        "old-tests": "passed",
        "names": "passed",
        "lost-assertions": "passed",
        "mutations": "passed",
        "equiv": "passed",
        "moves": "failed",
    }
    (finding,) = done.check("moves")["findings"]
    assert finding["path"] == "relay/runner.py"
    assert finding["enclosing"] == "Relay.busy_keys"
    line = (migration / "relay/runner.py").read_text().splitlines()[finding["line"] - 1]
    assert line.strip() == "return list(self._running_agents)"
    assert f"relay/runner.py:{finding['line']} (in Relay.busy_keys)" in done.out


def test_a_removed_alias_an_old_test_still_imports_fails_the_names_check(migration):
    """Regression: dropping `_cooldown_seconds = cooldown_seconds` after the promotion, while
    tests/test_runner.py still imports the old private name."""
    edit(migration, "relay/runner.py", "_cooldown_seconds = cooldown_seconds\n", "")
    done = run_refactor(migration, *MOVES, "--only", "names", "--only", "old-tests")
    assert done.code == 1
    assert done.outcomes()["names"] == "failed"
    imported, called = done.check("names")["findings"]
    assert (imported["path"], imported["line"]) == ("tests/test_runner.py", 3)
    assert imported["message"] == (
        "relay.runner._cooldown_seconds object was removed, still "
        "used: from relay.runner import _cooldown_seconds"
    )
    assert called["enclosing"] == "test_cooldown_is_capped_at_an_hour"
    assert called["message"].endswith("still used: _cooldown_seconds")
    # The base tests cannot even be collected against it.
    assert done.outcomes()["old-tests"] == "failed"


def test_an_old_test_the_new_code_fails_fails_the_old_tests_check(migration):
    """Regression: `end_turn` stops clearing the turn after the move, so the chat stays busy."""
    edit(migration, "relay/runner.py", "            state.end_turn()", "            pass")
    done = run_refactor(migration, *MOVES, "--only", "old-tests", "--only", "names")
    assert done.code == 1
    assert done.outcomes()["old-tests"] == "failed"
    (finding,) = done.check("old-tests")["findings"]
    assert finding["message"].startswith(
        "tests/test_runner.py::test_end_turn_frees_the_chat passes at HEAD~1 and fails on "
        "today's source: AssertionError: assert not True"
    )
    assert finding["path"] == "tests/test_runner.py"
    assert done.outcomes()["names"] == "passed"


def test_a_mutation_caught_before_and_survived_now_fails_the_mutations_check(migration):
    """Regression: the escalation test weakened during the refactor, so `flat-cooldown`
    (caught at the base by it) now survives."""
    edit(
        migration,
        "tests/test_runner.py",
        'assert [relay.record_failure("chat") for _ in range(3)] == [60, 180, 540]',
        'assert relay.record_failure("chat") == 60',
    )
    done = run_refactor(migration, *MOVES, "--only", "mutations", "--only", "old-tests")
    assert done.code == 1
    assert done.outcomes()["mutations"] == "failed"
    (finding,) = done.check("mutations")["findings"]
    assert finding["message"].startswith(
        "flat-cooldown: caught at the base by "
        "tests/test_runner.py::test_consecutive_failures_escalate; "
    )
    assert " now: " in finding["message"]
    assert (finding["path"], finding["line"]) == ("mutations/relay.toml", 1)
    assert done.outcomes()["old-tests"] == "passed"


def test_a_test_failing_at_the_base_too_is_excluded_not_blamed(tmp_path):
    def break_the_cap_test(root):
        edit(
            root,
            "tests/test_runner.py",
            "assert _cooldown_seconds(10) == 3600",
            "assert _cooldown_seconds(10) == 7200",
        )

    root = build_migration(tmp_path / "project", before_first_commit=break_the_cap_test)
    done = run_refactor(root, "--base", "HEAD~1", "--only", "old-tests")
    assert done.code == 0, done.out
    check = done.check("old-tests")
    assert check["outcome"] == "passed"
    assert check["findings"] == []
    (note,) = check["notes"]
    assert note.startswith("1 test(s) fail at HEAD~1 (")
    assert note.endswith(
        "too, so they are not blamed on the change: "
        "tests/test_runner.py::test_cooldown_is_capped_at_an_hour"
    )
    assert "(1 failing at the base too, excluded)" in check["summary"]


def test_a_stale_entry_that_applied_at_the_base_is_reported_with_its_stale_message(migration):
    """The code under `removed-cap` was rewritten (the cap moved to min's first argument);
    the entry's scope was updated for the rename in this change, its `find` was not."""
    edit(
        migration,
        "relay/runner.py",
        "min(BASE_COOLDOWN_SECONDS * 3 ** (streak - 1), COOLDOWN_CAP_SECONDS)",
        "min(COOLDOWN_CAP_SECONDS, BASE_COOLDOWN_SECONDS * 3 ** (streak - 1))",
    )
    done = run_refactor(migration, "--base", "HEAD~1", "--only", "mutations")
    assert done.code == 1
    (finding,) = done.check("mutations")["findings"]
    assert finding["message"] == (
        "removed-cap: applied at the base, stale now "
        "(updated in this change, but not to today's code)"
    )
    assert (finding["path"], finding["line"]) == ("mutations/relay.toml", 10)
    assert any(line.strip().startswith("fix:") for line in finding["details"])


def test_lost_assertions_inform_and_fail_only_when_asked(migration):
    edit(
        migration,
        "tests/test_runner.py",
        "    assert _cooldown_seconds(10) == 3600",
        "    _cooldown_seconds(10)",
    )
    informed = run_refactor(migration, "--base", "HEAD~1", "--only", "lost-assertions")
    assert informed.code == 0
    assert informed.check("lost-assertions")["outcome"] == "info"
    assert informed.messages("lost-assertions") == [
        "tests/test_runner.py::test_cooldown_is_capped_at_an_hour asserts less: "
        "1 assertion(s) at the base, 0 now"
    ]
    failed = run_refactor(
        migration, "--base", "HEAD~1", "--only", "lost-assertions", "--fail-on", "lost-assertions"
    )
    assert failed.code == 1


def test_github_annotations_and_markdown(migration):
    edit(migration, "relay/runner.py", "_cooldown_seconds = cooldown_seconds\n", "")
    summary = migration.parent / "summary.md"
    done = run_refactor(
        migration,
        "--base",
        "HEAD~1",
        "--only",
        "names",
        "--markdown",
        str(summary),
        env={"GITHUB_ACTIONS": "true"},
    )
    assert done.code == 1
    assert (
        "::error file=tests/test_runner.py,line=3,title=Removed or changed names still in "
        "use::relay.runner._cooldown_seconds object was removed"
    ) in done.out
    markdown = summary.read_text()
    assert "| Removed or changed names still in use | ❌ failed |" in markdown
    assert "- `tests/test_runner.py:3 (in <module>)`: relay.runner._cooldown_seconds" in markdown


def test_usage_errors_exit_2_and_leave_no_worktree(migration):
    unknown = run_refactor(migration, "--base", "no-such-branch")
    assert unknown.code == 2
    assert "--base no-such-branch: not a revision" in unknown.err
    assert "Traceback" not in unknown.err
    assert "worktree" not in repository_state(migration)["worktrees"].split("\n", 2)[-1]
