"""The catalogue commands end to end: list, check, show, apply, and the global options."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.catalogue import FLAT_COOLDOWN, LADDER, ladder, run_cli, tree_state
from support.projects import edit, write_files

# Built from lines: the diff's context lines for blank lines are a lone space.
FLAT_DIFF = "\n".join(
    [
        "--- a/app/ladder.py",
        "+++ b/app/ladder.py",
        "@@ -4,7 +4,7 @@",
        " ",
        " def cooldown(streak, base=BASE):",
        "     multiplier = 3 ** (streak - 1)",
        "-    return min(base * multiplier, CAP)",
        "+    return min(base, CAP)",
        " ",
        " ",
        " class Gate:",
        "",
    ]
)


@pytest.fixture
def root(project) -> Path:
    """Two catalogue files: three sound entries (one with two edits) and a stale one."""
    return project("ladder", "ladder-entries")


def two_entries(project) -> Path:
    """The ladder project with flat-cooldown and ungated-reset in mutations/ladder.toml."""
    root = project("ladder", "ladder-entries")
    (root / "mutations" / "moves.toml").unlink()
    return root


def test_list_json_snapshot(root: Path):
    result = run_cli(root, "list", "--json")
    assert result.exit_code == 0
    listing = json.loads(result.stdout)
    assert listing["root"] == str(root.resolve())
    listing["root"] = "<root>"
    (problem,) = listing["problems"]
    assert problem["details"]
    assert all(d.startswith("nearest: ") for d in problem["details"])
    problem["details"] = ["<the engine's nearest candidates>"]
    common = {"catalogue": "mutations/ladder.toml", "killed_by": [], "edits": 1, "valid": True}
    assert listing == {
        "version": 1,
        "root": "<root>",
        "mutations": [
            {
                **common,
                "id": "flat-cooldown",
                "summary": "The ladder stops escalating.",
                "file": "app/ladder.py",
                "line": 7,
                "column": 12,
                "end_line": 7,
                "end_column": 39,
                "scope": "cooldown",
                "tags": ["ladder"],
                "killed_by": ["tests/test_ladder.py::test_ladder_escalates"],
                "catalogue_line": 1,
            },
            {
                **common,
                "id": "ungated-reset",
                "summary": "Success resets the streak even without progress.",
                "file": "app/ladder.py",
                "line": 19,
                "column": 9,
                "end_line": 20,
                "end_column": 28,
                "scope": "Gate.record_success",
                "tags": ["ladder", "reset"],
                "catalogue_line": 11,
            },
            {
                **common,
                "id": "moved-cap",
                "summary": "The cap moves out of the ladder into the gate.",
                "file": "app/ladder.py",
                "line": 7,
                "column": 12,
                "end_line": 7,
                "end_column": 39,
                "scope": "cooldown",
                "tags": [],
                "catalogue": "mutations/moves.toml",
                "catalogue_line": 1,
                "edits": 2,
            },
            {
                **common,
                "id": "gone-call",
                "summary": "Refers to code that no longer exists.",
                "file": "app/ladder.py",
                "line": None,
                "column": None,
                "end_line": None,
                "end_column": None,
                "scope": None,
                "tags": [],
                "catalogue": "mutations/moves.toml",
                "catalogue_line": 14,
                "valid": False,
            },
        ],
        "problems": [
            {
                "kind": "stale",
                "id": "gone-call",
                "catalogue": "mutations/moves.toml",
                "catalogue_line": 14,
                "message": "`find` matches nothing in app/ladder.py",
                "fix": "update `find` to today's code, or delete the entry if the bug is gone "
                "for good",
                "details": ["<the engine's nearest candidates>"],
            }
        ],
    }
    assert result.stderr == "catalogue has 1 problem: run `guardcheck check` to see them\n"


def test_list_table_marks_invalid_entries_and_still_exits_0(root: Path):
    result = run_cli(root, "list")
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].split() == [
        "flat-cooldown",
        "app/ladder.py:7",
        "ladder",
        "The",
        "ladder",
        "stops",
        "escalating.",
    ]
    assert lines[1].startswith("ungated-reset  app/ladder.py:19")
    assert lines[3].split()[:4] == ["gone-call", "app/ladder.py", "(INVALID:", "stale)"]
    assert lines[-1] == "4 mutations"
    assert "run `guardcheck check`" in result.stderr


@pytest.mark.slow  # pytest --collect-only in a subprocess
def test_check_on_a_sound_catalogue(project):
    result = run_cli(two_entries(project), "check", "--collect")
    assert (result.exit_code, result.stdout) == (0, "2 mutations OK (killed_by collected)\n")


def test_show_prints_each_diff_headed_by_id_and_summary(root: Path):
    result = run_cli(root, "show", "flat-cooldown", "moved-cap")
    assert result.exit_code == 0
    first, second = result.stdout.split("\n\n# ")
    assert first == (
        "# flat-cooldown (mutations/ladder.toml:1): The ladder stops escalating.\n"
        + FLAT_DIFF.rstrip("\n")
    )
    assert second.startswith("moved-cap (mutations/moves.toml:1): The cap moves out")
    assert "-    return min(base * multiplier, CAP)\n+    return base * multiplier\n" in second
    assert (
        "-        return cooldown(self.streak)\n+        return min(cooldown(self.streak), CAP)\n"
        in second
    )


def test_show_unknown_id_suggests_the_closest(root: Path):
    result = run_cli(root, "show", "flat-cooldown", "ungated-rest")
    assert result.exit_code == 2
    assert result.stdout == ""
    assert "no mutation with id `ungated-rest` (did you mean `ungated-reset`?)" in result.stderr


def test_show_of_an_invalid_entry_reports_its_problem(root: Path):
    result = run_cli(root, "show", "gone-call")
    assert result.exit_code == 2
    assert "mutations/moves.toml:14: gone-call: stale:" in result.stderr


@pytest.mark.slow  # check --collect runs pytest --collect-only in a subprocess
def test_list_check_show_change_nothing_in_the_tree(root: Path):
    before = tree_state(root)
    for args in (
        ["list"],
        ["list", "--json"],
        ["check"],
        ["check", "--collect"],
        ["show", "moved-cap"],
    ):
        run_cli(root, *args)
    assert tree_state(root) == before


def test_apply_then_revert_restores_the_exact_bytes(root: Path):
    target = root / "app" / "ladder.py"
    original = target.read_bytes()
    applied = run_cli(root, "apply", "flat-cooldown")
    assert applied.exit_code == 0, applied.output
    assert applied.stdout == FLAT_DIFF
    assert "WARNING: mutation `flat-cooldown` is now written into your working tree" in (
        applied.stderr
    )
    assert "guardcheck apply --revert flat-cooldown" in applied.stderr
    assert b"return min(base, CAP)" in target.read_bytes()
    assert (root / ".guardcheck" / ".gitignore").read_text().splitlines()[-1] == "*"
    state = json.loads((root / ".guardcheck" / "applied" / "flat-cooldown.json").read_text())
    assert [f["path"] for f in state["files"]] == ["app/ladder.py"]

    again = run_cli(root, "apply", "flat-cooldown")
    assert again.exit_code == 2
    assert "already applied" in again.stderr
    while_applied = run_cli(root, "check")
    assert while_applied.exit_code == 2  # the applied entry no longer matches: stale
    assert while_applied.stderr.startswith("note: applied to the working tree: flat-cooldown;")

    reverted = run_cli(root, "apply", "--revert", "flat-cooldown")
    assert reverted.exit_code == 0, reverted.output
    assert target.read_bytes() == original
    assert not (root / ".guardcheck" / "applied" / "flat-cooldown.json").exists()


def test_apply_keeps_crlf_line_endings(project):
    root = project("ladder")
    target = root / "app" / "ladder.py"
    target.write_bytes(LADDER.replace("\n", "\r\n").encode())
    assert run_cli(root, "apply", "flat-cooldown").exit_code == 0
    assert b"    return min(base, CAP)\r\n" in target.read_bytes()
    assert b"\n" not in target.read_bytes().replace(b"\r\n", b"")
    assert run_cli(root, "apply", "--revert", "flat-cooldown").exit_code == 0
    assert target.read_bytes() == LADDER.replace("\n", "\r\n").encode()


def test_revert_refuses_when_the_file_changed_since_apply(root: Path):
    assert run_cli(root, "apply", "flat-cooldown").exit_code == 0
    target = root / "app" / "ladder.py"
    edited = target.read_text() + "# my debugging note\n"
    target.write_text(edited)
    result = run_cli(root, "apply", "--revert", "flat-cooldown")
    assert result.exit_code == 2
    assert "app/ladder.py changed since it was applied" in result.stderr
    assert target.read_text() == edited  # nothing thrown away


def test_apply_refuses_to_stack_on_a_file_with_an_applied_mutant(root: Path):
    assert run_cli(root, "apply", "flat-cooldown").exit_code == 0
    result = run_cli(root, "apply", "ungated-reset")
    assert result.exit_code == 2
    assert "`flat-cooldown` is applied to app/ladder.py" in result.stderr


def test_revert_of_something_not_applied(root: Path):
    assert run_cli(root, "apply", "ungated-reset").exit_code == 0
    result = run_cli(root, "apply", "--revert", "ungated-rest")
    assert result.exit_code == 2
    assert "`ungated-rest` is not applied (did you mean `ungated-reset`?)" in result.stderr
    escape = run_cli(root, "apply", "--revert", "../../etc/x")
    assert escape.exit_code == 2
    assert "is not a catalogue id" in escape.stderr


def test_apply_refuses_an_invalid_entry_and_writes_nothing(root: Path):
    before = tree_state(root)
    result = run_cli(root, "apply", "gone-call")
    assert result.exit_code == 2
    assert "gone-call: stale" in result.stderr
    assert tree_state(root) == before


def test_catalogue_option_overrides_the_configured_paths(root: Path, tmp_path: Path):
    other = write_files(tmp_path / "elsewhere", {"one.toml": FLAT_COOLDOWN})
    result = run_cli(root, "--catalogue", str(other / "one.toml"), "check")
    assert (result.exit_code, result.stdout) == (0, "1 mutation OK\n")
    result = run_cli(root, "--catalogue", str(other), "--catalogue", str(other), "list")
    assert result.stdout.splitlines()[-1] == "1 mutation"


def test_bad_input_never_shows_a_traceback(project):
    root = project("ladder")
    missing = run_cli(root, "--catalogue", str(root / "nope"), "check")
    assert missing.exit_code == 2
    assert "catalogue path" in missing.stderr
    assert "does not exist" in missing.stderr
    no_root = run_cli(root / "absent", "check")
    assert no_root.exit_code == 2
    assert "does not exist" in no_root.stderr
    write_files(root, {"pyproject.toml": "[tool.guardcheck\n"})
    bad_config = run_cli(root, "list")
    assert bad_config.exit_code == 2
    assert "not valid TOML" in bad_config.stderr
    for result in (missing, no_root, bad_config):
        assert "Traceback" not in result.output


def test_a_transform_entry_and_deletion(project):
    root = project("ladder", "ladder-transform")
    before = tree_state(root)
    result = run_cli(root, "show", "zero-cap", "no-reset")
    assert result.exit_code == 0, result.output
    assert "-CAP = 3600\n+CAP = 0\n" in result.stdout
    assert "-            self.streak = 0\n+            pass\n" in result.stdout
    assert tree_state(root) == before  # importing the transform left no __pycache__


@pytest.mark.slow
def test_python_m_guardcheck_in_a_real_subprocess(project):
    """Also a regression: a changed guard (`after <= before`) still guarding the reset was
    reported as "bug-back" because `replace` (the reset alone) matched inside it."""
    root = two_entries(project)
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    command = [sys.executable, "-m", "guardcheck", "check"]
    ok = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, check=False)
    assert (ok.returncode, ok.stdout, ok.stderr) == (0, "2 mutations OK\n", "")
    edit(root / "app" / "ladder.py", "after < before", "after <= before")
    stale = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, check=False)
    assert stale.returncode == 2
    assert stale.stderr.startswith("mutations/ladder.toml:11: ungated-reset: stale:")


def test_list_marks_the_second_of_two_duplicate_ids_invalid(project):
    """Regression: `list` showed both entries as valid while `check` rejected the second."""
    root = ladder(project, {"a.toml": FLAT_COOLDOWN, "b.toml": "\n\n" + FLAT_COOLDOWN})
    listing = json.loads(run_cli(root, "list", "--json").stdout)
    assert [(m["catalogue"], m["valid"]) for m in listing["mutations"]] == [
        ("mutations/a.toml", True),
        ("mutations/b.toml", False),
    ]
    table = run_cli(root, "list").stdout.splitlines()
    assert "(INVALID: duplicate)" in table[1]
    assert "INVALID" not in table[0]
