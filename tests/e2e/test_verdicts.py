"""`weakened`, `killed_by_any`, `known-gap` and `gap-closed` end to end (issue 9 §3, §4).

Real `python -m guardcheck run` processes on a committed copy of the `verdicts`
fixture project. Each verdict is checked against the mutant applied by hand to a
second copy of the project and the whole suite run there with plain pytest.
"""

from __future__ import annotations

import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from support.projects import commit, copy_project, edit, git_status, write_files
from support.verdicts import guardcheck_run, suite_outcomes, tracked_bytes

pytestmark = pytest.mark.slow

CALC = "pkg/calc.py"
SMALL = "tests/test_calc.py::test_add_small"
ZERO = "tests/test_calc.py::test_add_zero"
SCALE = "tests/test_calc.py::test_scale"
SCALE_ZERO = "tests/test_calc.py::test_scale_zero"


def hand_applied(tmp_path: Path, old: str, new: str) -> dict[str, str]:
    """Node id -> outcome of the whole suite, with `old` -> `new` written into a copy."""
    root = copy_project(tmp_path / f"by-hand-{len(list(tmp_path.iterdir()))}", "verdicts")
    edit(root / CALC, old, new)
    return suite_outcomes(root)


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """One run of every entry: its exit code, reports, and the tree before and after."""
    folder = tmp_path_factory.mktemp("verdicts")
    root = copy_project(folder / "project", "verdicts", git=True)
    before = tracked_bytes(root)
    reports = folder / "reports"
    done, mutants = guardcheck_run(
        root,
        reports / "r.json",
        *("--junit", str(reports / "r.xml")),
        *("--markdown", str(reports / "r.md")),
    )
    return {
        "done": done,
        "mutants": mutants,
        "junit": ET.parse(reports / "r.xml").getroot(),
        "markdown": (reports / "r.md").read_text(encoding="utf-8"),
        "unchanged": tracked_bytes(root) == before and git_status(root) == "",
        "folder": root / ".guardcheck",
    }


def junit_case(run: dict, mutant_id: str) -> ET.Element:
    return next(c for c in run["junit"].iter("testcase") if c.get("name") == mutant_id)


def test_the_run_fails_the_gate_and_leaves_the_project_byte_identical(run):
    assert run["done"].returncode == 1, run["done"].stdout + run["done"].stderr
    assert run["unchanged"]


def test_a_named_killer_that_passes_gives_weakened_naming_it(run, tmp_path):
    """Regression (issue 9 §3): with killed_by = [small, zero], the child stopped at
    test_add_small's failure, test_add_zero never ran, and the mutant was `caught`."""
    by_hand = hand_applied(tmp_path, "a + b", "a - b")
    assert (by_hand[SMALL], by_hand[ZERO]) == ("failed", "passed")
    mutant = run["mutants"]["add-minus"]
    assert mutant["guardcheck"]["verdict"] == "weakened"
    assert ZERO in mutant["guardcheck"]["reason"]
    ran = {t["id"]: t["outcome"] for t in mutant["guardcheck"]["tests"]}
    assert ran == {SMALL: "failed", ZERO: "passed"}  # both named killers ran
    assert mutant["status"] == "Survived"
    assert not mutant["guardcheck"]["passesGate"]
    assert junit_case(run, "add-minus").find("failure").get("type") == "weakened"
    assert "| `add-minus` | **weakened** |" in run["markdown"]
    assert re.search(r"^\[\s*\d+/5\] weakened\s+add-minus\s", run["done"].stdout, re.M)


def test_killed_by_any_is_caught_when_one_named_test_fails(run, tmp_path):
    by_hand = hand_applied(tmp_path, "a + b", "a + b * b")
    assert (by_hand[SMALL], by_hand[ZERO]) == ("failed", "passed")
    mutant = run["mutants"]["add-square"]
    assert mutant["guardcheck"]["verdict"] == "caught"
    assert mutant["guardcheck"]["expectedKillersAny"] == [ZERO, SMALL]
    assert junit_case(run, "add-square").find("failure") is None


def test_an_expected_survivor_is_a_known_gap_that_passes_and_is_listed_apart(run, tmp_path):
    by_hand = hand_applied(tmp_path, "x * FACTOR", "abs(x) * FACTOR")
    assert set(by_hand.values()) == {"passed"}  # the whole suite misses it
    mutant = run["mutants"]["scale-abs"]
    assert mutant["guardcheck"]["verdict"] == "known-gap"
    assert mutant["guardcheck"]["passesGate"]
    assert mutant["guardcheck"]["expectReason"] == "negative inputs are not tested yet"
    assert junit_case(run, "scale-abs").find("failure") is None
    gaps = run["markdown"].split("### Known gaps (1)")[1]
    assert "`scale-abs` | negative inputs are not tested yet" in gaps
    assert "Known gaps (1)" in run["done"].stdout
    gap_list = (run["folder"] / "known-gaps.txt").read_text(encoding="utf-8")
    assert gap_list.split() == ["scale-abs"]


def test_a_caught_expected_survivor_is_gap_closed_with_the_fix(run, tmp_path):
    by_hand = hand_applied(tmp_path, "x * FACTOR", "x * FACTOR + x")
    assert by_hand[SCALE] == "failed"
    mutant = run["mutants"]["scale-four"]
    assert mutant["guardcheck"]["verdict"] == "gap-closed"
    assert "remove `expect` from entry scale-four" in mutant["guardcheck"]["reason"]
    assert not mutant["guardcheck"]["passesGate"]
    assert junit_case(run, "scale-four").find("failure").get("type") == "gap-closed"


def test_weakened_holds_on_the_fresh_interpreter_path_too(run, tmp_path):
    """A module-level change runs in a fresh pytest: it too must run every named killer."""
    by_hand = hand_applied(tmp_path, "FACTOR = 3", "FACTOR = 0")
    assert (by_hand[SCALE], by_hand[SCALE_ZERO]) == ("failed", "passed")
    mutant = run["mutants"]["factor-zero"]
    assert mutant["guardcheck"]["executionPath"] == "subprocess"
    assert mutant["guardcheck"]["verdict"] == "weakened"
    ran = {t["id"]: t["outcome"] for t in mutant["guardcheck"]["tests"]}
    assert ran == {SCALE: "failed", SCALE_ZERO: "passed"}


HANGS = """\
import time

from pkg.calc import add, scale


def test_add_hangs_if_wrong():
    while add(1, 1) != 2:  # never ends under a wrong `add` (asleep: the timeout is the point)
        time.sleep(0.05)


def test_scale_hangs_if_wrong():
    while scale(1) != 3:  # never ends under a wrong `scale`
        time.sleep(0.05)
"""
HANG_ENTRIES = """\
[[mutation]]
id = "add-minus"
summary = "Subtracts instead of adding."
file = "pkg/calc.py"
scope = "add"
find = "a + b"
replace = "a - b"
killed_by = ["tests/test_calc.py::test_add_small", "tests/test_hangs.py::test_add_hangs_if_wrong"]

[[mutation]]
id = "factor-zero"
summary = "Scales everything to zero (module level: a fresh interpreter)."
file = "pkg/calc.py"
find = "FACTOR = 3"
replace = "FACTOR = 0"
killed_by = ["tests/test_calc.py::test_scale", "tests/test_hangs.py::test_scale_hangs_if_wrong"]
"""


@pytest.mark.parametrize("matrix", [False, True], ids=["bail", "matrix"])
def test_a_kill_before_a_later_timeout_is_kept_and_wins(tmp_path, matrix):
    """Regression (issue 9 §5): the child's results were discarded on a timeout, so a
    mutant its first named killer had failed was reported `timeout`."""
    root = copy_project(tmp_path / "project", "verdicts")
    write_files(root, {"tests/test_hangs.py": HANGS, "mutations/verdicts.toml": HANG_ENTRIES})
    commit(root)
    before = tracked_bytes(root)
    report = tmp_path / "r.json"
    budget = ("--timeout-factor", "1", "--timeout-constant", "2")
    done, mutants = guardcheck_run(root, report, *budget, *(["--matrix"] if matrix else []))
    assert done.returncode == 0, done.stdout + done.stderr
    for mutant_id, killer, hangs in [
        ("add-minus", SMALL, "tests/test_hangs.py::test_add_hangs_if_wrong"),
        ("factor-zero", SCALE, "tests/test_hangs.py::test_scale_hangs_if_wrong"),
    ]:
        fields = mutants[mutant_id]["guardcheck"]
        assert fields["verdict"] == "caught", fields["reason"]
        assert "then timeout after" in fields["reason"]
        ran = {t["id"]: (t["outcome"], t["message"]) for t in fields["tests"]}
        assert ran[killer][0] == "failed"
        assert ran[hangs] == ("error", "timeout")  # the test that hung, recorded as such
    assert tracked_bytes(root) == before
    assert git_status(root) == ""


def verdict_of(tmp_path: Path, files: dict[str, str], entry: str, *options: str) -> dict:
    """The report's fields for `entry` after a run (with `options`) on a committed copy
    of the fixture project with `files` written over it."""
    root = copy_project(tmp_path / "project", "verdicts")
    write_files(root, files)
    commit(root)
    _, mutants = guardcheck_run(root, tmp_path / "r.json", *options)
    return mutants[entry]["guardcheck"]


def swap_judged_in_context(tmp_path: Path, files: dict[str, str], *options: str) -> None:
    """`swap-operands` (equivalent) passes the whole suite by hand, and guardcheck calls
    it survived after running its selected tests' modules in baseline order."""
    by_hand = copy_project(tmp_path / "by-hand", "verdicts")
    write_files(by_hand, files)
    edit(by_hand / "pkg/core.py", "a + STATE.get('x', 0)", "STATE.get('x', 0) + a")
    assert set(suite_outcomes(by_hand).values()) == {"passed"}
    fields = verdict_of(tmp_path, files, "swap-operands", *options)
    assert fields["verdict"] == "survived", fields["reason"]
    assert "the selected tests' whole modules, in baseline order" in fields["reason"]


ORDER_DEPENDENT = {
    "pkg/core.py": (
        "STATE = {}\n\n\ndef prepare():\n    STATE['x'] = 1\n\n\n"
        "def compute(a):\n    return a + STATE.get('x', 0)\n"
    ),
    "tests/test_core.py": (
        # Not named `setup`: pytest 7 would call a module-level setup() before every test
        # (its nose support), which makes test_b_compute pass alone.
        "from pkg.core import compute, prepare\n\n\n"
        "def test_a_setup():\n    prepare()\n    assert True is not False\n\n\n"
        "def test_b_compute():\n    assert compute(1) == 2  # only after test_a_setup ran\n"
    ),
    "mutations/verdicts.toml": (
        '[[mutation]]\nid = "swap-operands"\nsummary = "Operands swapped (equivalent)."\n'
        'file = "pkg/core.py"\nscope = "compute"\nfind = "a + $Y"\nreplace = "$Y + a"\n'
    ),
}


def test_an_order_dependent_test_is_judged_with_its_module_in_order(tmp_path):
    """Regression (issue 8 §A1): test_b_compute fails alone, mutant or not (it needs
    test_a_setup first), and the equivalent mutant was reported caught by it. Issue 22
    case 9: rather than `error`, the mutant runs again with its module in baseline
    order, where the suite passes as it does by hand: the mutant survives."""
    by_hand = copy_project(tmp_path / "by-hand", "verdicts")
    write_files(by_hand, ORDER_DEPENDENT)
    edit(by_hand / "pkg/core.py", "a + STATE.get('x', 0)", "STATE.get('x', 0) + a")
    suite = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=by_hand,
        capture_output=True,
        check=False,
    )
    assert suite.returncode == 0  # the whole suite passes with the mutant applied
    root = copy_project(tmp_path / "project", "verdicts")
    write_files(root, ORDER_DEPENDENT)
    commit(root)
    before = tracked_bytes(root)
    done, mutants = guardcheck_run(root, tmp_path / "r.json")
    fields = mutants["swap-operands"]["guardcheck"]
    assert fields["verdict"] == "survived", fields["reason"]
    assert "the selected tests' whole modules, in baseline order" in fields["reason"]
    assert [t["id"] for t in fields["tests"]][:2] == [
        "tests/test_core.py::test_a_setup",
        "tests/test_core.py::test_b_compute",
    ]
    assert done.returncode == 1
    assert tracked_bytes(root) == before
    assert git_status(root) == ""


def test_a_kill_confirmed_by_an_earlier_mutants_control_run_is_judged_in_context(tmp_path):
    """Regression (structlog 24.4.0, `processors.py:535:23`): two mutants ran the same
    tests in the same order, and an order-dependent test failed for both. The first
    one's control run failed it too, so that mutant ran again with its module in
    baseline order. The second reused that control run's result and concluded `error`
    ("fails without the mutant too") without the run in order, where by hand, and
    now, both mutants survive."""
    root = copy_project(tmp_path / "project", "verdicts")
    write_files(root, ORDER_DEPENDENT)
    write_files(
        root,
        {
            "mutations/verdicts.toml": (
                '[[mutation]]\nid = "swap-operands"\nsummary = "Operands swapped."\n'
                'file = "pkg/core.py"\nscope = "compute"\nfind = "a + $Y"\nreplace = "$Y + a"\n\n'
                '[[mutation]]\nid = "times-one"\nsummary = "Times one."\n'
                'file = "pkg/core.py"\nscope = "compute"\nfind = "a + $Y"\n'
                'replace = "a + $Y * 1"\n'
            )
        },
    )
    commit(root)
    # One worker: the second mutant's run ends after the first one's control run did.
    _, mutants = guardcheck_run(root, tmp_path / "r.json", "-j", "1")
    for entry in ("swap-operands", "times-one"):
        fields = mutants[entry]["guardcheck"]
        assert fields["verdict"] == "survived", (entry, fields["reason"])
        assert "the selected tests' whole modules, in baseline order" in fields["reason"]


CRASHES_ALONE = {
    **ORDER_DEPENDENT,
    "tests/test_core.py": (
        "import os\n\nfrom pkg.core import STATE, compute, prepare\n\n\n"
        "def test_a_setup():\n    prepare()\n    assert True is not False\n\n\n"
        "def test_b_compute():\n"
        "    if 'x' not in STATE:\n        os.abort()  # only after test_a_setup ran it does not\n"
        "    assert compute(1) == 2\n"
    ),
}


def test_a_crash_that_happens_without_the_mutant_too_is_judged_in_context(tmp_path):
    """Regression: a crash counted as a kill with no control run. test_b_compute aborts
    the process when it runs alone, mutant or not, so the equivalent mutant, whose
    selection is that test alone, was `caught` ("crash: SIGABRT"). By hand, and now
    (the control run crashes too, so the mutant runs again with its module in
    baseline order), the mutant survives."""
    swap_judged_in_context(tmp_path, CRASHES_ALONE)


HANGS_ALONE = {
    **ORDER_DEPENDENT,
    "tests/test_core.py": (
        "import time\n\nfrom pkg.core import STATE, compute, prepare\n\n\n"
        "def test_a_setup():\n    prepare()\n    assert True is not False\n\n\n"
        "def test_b_compute():\n"
        "    while 'x' not in STATE:  # only after test_a_setup ran it does not hang\n"
        "        time.sleep(0.05)\n"
        "    assert compute(1) == 2\n"
    ),
}


def test_a_hang_that_happens_without_the_mutant_too_is_judged_in_context(tmp_path):
    """Regression: a forked run's timeout counted as a kill with no control run.
    test_b_compute hangs when it runs alone, mutant or not, so the equivalent mutant,
    whose selection is that test alone, was `timeout` (a pass of the gate). By hand,
    and now (the control run hangs too, so the mutant runs again with its module in
    baseline order), the mutant survives."""
    budget = ("--timeout-factor", "1", "--timeout-constant", "1")
    swap_judged_in_context(tmp_path, HANGS_ALONE, *budget)


SKIPS_BY_UNITTEST = {
    "pkg/optional.py": (
        "import unittest\n\n\ndef require(available):\n    if not available:\n"
        "        raise unittest.SkipTest('the optional backend is missing')\n    return True\n"
    ),
    "tests/test_optional.py": (
        "from pkg.optional import require\n\n\n"
        "def test_backend_missing_skips():\n    require(False)\n\n\n"
        "def test_backend_present():\n    assert require(True)\n"
    ),
    "mutations/verdicts.toml": (
        '[[mutation]]\nid = "gate-flipped"\nsummary = "Skips when the backend is there."\n'
        'file = "pkg/optional.py"\nfind = "if not available:"\nreplace = "if available:"\n'
    ),
}


@pytest.mark.parametrize("skip_in_baseline", [True, False], ids=["baseline", "mutant"])
def test_a_unittest_skip_raised_by_a_plain_test_is_a_skip(tmp_path, skip_in_baseline):
    """Regression (freezegun 1.5.1, `test_maya_datetimes`): a plain test function that
    raises `unittest.SkipTest` is skipped under pytest, whose unittest plugin turns it
    into a skip for any test; guardcheck's reports called it failed. So a baseline with
    such a test failed (exit 3), and a mutant that makes a test raise it was `caught`.
    By hand the mutant below makes test_backend_present skip: it survives."""
    files = dict(SKIPS_BY_UNITTEST)
    if not skip_in_baseline:
        files["tests/test_optional.py"] = (
            "from pkg.optional import require\n\n\n"
            "def test_backend_present():\n    assert require(True)\n"
        )
    by_hand = copy_project(tmp_path / "by-hand", "verdicts")
    write_files(by_hand, files)
    edit(by_hand / "pkg/optional.py", "if not available:", "if available:")
    assert set(suite_outcomes(by_hand).values()) == {"passed"}  # skips included
    fields = verdict_of(tmp_path, files, "gate-flipped")
    assert fields["verdict"] == "survived", fields["reason"]
    ran = {t["id"]: t["outcome"] for t in fields["tests"]}
    assert ran["tests/test_optional.py::test_backend_present"] == "skipped"


LEFT_BEHIND = {
    "pkg/registry.py": (
        "NAMES = {}\n\n\ndef register(name):\n    NAMES[name] = name.upper()\n    return True\n"
    ),
    "tests/test_registry.py": (
        "from pkg.registry import NAMES, register\n\n\n"
        "def test_a_register():\n    assert register('x')\n\n\n"
        "def test_b_lookup():\n    assert NAMES.get('x') == 'X'  # never calls register()\n"
    ),
    "mutations/verdicts.toml": (
        '[[mutation]]\nid = "lower-case"\nsummary = "Registered in lower case."\n'
        'file = "pkg/registry.py"\nfind = "name.upper()"\nreplace = "name.lower()"\n'
    ),
}


def test_a_later_test_that_fails_by_what_the_mutant_left_behind_catches_it(tmp_path):
    """Regression (six 1.16.0, `six.py:213:19`): a mutant's only covering test passes,
    but it leaves state that a later test of the same module reads without running the
    mutated line. The run in the suite's order stopped at the last selected test, so the
    mutant `survived`; by hand, and now (the selected tests' modules run whole), the
    later test fails and the mutant is caught."""
    by_hand = copy_project(tmp_path / "by-hand", "verdicts")
    write_files(by_hand, LEFT_BEHIND)
    edit(by_hand / "pkg/registry.py", "name.upper()", "name.lower()")
    assert suite_outcomes(by_hand)["tests/test_registry.py::test_b_lookup"] == "failed"
    fields = verdict_of(tmp_path, LEFT_BEHIND, "lower-case")
    assert fields["verdict"] == "caught", fields["reason"]
    assert fields["reason"].startswith("tests/test_registry.py::test_b_lookup")


CONSTANTS = {
    "pkg/levels.py": "LEVEL = 1\n\n\nclass Limits:\n    HIGH = 10\n",
    "tests/test_levels.py": (
        "from pkg import levels\n\n\n"
        "def test_level_is_one():\n    assert levels.LEVEL == 1\n\n\n"
        "def test_high_limit():\n    assert levels.Limits.HIGH == 10\n"
    ),
    "mutations/verdicts.toml": (
        '[[mutation]]\nid = "level-two"\nsummary = "The level constant changes."\n'
        'file = "pkg/levels.py"\nfind = "LEVEL = 1"\nreplace = "LEVEL = 2"\n'
        'killed_by = ["tests/test_levels.py::test_level_is_one"]\n\n'
        '[[mutation]]\nid = "high-limit"\nsummary = "A class attribute changes."\n'
        'file = "pkg/levels.py"\nscope = "Limits"\nfind = "HIGH = 10"\nreplace = "HIGH = 11"\n'
    ),
}


def test_a_change_to_a_constant_or_class_attribute_reaches_the_tests_reading_it(tmp_path):
    """Regression (issue 8 §A3): reading a constant executes no line, so a
    constants-only module gave no-coverage, even with its reader named in killed_by."""
    by_hand = copy_project(tmp_path / "by-hand", "verdicts")
    write_files(by_hand, CONSTANTS)
    edit(by_hand / "pkg/levels.py", "LEVEL = 1", "LEVEL = 2")
    edit(by_hand / "pkg/levels.py", "HIGH = 10", "HIGH = 11")
    suite = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_levels.py"],
        cwd=by_hand,
        capture_output=True,
        text=True,
        check=False,
    )
    assert "2 failed" in suite.stdout  # each mutant, applied by hand, fails its reader
    root = copy_project(tmp_path / "project", "verdicts")
    write_files(root, CONSTANTS)
    commit(root)
    before = tracked_bytes(root)
    done, mutants = guardcheck_run(root, tmp_path / "r.json")
    assert done.returncode == 0, done.stdout + done.stderr
    level, high = mutants["level-two"]["guardcheck"], mutants["high-limit"]["guardcheck"]
    assert level["verdict"] == "caught", level["reason"]
    assert level["reason"].startswith("tests/test_levels.py::test_level_is_one")
    assert high["verdict"] == "caught", high["reason"]
    assert high["reason"].startswith("tests/test_levels.py::test_high_limit")
    assert tracked_bytes(root) == before
    assert git_status(root) == ""
