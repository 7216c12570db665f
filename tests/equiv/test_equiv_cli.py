"""`guardcheck equiv` on the command line: output, --json, exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from guardcheck.commands.main import main

CANONICAL = "target_app.gateway.run:hygiene_compaction_recovered"


REPO = Path(__file__).resolve().parents[2]


def invoke(root, *args):
    return CliRunner().invoke(main, ["--root", str(root), "equiv", *args])


def test_disagreement_exits_1_with_both_outcomes(gates):
    done = invoke(gates, CANONICAL, "gatekit.recovery:hand_rolled_recovered")
    assert done.exit_code == 1
    assert "2 disagreements in" in done.output
    assert "OLD returned True" in done.output
    assert "NEW returned False" in done.output


def test_json_reports_the_tiers_and_exits_0_when_equal(gates):
    done = invoke(gates, "gatekit.progress:admit", "gatekit.progress:admit_table", "--json")
    assert done.exit_code == 0
    report = json.loads(done.output)
    assert report["version"] == 1
    assert report["equal"] is True
    assert report["complete"] is True
    assert report["tiers"]["exhaustive"] == 12


@pytest.mark.slow  # the ledger fixture is a git repository
def test_bad_revision_is_one_paragraph_and_exit_2(ledger):
    done = invoke(ledger, "ledger.gate:recovered@nope", CANONICAL)
    assert done.exit_code == 2
    assert "guardcheck: @nope: not a revision" in done.output
    assert "Traceback" not in done.output


def test_stateful_divergence_exits_1(gates):
    done = invoke(gates, "--stateful", "builtins:dict", "gatekit.views:make_lenient_view")
    assert done.exit_code == 1
    assert "x.pop('a')" in done.output


@pytest.mark.slow
def test_real_process_compares_a_revision_with_todays_code(ledger):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "guardcheck",
            "equiv",
            "ledger.gate:recovered@HEAD~1",
            CANONICAL,
            "--examples",
            "5000",
        ],
        cwd=ledger,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
        # target_app is the repository's, not installed: make it importable as a user would.
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    assert done.returncode == 0, done.stderr
    assert "no disagreement in 5,000 inputs" in done.stdout


def test_a_run_leaves_no_hypothesis_folder_in_the_project(gates, git):
    """Regression guard: equiv ran Hypothesis with the project as its working directory, so
    Hypothesis left `.hypothesis/` there (a cache of the constants in the files it read)."""
    git(gates, "init", "-q")
    git(gates, "add", "-A")
    git(gates, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "fixture")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHONPATH", "HYPOTHESIS"))}
    command = ["equiv", "--stateful", "builtins:dict", "gatekit.views:make_legacy_view"]
    done = subprocess.run(
        [sys.executable, "-m", "guardcheck", *command],
        cwd=gates,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 1, done.stderr  # a divergence: Hypothesis ran
    assert "list(x.items())" in done.stdout
    assert git(gates, "status", "--porcelain", "--ignored") == ""
