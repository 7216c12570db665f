"""`guardcheck run` end to end: real `python -m guardcheck` processes on throwaway git projects.

The lab-level behaviour (verdicts, paths, crashes, timeouts) is tested in test_lab.py and
test_reliability.py; these tests hold the command to its contract: exit codes, what the
console names, the report files, the output folder, signals, and a clean working tree.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import pytest
from support.processes import alive, descendants, parent_table, wait_until
from support.projects import commit, copy_project, edit, fixture_text, git_status, write_files

from guardcheck.model import is_named_by
from guardcheck.reports.stryker import nodeids_by_id

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
SCHEMA = REPO / "tests" / "fixtures" / "schema" / "mutation-testing-report-schema-3.8.4.json"

TEST_FILE = "tests/test_ladder.py::"
ESCALATES = TEST_FILE + "test_ladder_escalates"
CAP = TEST_FILE + "test_cap"
RESETS = TEST_FILE + "test_success_resets_only_on_progress"

# tests/test_ladder.py's escalation test weakened: it no longer checks that the ladder
# climbs, so only test_cap still notices a flat cooldown ...
WEAK_ESCALATION = (
    "tests/test_ladder.py",
    "assert [cooldown(n) for n in (1, 2, 3)] == [60, 180, 540]",
    "assert cooldown(1) == 60",
)
# ... and test_cap weakened too, so that nothing notices it.
WEAK_CAP = ("tests/test_ladder.py", "assert cooldown(10) == 3600", "assert cooldown(10) <= 3600")

# `[1/2] caught           flat-cooldown  by tests/...  (0.02 s, fork)`: one per mutant.
PROGRESS = re.compile(r"^\[\s*\d+/\d+\] (?P<verdict>\S+)\s+(?P<id>\S+)(?P<detail>.*)$")


def ladder_project(
    folder: Path,
    *overlays: str,
    edits: tuple[tuple[str, str, str], ...] = (),
    files: dict[str, str] | None = None,
) -> Path:
    """The ladder fixture project with the ladder-run overlay (a witness conftest.py and two
    catalogue entries), further `overlays`, (path, old, new) `edits` and `files`, committed."""
    root = copy_project(folder / "ladder", "ladder", "ladder-run", *overlays)
    for path, old, new in edits:
        edit(root / path, old, new)
    write_files(root, files or {})
    return commit(root)


def environment(tmp_path: Path) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        # The outer pytest's settings and terminal width must not leak into the run.
        if not key.startswith("PYTEST_") and key != "COLUMNS"
    }
    env["GC_WITNESS"] = str(tmp_path / "witness.txt")
    return env


def guardcheck(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`python -m guardcheck ARGS...` in `root`, to completion."""
    return subprocess.run(
        [sys.executable, "-m", "guardcheck", *args],
        cwd=root,
        env=environment(root.parent),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def verdicts(stdout: str) -> dict[str, tuple[str, str]]:
    """Mutant id -> (verdict, the rest of its progress line)."""
    found = {}
    for line in stdout.splitlines():
        match = PROGRESS.match(line)
        if match:
            found[match["id"]] = (match["verdict"], match["detail"])
    return found


def witnessed(root: Path) -> list[str]:
    """Node ids of every test that ran during the runs so far (see ladder-run/conftest.py)."""
    witness = root.parent / "witness.txt"
    return witness.read_text(encoding="utf-8").split() if witness.exists() else []


def json_mutants(report: dict) -> dict[str, dict]:
    return {m["guardcheck"]["id"]: m for f in report["files"].values() for m in f["mutants"]}


def named(expected: list[str], nodeid: str) -> bool:
    """Does a `killed_by` list name this node id (itself, its class, or unparametrized)?"""
    return any(is_named_by(e, nodeid) for e in expected)


# -- exit 0 --------------------------------------------------------------------------------


def test_a_passing_project_exits_0_with_every_report_and_a_clean_tree(tmp_path):
    """Also guards the JSON statusReason against repeating the killer's failure message."""
    root = ladder_project(tmp_path)
    reports = tmp_path / "reports"
    done = guardcheck(
        root,
        "run",
        *("--json", str(reports / "r.json")),
        *("--junit", str(reports / "r.xml")),
        *("--markdown", str(reports / "r.md")),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert git_status(root) == ""  # .guardcheck/ ignores itself; nothing else was written
    assert {CAP, ESCALATES, RESETS} <= set(witnessed(root))  # the witness sees real runs
    progress = verdicts(done.stdout)
    assert {ident: verdict for ident, (verdict, _) in progress.items()} == {
        "flat-cooldown": "caught",
        "ungated-reset": "caught",
    }
    assert f"by {ESCALATES}" in progress["flat-cooldown"][1]
    assert f"by {RESETS}" in progress["ungated-reset"][1]
    assert done.stdout.splitlines()[-1].endswith("gate passed")

    report = json.loads((reports / "r.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft7Validator(json.loads(SCHEMA.read_text(encoding="utf-8")))
    assert [error.message for error in validator.iter_errors(report)] == []
    mutants = json_mutants(report)
    assert {ident: m["status"] for ident, m in mutants.items()} == {
        "flat-cooldown": "Killed",
        "ungated-reset": "Killed",
    }
    names = nodeids_by_id(report)
    assert [names[i] for i in mutants["flat-cooldown"]["killedBy"]] == [ESCALATES]
    assert [names[i] for i in mutants["ungated-reset"]["killedBy"]] == [RESETS]
    for mutant in mutants.values():
        lines = mutant["statusReason"].splitlines()
        assert len(lines) == len(set(lines)), mutant["statusReason"]

    junit = ET.parse(reports / "r.xml").getroot()
    assert sorted(case.get("name") for case in junit.iter("testcase")) == [
        "flat-cooldown",
        "ungated-reset",
    ]
    assert list(junit.iter("failure")) == []
    assert junit.get("failures") == "0"

    markdown = (reports / "r.md").read_text(encoding="utf-8")
    assert "gate passed" in markdown.splitlines()[0]
    assert "`flat-cooldown`" in markdown
    assert "`ungated-reset`" in markdown

    outcomes = (root / ".guardcheck" / "outcomes.jsonl").read_text(encoding="utf-8")
    lines = [json.loads(line) for line in outcomes.splitlines()]
    assert sorted((line["id"], line["status"]) for line in lines) == [
        ("flat-cooldown", "caught"),
        ("ungated-reset", "caught"),
    ]


def test_matrix_runs_every_selected_test_and_lists_the_tests_that_kill_nothing(tmp_path):
    root = ladder_project(tmp_path, "ladder-idle")
    done = guardcheck(root, "run", "--matrix")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert "Tests that kill nothing (1):" in lines
    assert "  tests/test_idle.py::test_first_step_is_positive  (ran against 1 mutant)" in lines
    # Bail mode would stop at the named killer; the matrix also runs test_cap, which kills it.
    kill_rows = [line for line in lines if CAP in line]
    assert any("flat-cooldown" in line for line in kill_rows), done.stdout
    assert git_status(root) == ""


# -- exit 1 --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def weakened(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """The escalation test weakened so only test_cap still catches flat-cooldown; one run."""
    folder = tmp_path_factory.mktemp("weakened")
    root = ladder_project(folder, edits=(WEAK_ESCALATION,))
    return root, guardcheck(root, "run")


def test_weakening_one_test_exits_1_naming_the_mutant_and_the_test_that_used_to_catch_it(
    weakened,
):
    """Acceptance of issue 4: the weakened test is named, and the gate fails."""
    root, done = weakened
    assert done.returncode == 1, done.stdout + done.stderr
    progress = verdicts(done.stdout)
    verdict, detail = progress["flat-cooldown"]
    assert verdict == "caught-elsewhere"
    assert f"caught by {CAP}, not by {ESCALATES}" in detail
    assert progress["ungated-reset"][0] == "caught"
    assert done.stdout.splitlines()[-1].endswith("gate failed")
    assert git_status(root) == ""


def test_allow_caught_elsewhere_passes_the_gate_but_still_reports_the_verdict(weakened):
    root, _ = weakened
    done = guardcheck(root, "run", "--allow-caught-elsewhere")
    assert done.returncode == 0, done.stdout + done.stderr
    assert verdicts(done.stdout)["flat-cooldown"][0] == "caught-elsewhere"
    assert done.stdout.splitlines()[-1].endswith("gate passed")
    assert git_status(root) == ""


@pytest.fixture(scope="module")
def survivor(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """Escalation and cap tests weakened: flat-cooldown survives, ungated-reset is caught."""
    folder = tmp_path_factory.mktemp("survivor")
    root = ladder_project(folder, edits=(WEAK_ESCALATION, WEAK_CAP))
    return root, guardcheck(root, "run")


def test_a_survivor_exits_1_and_names_the_named_killer_that_passed(survivor):
    """Guards verdict.py's survivor reason, which names the named killer(s) that passed."""
    root, done = survivor
    assert done.returncode == 1, done.stdout + done.stderr
    progress = verdicts(done.stdout)
    verdict, detail = progress["flat-cooldown"]
    assert verdict == "survived"
    assert ESCALATES in detail  # the test that used to catch it
    assert progress["ungated-reset"][0] == "caught"
    assert "1 survived" in done.stdout.splitlines()[-1]
    assert git_status(root) == ""


@pytest.mark.parametrize(("score", "code"), [("50", 0), ("60", 1)])
def test_fail_under_gates_on_the_score_instead(survivor, score, code):
    root, _ = survivor  # one of two mutants survives: a score of 50%
    done = guardcheck(root, "run", "--fail-under", score)
    assert done.returncode == code, done.stdout + done.stderr
    verdict = "passed" if code == 0 else "failed"
    assert f"gate {verdict} (score 50.0% vs --fail-under {score}%)" in done.stdout


# -- exit 2 and 3: nothing (or only the baseline) runs -------------------------------------


def nothing_ran(root: Path, done: subprocess.CompletedProcess[str]) -> None:
    assert witnessed(root) == []  # not a single test, baseline included
    assert "baseline" not in done.stdout
    assert not (root / ".guardcheck").exists()
    assert git_status(root) == ""


def test_a_stale_entry_exits_2_naming_it_before_any_test_runs(tmp_path):
    root = ladder_project(tmp_path, "ladder-stale")
    done = guardcheck(root, "run")
    assert done.returncode == 2, done.stdout + done.stderr
    problems = [line for line in done.stderr.splitlines() if ": gone-call: " in line]
    assert problems[0].startswith("mutations/stale.toml:3: gone-call: stale:"), done.stderr
    nothing_ran(root, done)


@pytest.mark.parametrize(
    ("args", "mentions"),
    [
        (("--only", "nosuchid"), "nosuchid"),
        (("--quiet", "--verbose"), "--quiet"),
    ],
    ids=["only-unknown", "quiet-and-verbose"],
)
def test_usage_errors_exit_2_before_any_test_runs(tmp_path, args, mentions):
    root = ladder_project(tmp_path)
    done = guardcheck(root, "run", *args)
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stderr.startswith("guardcheck: ")
    assert mentions in done.stderr
    assert "Traceback" not in done.stderr
    nothing_ran(root, done)


def test_a_red_baseline_exits_3_naming_the_failing_test_and_runs_no_mutant(tmp_path):
    red = {"tests/test_red.py": "def test_red():\n    assert 1 == 2\n"}
    root = ladder_project(tmp_path, files=red)
    done = guardcheck(root, "run")
    assert done.returncode == 3, done.stdout + done.stderr
    assert "tests/test_red.py::test_red" in done.stderr
    assert ESCALATES not in done.stderr  # only the failing test is blamed
    assert list((root / ".guardcheck" / "mutants").iterdir()) == []
    assert not (root / ".guardcheck" / "outcomes.jsonl").exists()
    assert git_status(root) == ""


FLAKY = "tests/test_flaky.py::test_flips"  # from the flaky-test overlay


def test_baseline_runs_2_exits_3_naming_the_flaky_test_and_its_outcome_per_run(tmp_path):
    root = ladder_project(tmp_path, "flaky-test")
    done = guardcheck(root, "run", "--baseline-runs", "2")
    assert done.returncode == 3, done.stdout + done.stderr
    assert f"flaky: {FLAKY} passed in run 1, failed in run 2" in done.stderr
    assert ESCALATES not in done.stderr  # only the flaky test is blamed
    assert verdicts(done.stdout) == {}  # no mutant ran
    assert witnessed(root).count(ESCALATES) == 2  # both runs ran every test
    assert git_status(root) == ""


def test_baseline_runs_comes_from_the_config_and_the_flag_overrides_it(tmp_path):
    pyproject = fixture_text("ladder", "pyproject.toml") + "baseline_runs = 2\n"
    root = ladder_project(tmp_path, "flaky-test", files={"pyproject.toml": pyproject})
    from_config = guardcheck(root, "run")
    assert from_config.returncode == 3, from_config.stdout + from_config.stderr
    assert f"flaky: {FLAKY} passed in run 1, failed in run 2" in from_config.stderr
    overridden = guardcheck(root, "run", "--baseline-runs", "1")  # the flaky test passes once
    assert overridden.returncode == 0, overridden.stdout + overridden.stderr
    assert git_status(root) == ""


# -- 130 -----------------------------------------------------------------------------------


def _default_sigint() -> None:
    # A shell starts background jobs with SIGINT ignored, and Python keeps it ignored; a
    # user's Ctrl-C reaches a foreground process, so give the child the default handler.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_an_interrupt_mid_mutant_exits_130_with_no_process_left_and_a_clean_tree(tmp_path, signum):
    root = ladder_project(tmp_path, "ladder-hangs")  # its only entry hangs
    outdir = root / ".guardcheck"
    process = subprocess.Popen(
        [sys.executable, "-m", "guardcheck", "run", "--timeout-constant", "600"],
        cwd=root,
        env=environment(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_default_sigint,
    )
    tree: set[int] = set()
    children_gone = False
    try:

        def hanging_mutant_running() -> bool:
            # baseline.json: the baseline is done; hangs.diff: the mutant started; and the
            # pytest host has forked the mutant's child.
            return (
                (outdir / "baseline.json").exists()
                and (outdir / "mutants" / "hangs.diff").exists()
                and len(descendants(process.pid)) >= 2
            )

        assert wait_until(hanging_mutant_running, seconds=60), process.poll()
        tree = descendants(process.pid)
        process.send_signal(signum)
        out, err = process.communicate(timeout=30)
        children_gone = wait_until(lambda: not any(alive(pid) for pid in tree))
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
        if not children_gone:  # after the verdict below is settled: clean up what we started
            for pid in tree:
                if alive(pid):
                    os.kill(pid, signal.SIGKILL)
    assert process.returncode == 130, out + err
    assert children_gone, "orphan processes remain"
    lines = out.splitlines()
    assert any(line.startswith("baseline: 3 tests passed") for line in lines), out
    assert verdicts(out) == {}  # the interrupted mutant gets no verdict
    assert lines[-1].endswith("interrupted"), out
    assert git_status(root) == ""


# -- the bundled reference app -------------------------------------------------------------


def test_the_bundled_catalogue_catches_two_reference_bugs_in_a_fresh_copy(tmp_path):
    root = tmp_path / "project"
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    for folder in ("target_app", "tests/target_app", "mutations"):
        shutil.copytree(REPO / folder, root / folder, ignore=skip)
    shutil.copy(REPO / "pyproject.toml", root / "pyproject.toml")
    commit(root)
    report_path = tmp_path / "r.json"
    done = guardcheck(
        root,
        "run",
        *("--only", "flat-cooldown", "--only", "deleted-call-site-wiring"),
        *("--json", str(report_path)),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(report_path.read_text(encoding="utf-8"))
    mutants, names = json_mutants(report), nodeids_by_id(report)
    assert sorted(mutants) == ["deleted-call-site-wiring", "flat-cooldown"]
    for ident, mutant in mutants.items():
        assert mutant["guardcheck"]["verdict"] == "caught", ident
        expected = mutant["guardcheck"]["expectedKillers"]
        assert expected, ident  # the bundled entries name their killers
        assert any(named(expected, names[killer]) for killer in mutant["killedBy"]), ident
    assert git_status(root) == ""


# -- 4 ---------------------------------------------------------------------------------------


def test_the_host_killed_mid_run_exits_4_with_reports_of_the_mutants_that_finished(tmp_path):
    """Regression: the pytest host dying mid-run exited 2 ("nothing was run") and the results
    of the mutants that had finished were lost; now every report keeps them (exit 4)."""
    # flat-cooldown finishes first (one job, catalogue order), then `hangs` hangs.
    catalogue = (
        fixture_text("ladder", "mutations/ladder.toml")
        + "\n"
        + fixture_text("ladder-hangs", "mutations/ladder.toml")
    )
    root = ladder_project(tmp_path, files={"mutations/ladder.toml": catalogue})
    outdir = root / ".guardcheck"
    report_path = tmp_path / "report.json"
    junit_path = tmp_path / "report.xml"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "guardcheck",
            "run",
            "-j",
            "1",
            "--timeout-constant",
            "600",
            "--json",
            str(report_path),
            "--junit",
            str(junit_path),
        ],
        cwd=root,
        env=environment(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:

        def first_done_second_running() -> bool:
            outcomes = outdir / "outcomes.jsonl"
            return (
                outcomes.exists()
                and outcomes.read_text(encoding="utf-8").count("\n") == 1
                and (outdir / "mutants" / "hangs.diff").exists()
            )

        assert wait_until(first_done_second_running, seconds=60), process.poll()
        # The host is guardcheck's own child; its forked mutant children share its command line.
        parents = parent_table()
        host = next(
            pid
            for pid in descendants(process.pid)
            if parents.get(pid) == process.pid
            and "guardcheck.child.host" in Path(f"/proc/{pid}/cmdline").read_text()
        )
        tree = descendants(process.pid)
        os.kill(host, signal.SIGKILL)
        out, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 4, out + err
    assert "results incomplete" in err
    assert "pytest (the guardcheck host) stopped unexpectedly" in err
    report = json.loads(report_path.read_text(encoding="utf-8"))
    finished = json_mutants(report)
    assert set(finished) == {"flat-cooldown"}
    assert finished["flat-cooldown"]["status"] == "Killed"
    assert ET.parse(junit_path).getroot() is not None
    assert wait_until(lambda: not any(alive(pid) for pid in tree)), "orphan processes remain"
    assert git_status(root) == ""
