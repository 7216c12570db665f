"""Issue 22: the tests see the project exactly as plain pytest does, on projects set up
the usual way (editable installs of every common backend, src/ and flat layouts).

Each case compares guardcheck's verdict with the same entry applied by hand
(`guardcheck apply`) and the whole suite run with plain pytest in the same venv
(tests/support/editable.py). The fixture (tests/fixtures/projects/fidelity-src)
has `filterwarnings = ["error"]`, doctests collected from the package, package
data read through `importlib.resources` and `pkgutil`, and a CLI tested through
`python -m` in a subprocess and through `runpy`.
"""

from __future__ import annotations

import filecmp
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.editable import BACKENDS, EditableProject, editable_project, hand_verdict
from support.projects import (
    RECOMPILING_DECORATOR,
    commit,
    copy_project,
    edit,
    git,
    git_status,
    write_files,
)
from support.verdicts import guardcheck, guardcheck_run

pytestmark = pytest.mark.slow

ENTRIES = ("unused-constant", "no-total-ordering", "clamp-off-by-one", "cli-no-clamp")
CAUGHT = {"caught", "timeout", "gap-closed"}  # gap-closed: caught, though expected not to be


@pytest.fixture(scope="module")
def by_hand(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Each entry's verdict applied by hand; the code is the same whatever the backend."""
    project = editable_project(tmp_path_factory.mktemp("by-hand"), "setuptools-src")
    assert project.suite_passes()
    return {entry: hand_verdict(project, entry) for entry in ENTRIES}


def _verdicts(project: EditableProject, report: Path) -> dict[str, str]:
    done = project.guardcheck("run", "--no-cache", "--json", str(report))
    assert report.exists(), done.stdout + done.stderr
    data = json.loads(report.read_text(encoding="utf-8"))
    mutants = [m for f in data["files"].values() for m in f["mutants"]]
    return {
        m["guardcheck"]["id"]: "caught" if m["guardcheck"]["verdict"] in CAUGHT else "not caught"
        for m in mutants
    }


@pytest.mark.parametrize("backend", sorted(BACKENDS))
def test_every_entry_gets_the_hand_applied_verdict(backend, tmp_path, by_hand):
    """Cases 1-5: with an editable install every mutant was `no-coverage` (the tests
    imported the user's tree), `filterwarnings = error` failed the baseline on
    guardcheck's own unclosed files, package data and `runpy` failed under the served
    module, and a doctest-collection crash was counted as a kill."""
    project = editable_project(tmp_path, backend)
    assert _verdicts(project, tmp_path / "report.json") == by_hand


AT_START = {
    "tests/test_unused.py": (
        "import fidlib\n\n\ndef test_unused_is_one():\n    assert fidlib.UNUSED == 1\n"
    ),
    "src/fidlib/extra.py": "def double(x: int) -> int:\n    return 2 * x\n",
    "tests/test_extra.py": (
        "import subprocess\nimport sys\n\n\ndef test_double_in_a_subprocess():\n"
        '    code = "import fidlib.extra as e; print(e.double(2))"\n'
        "    done = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True)\n"
        '    assert done.stdout.strip() == "4"\n'
    ),
    "mutations/extra.toml": (
        '[[mutation]]\nid = "triple"\nsummary = "Triples: only a subprocess runs it."\n'
        'file = "src/fidlib/extra.py"\nscope = "double"\nfind = "2 * x"\nreplace = "3 * x"\n'
    ),
}


def test_a_module_imported_at_interpreter_start_gets_the_hand_applied_verdict(tmp_path):
    """A project module imported before any pytest plugin loads (here by a .pth file; by
    pytest itself when the project is one of its dependencies, as pluggy 1.7.0 in the
    corpus) held the original in every fresh run, forked from the warm zygote that had
    imported it: its module-level mutants never ran, an `error`, or `survived` when a
    test that read the file ran again with it on disk. And a test's subprocess imports
    it before guardcheck's bootstrap can serve a forked mutant's code. Both now run
    with the mutant written into the copy, in a new interpreter, as by hand."""
    project = editable_project(tmp_path, "setuptools-src")
    commit(write_files(project.root, AT_START))
    purelib = project.run("-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])")
    Path(purelib.stdout.strip(), "fidlib_at_start.pth").write_text("import fidlib.extra\n")
    hand = {entry: hand_verdict(project, entry) for entry in (*ENTRIES, "triple")}
    # The cases that need the mutant imported at start: in-process, in a subprocess.
    assert hand["unused-constant"] == hand["triple"] == "caught"
    assert _verdicts(project, tmp_path / "report.json") == hand


def _plain_suite_exit(root: Path) -> int:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=root,
        capture_output=True,
        check=False,
    )
    return done.returncode


def _by_hand_exit(root: Path, relative: str, old: str, new: str) -> int:
    """Plain pytest's exit status with `old` -> `new` written into the file by hand, then
    undone: the oracle each verdict here is checked against."""
    edit(root / relative, old, new)
    try:
        return _plain_suite_exit(root)
    finally:
        edit(root / relative, new, old)


LEAVE = {
    "pyproject.toml": (
        '[tool.guardcheck]\ncatalogue = ["mutations"]\ntests = ["tests"]\n'
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'
    ),
    "worker/__init__.py": "",
    "worker/leave.py": (
        "import os\n\n\ndef leave(status: int) -> str:\n"
        "    if status:\n        os._exit(status)\n    return 'stayed'\n"
    ),
    "tests/test_leave.py": (
        "from worker.leave import leave\n\n\n"
        "def test_leave_zero_stays():\n    assert leave(0) == 'stayed'\n\n\n"
        "def test_after():\n    assert True\n"
    ),
    "mutations/leave.toml": (
        '[[mutation]]\nid = "exit-zero"\nsummary = "Leaves the process on status 0."\n'
        'file = "worker/leave.py"\nscope = "leave"\nfind = "if status:"\n'
        'replace = "if status == 0:"\n'
    ),
}


def test_a_mutant_that_exits_the_test_process_with_status_0_is_an_error(tmp_path):
    """Case 10: a mutant making the tests call `os._exit(0)` was "caught by" that test,
    but plain pytest exits 0 with it (CI green): nothing caught it. Nor did it survive:
    the verdict is `error`, naming the test."""
    root = commit(write_files(tmp_path / "project", LEAVE))
    applied = subprocess.run(
        [sys.executable, "-m", "guardcheck", "apply", "exit-zero"], cwd=root, check=True
    )
    assert applied.returncode == 0
    assert _plain_suite_exit(root) == 0  # by hand: the suite "passes"
    subprocess.run(
        [sys.executable, "-m", "guardcheck", "apply", "--revert", "exit-zero"], cwd=root, check=True
    )
    _, mutants = guardcheck_run(root, tmp_path / "report.json", "--no-cache")
    verdict = mutants["exit-zero"]["guardcheck"]
    assert verdict["verdict"] == "error"
    assert verdict["reason"].startswith(
        "the test process exited with status 0 during tests/test_leave.py::test_leave_zero_stays"
    )


def _broken_first_file(marker: Path) -> dict[str, str]:
    """A module-level mutant that breaks the collection of the first test file; the
    second file, if pytest goes on to collect it under the mutant, writes `marker`."""
    return {
        "pyproject.toml": LEAVE["pyproject.toml"].replace("tests =", 'source = ["pkg"]\ntests ='),
        "pkg/__init__.py": "",
        "pkg/limits.py": "LIMIT = 3\n",
        "tests/test_a_first.py": (
            "from pkg.limits import LIMIT\n\n"
            "assert LIMIT == 3, 'collected under a changed LIMIT'\n\n\n"
            "def test_limit():\n    assert LIMIT == 3\n"
        ),
        "tests/test_b_later.py": (
            f"from pathlib import Path\n\nfrom pkg.limits import LIMIT\n\nif LIMIT != 3:\n"
            f"    Path({str(marker)!r}).write_text('collected')\n\n\n"
            "def test_positive():\n    assert LIMIT > 0\n"
        ),
        "mutations/limits.toml": (
            '[[mutation]]\nid = "limit-four"\nsummary = "The limit is 4."\n'
            'file = "pkg/limits.py"\nfind = "LIMIT = 3"\nreplace = "LIMIT = 4"\n'
        ),
    }


def test_a_fresh_run_stops_collecting_at_the_first_file_the_mutant_breaks(tmp_path):
    """A mutant that breaks a test file's collection makes the suite red by hand, whatever
    the later files hold: the fresh run ends there, caught, and collects none of them.
    Guards the cost found on jinja2 (its import_string mutants: ~0.3 s each collecting
    every later test file for nothing)."""
    marker = tmp_path / "collected.txt"
    root = commit(write_files(tmp_path / "project", _broken_first_file(marker)))
    assert _by_hand_exit(root, "pkg/limits.py", "LIMIT = 3", "LIMIT = 4") != 0
    assert marker.exists()  # by hand pytest collects the later file too: the probe works
    marker.unlink()
    _, mutants = guardcheck_run(root, tmp_path / "report.json", "--no-cache")
    verdict = mutants["limit-four"]["guardcheck"]
    assert verdict["verdict"] == "caught"
    assert verdict["reason"].startswith("crash: collection aborted: tests/test_a_first.py")
    assert not marker.exists()


HOOK = {
    "pyproject.toml": LEAVE["pyproject.toml"].replace("tests =", 'source = ["pkg"]\ntests ='),
    "pkg/__init__.py": "",
    "pkg/report.py": (
        'SUFFIX = "!"\n\n\ndef label(outcome: str) -> str:\n    return outcome + SUFFIX\n'
    ),
    "conftest.py": (
        "import pytest\n\nfrom pkg.report import label\n\n\n"
        "@pytest.hookimpl(wrapper=True)\ndef pytest_runtest_makereport(item, call):\n"
        "    report = yield\n"
        '    report.user_properties.append(("label", label(report.outcome)))\n'
        "    return report\n"
    ),
    "tests/test_it.py": "def test_ok():\n    assert True\n",
    "mutations/hook.toml": (
        '[[mutation]]\nid = "suffix-none"\nsummary = "A module-level constant breaks a hook."\n'
        'file = "pkg/report.py"\nfind = \'SUFFIX = "!"\'\nreplace = "SUFFIX = None"\n\n'
        '[[mutation]]\nid = "label-raises"\nsummary = "A function breaks a hook."\n'
        'file = "pkg/report.py"\nscope = "label"\nfind = "outcome + SUFFIX"\n'
        'replace = "None + SUFFIX"\n'
    ),
}


def test_a_mutant_that_breaks_pytests_own_hooks_is_caught_as_by_hand(tmp_path):
    """A mutant of code that pytest's own hooks call (a conftest hook here; pluggy itself
    in the corpus) ends plain pytest with INTERNALERROR, exit status 3: CI goes red. A
    fresh run reported no test at all, so the module-level mutant was `error` ("never
    ran: not collected"); it is now a crash, `caught`, on both paths."""
    root = commit(write_files(tmp_path / "project", HOOK))
    assert _plain_suite_exit(root) == 0
    assert _by_hand_exit(root, "pkg/report.py", 'SUFFIX = "!"', "SUFFIX = None") == 3
    assert _by_hand_exit(root, "pkg/report.py", "outcome + SUFFIX", "None + SUFFIX") == 3
    _, mutants = guardcheck_run(root, tmp_path / "report.json", "--no-cache")
    fresh, forked = (mutants[m]["guardcheck"] for m in ("suffix-none", "label-raises"))
    assert (fresh["executionPath"], forked["executionPath"]) == ("subprocess", "fork")
    assert fresh["verdict"] == forked["verdict"] == "caught"
    assert fresh["reason"].startswith("crash: pytest INTERNALERROR: TypeError")


PLUGIN = {
    "pyproject.toml": (
        '[tool.guardcheck]\ncatalogue = ["mutations"]\nsource = ["pkg"]\ntests = ["tests"]\n'
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\naddopts = "-p pkg.plugin"\n'
    ),
    "pkg/__init__.py": "",
    "pkg/plugin.py": (
        "import pytest\n\n\ndef check_positive(x: int) -> int:\n    assert x > 0\n"
        "    return x\n\n\n@pytest.fixture\ndef positive():\n    return check_positive\n"
    ),
    "tests/test_plugin.py": (
        "import pytest\n\n\ndef test_positive(positive):\n    assert positive(2) == 2\n\n\n"
        "def test_message(positive):\n    with pytest.raises(AssertionError) as caught:\n"
        "        positive(-1)\n"
        '    assert "assert -1 > 0" in str(caught.value)  # pytest rewrote the plugin\n'
    ),
    "mutations/plugin.toml": "".join(
        f'[[mutation]]\nid = "{name}"\nsummary = "{name}"\nfile = "pkg/plugin.py"\n'
        f'scope = "check_positive"\nfind = "return x"\nreplace = "return {new}"\n\n'
        for name, new in (("plus-one", "x + 1"), ("times-one", "x * 1"))
    ),
}


def test_a_mutant_of_a_module_pytest_rewrites_runs_rewritten_as_by_hand(tmp_path):
    """A pytest plugin (`-p`, an entry point) or a module given to register_assert_rewrite
    is imported through pytest's assertion rewriting, so its live code was not the
    compiled text and no code swap could match it: `error`, "could not activate". And
    a served module would skip the rewrite, so a test of the plugin's assertion message
    fails with an equivalent mutant. The mutant now runs with its file on disk, where
    pytest rewrites it: `x * 1` survives, `x + 1` is caught, as by hand (pytest-mock
    3.14.0 in the corpus)."""
    root = commit(write_files(tmp_path / "project", PLUGIN))
    assert _plain_suite_exit(root) == 0
    by_hand = {
        name: "caught"
        if _by_hand_exit(root, "pkg/plugin.py", "return x", f"return {new}")
        else "not caught"
        for name, new in (("plus-one", "x + 1"), ("times-one", "x * 1"))
    }
    assert by_hand == {"plus-one": "caught", "times-one": "not caught"}
    _, mutants = guardcheck_run(root, tmp_path / "report.json", "--no-cache")
    verdicts = {name: mutants[name]["guardcheck"]["verdict"] for name in by_hand}
    assert verdicts == {"plus-one": "caught", "times-one": "survived"}


RECOMPILED = {
    "pyproject.toml": PLUGIN["pyproject.toml"].replace('addopts = "-p pkg.plugin"\n', ""),
    "pkg/__init__.py": "",
    "pkg/recompile.py": RECOMPILING_DECORATOR,
    "pkg/words.py": (
        "from pkg.recompile import recompiled\n\n\n@recompiled\ndef ordinal(n):\n"
        "    twice = n * 2\n    return f'{n}th'\n"
    ),
    "tests/test_words.py": (
        "import pytest\n\nfrom pkg.words import ordinal\n\n\ndef test_ordinal():\n"
        "    assert ordinal(4) == '4th'\n\n\ndef test_checked():\n"
        "    with pytest.raises(TypeError):\n        ordinal('4')\n"
    ),
    "mutations/words.toml": (
        '[[mutation]]\nid = "no-suffix"\nsummary = "Drops the suffix."\nfile = "pkg/words.py"\n'
        'scope = "ordinal"\nfind = "return f\'{n}th\'"\nreplace = "return f\'{n}\'"\n\n'
        '[[mutation]]\nid = "thrice"\nsummary = "An unused value changes."\n'
        'file = "pkg/words.py"\nscope = "ordinal"\nfind = "twice = n * 2"\n'
        'replace = "twice = n * 3"\n'
    ),
}


def test_a_function_a_decorator_compiled_again_from_the_text_runs_the_mutant_on_disk(
    tmp_path,
):
    """A function that a decorator compiles again from its module's text (typeguard's
    @typechecked; inflect 7.4.0 in the corpus) has live code no swap can match: the
    verdict was `error`, "could not activate". The mutant now runs written on disk,
    where the decorator compiles it: one caught, one survives, as by hand."""
    root = commit(write_files(tmp_path / "project", RECOMPILED))
    assert _plain_suite_exit(root) == 0
    by_hand = {
        "no-suffix": _by_hand_exit(root, "pkg/words.py", "return f'{n}th'", "return f'{n}'"),
        "thrice": _by_hand_exit(root, "pkg/words.py", "twice = n * 2", "twice = n * 3"),
    }
    assert {name: status != 0 for name, status in by_hand.items()} == {
        "no-suffix": True,
        "thrice": False,
    }
    _, mutants = guardcheck_run(root, tmp_path / "report.json", "--no-cache")
    verdicts = {name: mutants[name]["guardcheck"]["verdict"] for name in by_hand}
    assert verdicts == {"no-suffix": "caught", "thrice": "survived"}
    assert (
        "compiled again from the module's text"
        in (mutants["thrice"]["guardcheck"]["executionPathReason"])
    )


def test_xdist_in_addopts_is_turned_off_and_gives_the_same_verdicts(tmp_path):
    """Case 12: `addopts = "-n 2"` made `guardcheck run` say "no tests collected";
    guardcheck now gives its pytest runs `-n 0`, says so once, and the verdicts equal
    those of the same project without `-n`."""
    plain = copy_project(tmp_path / "plain", "verdicts", git=True)
    xdist = copy_project(tmp_path / "xdist", "verdicts")
    edit(
        xdist / "pyproject.toml", 'testpaths = ["tests"]', 'testpaths = ["tests"]\naddopts = "-n 2"'
    )
    commit(xdist)
    assert _plain_suite_exit(xdist) == _plain_suite_exit(plain) == 0
    _, without = guardcheck_run(plain, tmp_path / "plain.json", "--no-cache")
    done, with_n = guardcheck_run(xdist, tmp_path / "xdist.json", "--no-cache")
    assert done.stderr.count("pytest-xdist's -n is turned off") == 1
    assert {k: m["guardcheck"]["verdict"] for k, m in with_n.items()} == {
        k: m["guardcheck"]["verdict"] for k, m in without.items()
    }


GIT_CLEAN = {
    "pyproject.toml": (
        '[tool.guardcheck]\ncatalogue = ["mutations"]\ntests = ["tests"]\nsource = ["app"]\n'
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'
    ),
    "app/__init__.py": "",
    "app/core.py": "def double(x: int) -> int:\n    return x * 2\n",
    "data/real.txt": "original\n",
    "tests/test_core.py": (
        "import subprocess\nfrom pathlib import Path\n\nfrom app.core import double\n\n\n"
        "def test_double():\n    assert double(2) == 4\n\n\n"
        "def test_checkout_is_clean():\n"
        "    out = subprocess.run(['git', 'status', '--porcelain'], capture_output=True,\n"
        "                         text=True, check=True).stdout\n"
        "    assert out == ''\n\n\n"
        "def test_writes_through_the_link():\n"
        "    Path('data/link.txt').write_text('written by a test\\n')\n"
        "    assert double(3) == 6\n"
    ),
    "mutations/core.toml": (
        '[[mutation]]\nid = "add"\nsummary = "Adds instead."\nfile = "app/core.py"\n'
        'scope = "double"\nfind = "x * 2"\nreplace = "x + 2"\n'
    ),
}


def test_the_working_directory_is_a_real_checkout(tmp_path):
    """Case 6: the working directory was a folder of symlinks: `git status --porcelain`
    in a test showed type changes (the baseline failed, exit 3, where plain pytest
    passes), and an absolute symlink pointing back into the project was copied as-is,
    so a test writing through it changed the user's file."""
    root = write_files(tmp_path / "project", GIT_CLEAN)
    (root / "data" / "link.txt").symlink_to(root / "data" / "real.txt")
    (root / ".gitignore").write_text(".guardcheck/\n")
    commit(root)
    done, mutants = guardcheck_run(root, tmp_path / "report.json", "--no-cache")
    assert done.returncode == 0, done.stdout + done.stderr
    assert mutants["add"]["guardcheck"]["verdict"] == "caught"
    assert (root / "data" / "real.txt").read_text() == "original\n"
    assert git_status(root) == ""


BOUNDARY = {
    "pyproject.toml": (
        '[tool.guardcheck]\ncatalogue = ["mutations"]\ntests = ["tests"]\nsource = ["app"]\n'
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'
    ),
    "app/__init__.py": "",
    "app/limits.py": "def within(x: int) -> bool:\n    return x <= 1000\n",
    # 1000 is not a literal of the test: Hypothesis finds the boundary from app's source.
    "tests/test_limits.py": (
        "from hypothesis import given, settings\nfrom hypothesis import strategies as st\n\n"
        "from app.limits import within\n\nLIMIT = 10**3\n\n\n"
        "@settings(max_examples=300, database=None)\n@given(st.integers())\n"
        "def test_within_matches_the_limit(x):\n    assert within(x) == (x <= LIMIT)\n"
    ),
    "mutations/limits.toml": (
        '[[mutation]]\nid = "limit-plus-one"\nsummary = "Off by one."\n'
        'file = "app/limits.py"\nscope = "within"\nfind = "x <= 1000"\nreplace = "x <= 1001"\n'
    ),
}


def test_hypothesis_draws_constants_from_the_mutated_source(tmp_path):
    """Case 8: Hypothesis takes example values from literals in the project's files on
    disk, which held the original: a boundary mutant plain pytest catches every time
    (1001 is then a literal of app/limits.py) survived under guardcheck in 2 of 3 runs.
    Hypothesis now reads the mutated text, and not guardcheck's own modules either."""
    root = commit(write_files(tmp_path / "project", BOUNDARY))
    assert _by_hand_exit(root, "app/limits.py", "x <= 1000", "x <= 1001") == 1  # caught
    for run in range(3):
        _, mutants = guardcheck_run(root, tmp_path / f"report-{run}.json", "--no-cache")
        assert mutants["limit-plus-one"]["guardcheck"]["verdict"] == "caught"


def test_a_fresh_run_gives_hypothesis_the_mutated_constants_before_it_collects(tmp_path):
    """Case 8 in a fresh interpreter: Hypothesis' plugin reads the project's constants
    from disk while pytest collects, before any test. That read of the original sent every
    fresh survivor of a project with property tests to a second run with its file on disk
    (iso8601: 9.6 s of a 14 s sweep for one mutant). Module-level limits are fresh
    mutants; each gets the hand-applied verdict in one run, in memory."""
    files = {
        **BOUNDARY,
        "app/limits.py": "LIMIT = 1000\n\n\ndef within(x: int) -> bool:\n    return x <= LIMIT\n",
        "mutations/limits.toml": (
            '[[mutation]]\nid = "limit-plus-one"\nsummary = "Off by one."\n'
            'file = "app/limits.py"\nfind = "LIMIT = 1000"\nreplace = "LIMIT = 1001"\n\n'
            '[[mutation]]\nid = "limit-as-float"\nsummary = "The same limit."\n'
            'file = "app/limits.py"\nfind = "LIMIT = 1000"\nreplace = "LIMIT = 1000.0"\n'
        ),
    }
    root = commit(write_files(tmp_path / "project", files))
    assert _by_hand_exit(root, "app/limits.py", "LIMIT = 1000", "LIMIT = 1001") == 1
    assert _by_hand_exit(root, "app/limits.py", "LIMIT = 1000", "LIMIT = 1000.0") == 0
    _, mutants = guardcheck_run(root, tmp_path / "report.json", "--no-cache")
    judged = {entry: mutants[entry]["guardcheck"] for entry in ("limit-plus-one", "limit-as-float")}
    assert {entry: m["verdict"] for entry, m in judged.items()} == {
        "limit-plus-one": "caught",
        "limit-as-float": "survived",
    }
    for m in judged.values():
        assert m["executionPath"] == "subprocess"
        assert "written into the private copy" not in m["executionPathReason"]


ORDER = {
    "pyproject.toml": (
        '[tool.guardcheck]\ncatalogue = ["mutations"]\ntests = ["tests"]\nsource = ["pkg"]\n'
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'
    ),
    "pkg/__init__.py": "",
    "pkg/mode.py": (
        "STRICT = False\n\n\ndef enable() -> None:\n    global STRICT\n    STRICT = True\n\n\n"
        "def check(value: int) -> bool:\n    if STRICT:\n        return value > 0\n"
        "    return True\n\n\n"
        "def allow(value: int) -> bool:\n    if STRICT:\n        return value < 10\n"
        "    return True\n"
    ),
    # Each second test relies on the first of its module: alone, STRICT is off.
    "tests/test_check.py": (
        "from pkg import mode\n\n\ndef test_a_enable():\n    mode.enable()\n"
        "    assert mode.STRICT\n\n\ndef test_b_check_rejects_zero():\n"
        "    assert mode.check(0) is False\n"
    ),
    "tests/test_allow.py": (
        "from pkg import mode\n\n\ndef test_a_enable():\n    mode.enable()\n"
        "    assert mode.STRICT\n\n\ndef test_b_allow_matches_the_mode():\n"
        "    assert mode.allow(10) == (not mode.STRICT)\n"
    ),
    "mutations/mode.toml": (
        '[[mutation]]\nid = "check-ge"\nsummary = "Zero passes."\nfile = "pkg/mode.py"\n'
        'scope = "check"\nfind = "value > 0"\nreplace = "value >= 0"\n\n'
        '[[mutation]]\nid = "allow-le"\nsummary = "Ten passes."\nfile = "pkg/mode.py"\n'
        'scope = "allow"\nfind = "value < 10"\nreplace = "value <= 10"\n'
    ),
}


@pytest.mark.parametrize(
    ("entry", "old", "new"),
    [
        ("check-ge", "value > 0", "value >= 0"),
        ("allow-le", "value < 10", "value <= 10"),
    ],
)
def test_tests_that_need_an_earlier_test_of_their_module_judge_in_context(
    tmp_path, entry, old, new
):
    """Case 9: the mutant ran only the test that executes its line, alone, where the
    flag an earlier test of its module sets was off: it failed without the mutant too
    (`error`) or passed without reaching the branch (`survived`), while the whole suite
    in its own order catches it. Such runs are repeated with the modules in order."""
    root = commit(write_files(tmp_path / "project", ORDER))
    assert _by_hand_exit(root, "pkg/mode.py", old, new) == 1  # by hand: caught
    _, mutants = guardcheck_run(root, tmp_path / "report.json", "--no-cache", "--only", entry)
    verdict = mutants[entry]["guardcheck"]
    assert verdict["verdict"] == "caught", verdict["reason"]


def _caught_as_by_hand(
    tmp_path: Path, files: dict[str, str], relative: str, old: str, new: str, entry: str
) -> dict:
    """The entry's guardcheck fields, once both by hand and under guardcheck it is caught."""
    root = commit(write_files(tmp_path / "project", files))
    assert _by_hand_exit(root, relative, old, new) == 1
    _, mutants = guardcheck_run(root, tmp_path / "report.json", "--no-cache")
    verdict = mutants[entry]["guardcheck"]
    assert verdict["verdict"] == "caught", verdict["reason"]
    return verdict


LOCALE = {
    "pyproject.toml": (
        '[tool.guardcheck]\ncatalogue = ["mutations"]\ntests = ["tests"]\nsource = ["pkg"]\n'
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'
    ),
    "pkg/__init__.py": "",
    "pkg/locale.py": (
        "import threading\n\n_CURRENT = threading.local()\n\n\n"
        "def activate(name: str) -> None:\n    _CURRENT.name = name\n\n\n"
        "def current() -> str | None:\n    return getattr(_CURRENT, 'name', None)\n"
    ),
    # In the suite's order the default is read before anything activates a locale; the
    # slow first test makes fastest-first run the other one first.
    "tests/test_a_default.py": (
        "import time\n\nfrom pkg import locale\n\n\ndef test_default_reads_fine():\n"
        "    time.sleep(0.2)\n    assert locale.current() in (None, 'fr')\n"
    ),
    "tests/test_b_activate.py": (
        "from pkg import locale\n\n\ndef test_activate():\n    locale.activate('fr')\n"
        "    assert locale.current() == 'fr'\n"
    ),
    "mutations/locale.toml": (
        '[[mutation]]\nid = "no-default"\nsummary = "An unset locale raises."\n'
        'file = "pkg/locale.py"\nscope = "current"\n'
        "find = \"getattr(_CURRENT, 'name', None)\"\nreplace = \"getattr(_CURRENT, 'name')\"\n"
    ),
}


def test_a_survivor_counts_only_once_its_tests_ran_in_the_suites_order(tmp_path):
    """Regression (issue 22, found by the corpus oracle on humanize's locale): the tests
    ran fastest first, so the one that activates a locale ran before the one reading the
    default, and the mutant survived with its statement reached; by hand, in the suite's
    order, the default is read first and the mutant fails it."""
    verdict = _caught_as_by_hand(
        tmp_path, LOCALE, "pkg/locale.py", "'name', None)", "'name')", "no-default"
    )
    assert verdict["reason"].startswith("tests/test_a_default.py::test_default_reads_fine: ")


PROBED = {
    "pyproject.toml": LOCALE["pyproject.toml"],
    "pkg/__init__.py": "",
    "pkg/scale.py": "def scale(x: int) -> int:\n    return x * 2\n",
    # Ten fast tests run the function without telling `* 2` from `** 2`; the one that
    # does is slow, so it comes last of the eleven when the fastest go first.
    "tests/test_scale.py": (
        "import time\n\nimport pytest\n\nfrom pkg.scale import scale\n\n\n"
        "@pytest.mark.parametrize('x', [0, 2] * 5)\ndef test_fixed_points(x):\n"
        "    assert scale(x) in (0, 4)\n\n\ndef test_three():\n    time.sleep(0.2)\n"
        "    assert scale(3) == 6\n"
    ),
    "mutations/scale.toml": (
        '[[mutation]]\nid = "power"\nsummary = "Squares."\nfile = "pkg/scale.py"\n'
        'scope = "scale"\nfind = "x * 2"\nreplace = "x ** 2"\n'
    ),
}


def test_a_kill_after_the_first_few_tests_is_found_by_the_run_in_the_suites_order(tmp_path):
    """A forked mutant's first run is its likeliest killers (scheduler.probe_plan); when
    none of them kills it, the whole selection runs as the suite runs it."""
    verdict = _caught_as_by_hand(tmp_path, PROBED, "pkg/scale.py", "x * 2", "x ** 2", "power")
    assert verdict["reason"].startswith("tests/test_scale.py::test_three: ")
    assert len(verdict["tests"]) == 11  # every test, in the suite's order


FRESH_PROBED = {
    "pyproject.toml": LOCALE["pyproject.toml"],
    "pkg/__init__.py": "",
    "pkg/limits.py": "LIMIT = 10\n\n\ndef over(n: int) -> bool:\n    return n > LIMIT\n",
    # A module-level mutant selects every test. The suite runs these 30 slow ones first
    # (3 s: more than a fresh run takes to start); none of them uses the limit.
    "tests/test_a_slow.py": (
        "import time\n\nimport pytest\n\n\n@pytest.mark.parametrize('i', range(30))\n"
        "def test_slow(i):\n    time.sleep(0.1)\n"
    ),
    "tests/test_b_limit.py": (
        "from pkg.limits import over\n\n\ndef test_eleven_is_over():\n    assert over(11)\n"
    ),
    "mutations/limits.toml": (
        '[[mutation]]\nid = "limit-eleven"\nsummary = "Raises the limit."\n'
        'file = "pkg/limits.py"\nfind = "LIMIT = 10"\nreplace = "LIMIT = 11"\n'
    ),
}


def test_a_fresh_mutant_probes_its_likeliest_killers_before_the_suites_order(tmp_path):
    """Regression (issue 22, packaging 24.1): a fresh-interpreter mutant ran its whole
    selection in the suite's order, so a mutant of code run at collection reached its
    killer after a median 1,533 of 26,854 tests. Now it probes its likeliest killers
    first, as a forked one does; the kill is confirmed by a control run."""
    verdict = _caught_as_by_hand(
        tmp_path, FRESH_PROBED, "pkg/limits.py", "LIMIT = 10", "LIMIT = 11", "limit-eleven"
    )
    assert verdict["executionPath"] == "subprocess"
    assert [t["id"] for t in verdict["tests"]] == ["tests/test_b_limit.py::test_eleven_is_over"]


FORK_PROBED = {
    "pyproject.toml": LOCALE["pyproject.toml"],
    "pkg/__init__.py": "",
    "pkg/calc.py": "def double(x: int) -> int:\n    return x * 2\n",
    # All of them run the changed line. Fastest first: the 29 quick ones (the first probe
    # takes 8), then the killer, then the 40 slow ones; in the suite's order it is last.
    # Eighty times the killer's sleep: only a stall of 40 ms in the killer's baseline
    # (a loaded CI machine once stalled it past 5 ms) would rank it after them.
    "tests/test_calc.py": (
        "import time\n\nimport pytest\n\nfrom pkg.calc import double\n\n\n"
        "@pytest.mark.parametrize('i', range(29))\ndef test_quick(i):\n"
        "    assert double(0) == 0\n\n\n"
        "@pytest.mark.parametrize('i', range(40))\ndef test_slow(i):\n"
        "    time.sleep(0.04)\n    assert double(0) == 0\n\n\n"
        "def test_killer():\n    time.sleep(0.0005)\n    assert double(2) == 4\n"
    ),
    "mutations/calc.toml": (
        '[[mutation]]\nid = "triple"\nsummary = "Triples."\n'
        'file = "pkg/calc.py"\nscope = "double"\nfind = "x * 2"\nreplace = "x * 3"\n'
    ),
}


def test_a_forked_mutant_probes_further_before_the_suites_order(tmp_path):
    """Regression (issue 22, packaging 24.1): once its first 8 likeliest killers passed, a
    forked mutant ran its whole selection in the suite's order, and 40 of packaging's
    kills came after 7,000-10,000 tests. A second probe runs the next likeliest killers
    (up to a tenth of the selection's time) first; here it reaches the killer that the
    suite's order runs last."""
    verdict = _caught_as_by_hand(tmp_path, FORK_PROBED, "pkg/calc.py", "x * 2", "x * 3", "triple")
    assert verdict["executionPath"] == "fork"
    ran = [t["id"] for t in verdict["tests"]]
    assert ran[-1] == "tests/test_calc.py::test_killer"
    assert len(ran) < 40, ran  # the suite's order would have run 70


CACHED = {
    "pyproject.toml": LOCALE["pyproject.toml"],
    "pkg/__init__.py": "",
    "pkg/units.py": (
        "_CACHE: dict[str, tuple[str, ...]] = {}\n\n\n"
        "def units(system: str) -> tuple[str, ...]:\n    if system not in _CACHE:\n"
        "        _CACHE[system] = ('km', 'm', 'cm')\n    return _CACHE[system]\n\n\n"
        "def known(unit: str) -> bool:\n    return unit in units('metric')\n"
    ),
    # The first test fills the cache (and passes without 'cm'); the second only reads it.
    "tests/test_units.py": (
        "from pkg.units import known\n\n\ndef test_km():\n    assert known('km')\n\n\n"
        "def test_cm():\n    assert known('cm')\n"
    ),
    "mutations/units.toml": (
        '[[mutation]]\nid = "no-cm"\nsummary = "Forgets centimetres."\n'
        'file = "pkg/units.py"\nscope = "units"\n'
        "find = \"('km', 'm', 'cm')\"\nreplace = \"('km', 'm')\"\n"
    ),
}


MEMOIZED = {
    **{k: v for k, v in CACHED.items() if k != "pkg/units.py"},
    "pkg/units.py": (
        "import functools\n\n\n@functools.lru_cache(maxsize=None)\n"
        "def units(system: str) -> tuple[str, ...]:\n    return ('km', 'm', 'cm')\n\n\n"
        "def known(unit: str) -> bool:\n    return unit in units('metric')\n"
    ),
}


@pytest.mark.parametrize("files", [CACHED, MEMOIZED], ids=["cache-dict", "lru-cache"])
def test_a_value_a_function_cached_is_judged_by_the_tests_that_read_it(tmp_path, files):
    """Regression (issue 22, isodate 0.7.2 `build_date_regexps`, outside the corpus's
    modules): the line filling the cache ran only in the first test to call the
    function, so only that test was selected, and the mutant survived; by hand the
    next test reads the mutated value from the cache and fails. Under `lru_cache` the
    second test's call is answered by the wrapper and runs no line of `units` at all,
    so selecting what entered the function was not enough either."""
    verdict = _caught_as_by_hand(tmp_path, files, "pkg/units.py", "'m', 'cm')", "'m')", "no-cm")
    assert verdict["reason"].startswith("tests/test_units.py::test_cm: ")


WRITER = {
    "pyproject.toml": LOCALE["pyproject.toml"],
    "pkg/__init__.py": "",
    "pkg/store.py": (
        "from pathlib import Path\n\n\ndef save(path: Path, text: str) -> None:\n"
        "    path.write_text(text)\n\n\ndef shout(text: str) -> str:\n    return text.upper()\n"
    ),
    "tests/data.txt": "original\n",
    # The first test rewrites the data file beside it and puts it back only when it passes.
    "tests/test_store.py": (
        "from pathlib import Path\n\nfrom pkg.store import save, shout\n\n"
        "DATA = Path(__file__).parent / 'data.txt'\n\n\n"
        "def test_save_roundtrip():\n    before = DATA.read_text()\n    save(DATA, 'hello')\n"
        "    assert DATA.read_text() == 'hello'\n    DATA.write_text(before)\n\n\n"
        "def test_data_is_pristine():\n    assert DATA.read_text() == 'original\\n'\n"
        "    assert shout('a') == 'A'\n"
    ),
    "mutations/store.toml": (
        '[[mutation]]\nid = "loud-save"\nsummary = "Saves with a bang."\n'
        'file = "pkg/store.py"\nscope = "save"\n'
        'find = "path.write_text(text)"\nreplace = "path.write_text(text + \'!\')"\n\n'
        '[[mutation]]\nid = "strip-shout"\nsummary = "Strips what it shouts."\n'
        'file = "pkg/store.py"\nscope = "shout"\n'
        'find = "text.upper()"\nreplace = "text.upper().strip()"\n'
    ),
}


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_file_a_mutants_test_wrote_is_put_back_before_the_next_mutant(tmp_path, jobs):
    """Regression (issue 22, tomlkit 0.13.2, held out): mutants share the private copy, so a
    test that rewrote a file beside it left it changed for every later mutant (and for a
    run beside it), where by hand each mutant starts from a checkout: 31 of tomlkit's
    mutants were `error`. A run of such a writer now goes alone, and its files are put
    back after it: `strip-shout` survives, as by hand, instead of failing on the file."""
    root = commit(write_files(tmp_path / "project", WRITER))
    assert _by_hand_exit(root, "pkg/store.py", "upper()", "upper().strip()") == 0
    assert _by_hand_exit(root, "pkg/store.py", "write_text(text)", "write_text(text + '!')") == 1
    git(root, "checkout", "--", "tests/data.txt")  # by hand, the next mutant gets a checkout
    _, mutants = guardcheck_run(root, tmp_path / "report.json", "--no-cache", "-j", jobs)
    assert mutants["loud-save"]["guardcheck"]["verdict"] == "caught"
    survivor = mutants["strip-shout"]["guardcheck"]
    assert survivor["verdict"] == "survived", survivor["reason"]
    assert (root / "tests/data.txt").read_text(encoding="utf-8") == "original\n"


SINGLE_MODULE = {
    "pyproject.toml": (
        '[tool.guardcheck]\ncatalogue = ["mutations"]\ntests = ["tests"]\n'
        'source = ["scale.py"]\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'
        'pythonpath = ["."]\n'
    ),
    "scale.py": "def scale(x: int) -> int:\n    return x * 2\n",
    "tests/test_scale.py": (
        "from scale import scale\n\n\ndef test_three():\n    assert scale(3) == 6\n"
    ),
    "mutations/scale.toml": PROBED["mutations/scale.toml"].replace("pkg/scale.py", "scale.py"),
}


def test_a_single_module_project_is_measured_and_its_mutants_judged(tmp_path):
    """Regression (issue 22, parse 1.20.2: `py-modules = ["parse"]`): coverage.py took the
    source entry `parse.py` for a module name, measured nothing, and all 1,245 mutants
    of the sweep but one were `no-coverage`. By hand this one fails its test."""
    verdict = _caught_as_by_hand(tmp_path, SINGLE_MODULE, "scale.py", "x * 2", "x ** 2", "power")
    assert verdict["reason"].startswith("tests/test_scale.py::test_three: ")


def test_a_baseline_that_measured_nothing_of_the_source_says_so(tmp_path):
    """Issue 22: a run whose coverage recorded no line of the source (parse's, before the
    fix above) gave `no-coverage` for every mutant in silence; now it says why, and how
    to fix it, while the verdicts stay what they are by hand (nothing fails)."""
    files = {**SINGLE_MODULE, "tests/test_scale.py": "def test_nothing():\n    assert True\n"}
    root = commit(write_files(tmp_path / "project", files))
    assert _by_hand_exit(root, "scale.py", "x * 2", "x ** 2") == 0
    done, mutants = guardcheck_run(root, tmp_path / "report.json", "--no-cache")
    assert mutants["power"]["guardcheck"]["verdict"] == "no-coverage"
    assert "coverage.py recorded no line of the source (scale.py)" in done.stderr
    assert "fix: point [tool.guardcheck] source at" in done.stderr


LEVELS = {
    "pyproject.toml": (
        '[tool.guardcheck]\ncatalogue = ["mutations"]\ntests = ["tests"]\nsource = ["pkg"]\n'
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'
    ),
    "pkg/__init__.py": "",
    "pkg/levels.py": (
        "def levels() -> tuple[str, ...]:\n    return ('low', 'mid', 'high')\n\n\n"
        "def describe(level: str) -> str:\n    return f'level {level}'\n"
    ),
    "tests/test_levels.py": (
        "import pytest\n\nfrom pkg.levels import describe, levels\n\n\n"
        "@pytest.mark.parametrize('level', levels())\ndef test_describe(level):\n"
        "    assert describe(level).startswith('level ')\n"
    ),
    "mutations/levels.toml": (
        '[[mutation]]\nid = "renamed-low"\nsummary = "A renamed level."\n'
        'file = "pkg/levels.py"\nscope = "levels"\nfind = "\'low\'"\nreplace = "\'XXlowXX\'"\n'
    ),
}


def test_a_mutant_that_only_renames_a_parametrization_survives_as_by_hand(tmp_path):
    """Issue 24 (consistent verdicts): string mutants of the values `parametrize` ids
    come from were "no verdict ... not collected with the mutant"; by hand
    `test_describe[XXlowXX]` runs and passes: the mutant survives."""
    root = commit(write_files(tmp_path / "project", LEVELS))
    assert _by_hand_exit(root, "pkg/levels.py", "'low'", "'XXlowXX'") == 0  # survives
    _, mutants = guardcheck_run(root, tmp_path / "report.json", "--no-cache")
    verdict = mutants["renamed-low"]["guardcheck"]
    assert verdict["verdict"] == "survived", verdict["reason"]
    ran = {t["id"] for t in verdict["tests"]}
    assert "tests/test_levels.py::test_describe[XXlowXX]" in ran


AROUND = {
    "pyproject.toml": (
        '[tool.guardcheck]\ncatalogue = ["mutations"]\ntests = ["tests"]\nsource = ["src/pkg"]\n'
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'
    ),
    "src/pkg/__init__.py": "",
    "src/pkg/core.py": "def double(x: int) -> int:\n    return x * 2\n",
    # A path from outside the project, as a site's configuration would give it.
    "tests/conftest.py": "import os\nimport sys\n\nsys.path.insert(0, os.environ['PKG_HOME'])\n",
    "tests/test_core.py": (
        "def test_double():\n    from pkg.core import double\n\n    assert double(2) == 4\n"
    ),
    "mutations/core.toml": (
        '[[mutation]]\nid = "add"\nsummary = "Adds."\nfile = "src/pkg/core.py"\n'
        'scope = "double"\nfind = "x * 2"\nreplace = "x + 2"\n'
    ),
}


@pytest.mark.parametrize("lazy", [False, True])
def test_project_modules_imported_around_the_copy_stop_the_run(tmp_path, lazy):
    """Case 1's check: when the tests import the project from the user's tree anyway
    (an absolute path inserted into sys.path), every mutant would silently be
    `no-coverage`; the run stops with exit 3 naming the module, whether it was
    imported at collection or lazily inside a test."""
    files = dict(AROUND)
    if not lazy:
        files["tests/test_core.py"] = (
            "from pkg.core import double\n\n\ndef test_double():\n    assert double(2) == 4\n"
        )
    root = commit(write_files(tmp_path / "project", files))
    done = subprocess.run(
        [sys.executable, "-m", "guardcheck", "run", "--no-cache"],
        cwd=root,
        env={**os.environ, "PKG_HOME": str(root / "src")},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 3, done.stdout + done.stderr
    assert "imported project modules from your working tree" in done.stderr
    assert f"pkg.core ({(root / 'src' / 'pkg' / 'core.py').resolve()})" in done.stderr


ON_DISK = (
    "run again with the mutant written into the private copy: a test read a mutated file, "
    "or ran it as a script, from disk"
)


def _reads_source(assertion: str) -> dict[str, str]:
    """GIT_CLEAN with a test that opens app/core.py and asserts `assertion` on its text."""
    return {
        **GIT_CLEAN,
        "tests/test_core.py": (
            "from pathlib import Path\n\nimport app.core\n\n\n"
            "def test_double_is_defined():\n"
            "    text = Path(app.core.__file__).read_text()\n"
            f"    assert {assertion}\n"
            "    assert app.core.double(2) == 4  # x + 2 too\n"
        ),
    }


@pytest.mark.parametrize(
    ("assertion", "hand_exit"),
    [
        ("'x * 2' in text", 1),  # the text decides: the mutant is caught by hand
        ("'def double' in text", 0),  # it does not: the mutant survives by hand
    ],
)
def test_a_test_that_reads_the_mutated_file_from_disk_reads_the_mutant(
    tmp_path, assertion, hand_exit
):
    """Regression (issue 22): the mutant lived in memory only, so a test opening the source
    file read the original, and its pass was `error`. The mutant now runs again written
    into the private copy, so the test reads it as by hand, and the verdict is the hand's;
    the copy holds the original again afterwards (same bytes, same mtime)."""
    root = commit(write_files(tmp_path / "project", _reads_source(assertion)))
    assert _by_hand_exit(root, "app/core.py", "x * 2", "x + 2") == hand_exit
    _, mutants = guardcheck_run(root, tmp_path / "report.json", "--no-cache")
    verdict = mutants["add"]["guardcheck"]
    assert verdict["verdict"] == ("caught" if hand_exit else "survived"), verdict["reason"]
    assert (verdict["executionPath"], verdict["executionPathReason"]) == ("subprocess", ON_DISK)
    copy = root / ".guardcheck" / "tree" / "app" / "core.py"
    assert filecmp.cmp(root / "app" / "core.py", copy, shallow=False)
    assert os.stat(copy).st_mtime_ns == os.stat(root / "app" / "core.py").st_mtime_ns


SCRIPT_CLI = {
    "pyproject.toml": (
        '[tool.guardcheck]\ncatalogue = ["mutations"]\ntests = ["tests"]\nsource = ["pkg"]\n'
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'
    ),
    "pkg/__init__.py": (
        "import sys\n\n\ndef f(x: int) -> int:\n    return x + 1\n\n\n"
        "if __name__ == '__main__':\n    print(f(int(sys.argv[1])))\n"
    ),
    "tests/test_cli.py": (
        "import subprocess\nimport sys\n\nimport pkg\n\n\n"
        "def test_cli_by_path():\n"
        "    out = subprocess.run([sys.executable, 'pkg/__init__.py', '1'], capture_output=True,\n"
        "                         text=True, check=True).stdout\n"
        "    assert out.strip() == '2'\n"
        "    assert pkg.f(0) >= 0\n"
    ),
    "mutations/cli.toml": (
        '[[mutation]]\nid = "plus-two"\nsummary = "Adds two."\nfile = "pkg/__init__.py"\n'
        'scope = "f"\nfind = "x + 1"\nreplace = "x + 2"\n'
    ),
}


def test_a_script_run_by_path_in_a_subprocess_runs_the_mutant(tmp_path):
    """Regression (issue 22, tabulate's CLI test): `python pkg/__init__.py` in a test's
    subprocess reads the script from disk. With the mutant in memory only, it ran the
    original and the mutant survived where by hand the test fails (later: `error`). The
    mutant now runs again written into the private copy: caught, as by hand."""
    root = commit(write_files(tmp_path / "project", SCRIPT_CLI))
    assert _by_hand_exit(root, "pkg/__init__.py", "x + 1", "x + 2") == 1  # caught
    _, mutants = guardcheck_run(root, tmp_path / "report.json", "--no-cache")
    verdict = mutants["plus-two"]["guardcheck"]
    assert verdict["verdict"] == "caught", verdict["reason"]
    assert verdict["reason"].startswith("tests/test_cli.py::test_cli_by_path")
    assert (verdict["executionPath"], verdict["executionPathReason"]) == ("subprocess", ON_DISK)


def _reads_unrun_text(needle: str, in_subprocess: bool) -> dict[str, str]:
    """A project whose only test of `version` reads core.py's text and never calls it."""
    check = f"    assert {needle!r} in Path(path).read_text()\n"
    if in_subprocess:
        code = "import sys; sys.exit(0 if sys.argv[2] in open(sys.argv[1]).read() else 1)"
        check = (
            f"    command = [sys.executable, '-c', {code!r}, path, {needle!r}]\n"
            "    assert subprocess.run(command).returncode == 0\n"
        )
    return {
        **GIT_CLEAN,
        "app/core.py": (
            "def double(x: int) -> int:\n    return x * 2\n\n\n"
            "def version() -> str:\n    return '1.0'\n"
        ),
        "tests/test_core.py": (
            "import subprocess\nimport sys\nfrom pathlib import Path\n\nimport app.core\n\n\n"
            "def test_double():\n    assert app.core.double(2) == 4\n\n\n"
            "def test_the_version_is_written_down():\n"
            "    path = str(Path(__file__).parent.parent / 'app' / 'core.py')\n"
            f"{check}"
        ),
        "mutations/core.toml": (
            '[[mutation]]\nid = "bump"\nsummary = "Another version."\nfile = "app/core.py"\n'
            'scope = "version"\nfind = "\'1.0\'"\nreplace = "\'2.0\'"\n'
        ),
    }


@pytest.mark.parametrize("in_subprocess", [False, True], ids=["in-process", "subprocess"])
@pytest.mark.parametrize(
    ("needle", "hand_exit"),
    [
        ("'1.0'", 1),  # the text decides: the mutant is caught by hand
        ("def version", 0),  # it does not: the mutant survives by hand
    ],
)
def test_a_test_that_reads_a_files_text_without_running_it_is_selected(
    tmp_path, needle, hand_exit, in_subprocess
):
    """Regression (issue 22's principle; found 2026-12-06): tests were selected only by the
    lines they ran, so a test that reads a module's text and never runs the mutated
    function (a version check, a linter run in-process or in a subprocess) was never run
    for its mutants: `no-coverage` where by hand that test fails. The baseline now notes
    which tests read which source files, and they run with the mutant on disk."""
    root = commit(write_files(tmp_path / "project", _reads_unrun_text(needle, in_subprocess)))
    assert _by_hand_exit(root, "app/core.py", "'1.0'", "'2.0'") == hand_exit
    _, mutants = guardcheck_run(root, tmp_path / "report.json", "--no-cache")
    verdict = mutants["bump"]["guardcheck"]
    caught = verdict["verdict"] in CAUGHT
    assert caught == bool(hand_exit), (verdict["verdict"], verdict["reason"])
    selected = {s["test"]: s["reason"] for s in verdict["selection"] if s["selected"]}
    reader = "tests/test_core.py::test_the_version_is_written_down"
    assert selected == {reader: "read app/core.py from disk in the baseline"}
    assert (verdict["executionPath"], verdict["executionPathReason"]) == ("subprocess", ON_DISK)


def _traceback_shows(needle: str) -> dict[str, str]:
    """GIT_CLEAN with a test that formats a traceback through app/core.py (linecache
    reads its lines then) and asserts that the text shows `needle`."""
    return {
        **GIT_CLEAN,
        "app/core.py": (
            "def check(x: int) -> int:\n    if x < 0:\n"
            '        raise ValueError("negative: " + str(x))\n    return x\n'
        ),
        "tests/test_core.py": (
            "import traceback\n\nimport pytest\n\nfrom app.core import check\n\n\n"
            "def test_check_keeps_positives():\n    assert check(1) == 1\n\n\n"
            "def test_the_traceback_shows_the_line():\n"
            "    with pytest.raises(ValueError) as info:\n        check(-1)\n"
            "    text = ''.join(traceback.format_exception(info.value))\n"
            f"    assert {needle!r} in text\n"
        ),
        "mutations/core.toml": (
            '[[mutation]]\nid = "int-of-int"\nsummary = "The same number, spelt otherwise."\n'
            'file = "app/core.py"\nscope = "check"\nfind = "str(x)"\nreplace = "str(int(x))"\n'
        ),
    }


@pytest.mark.parametrize(
    ("needle", "hand_exit"),
    [
        ("str(x))", 1),  # the line's text: by hand the traceback shows the mutant's
        ("ValueError: negative: -1", 0),  # the message: the same with the mutant
    ],
)
def test_a_traceback_read_in_the_baseline_needs_no_run_on_disk(tmp_path, needle, hand_exit):
    """Regression (found on jinja2 3.1.4, held out): a test whose traceback quoted a
    mutated file's lines read that file through linecache in the baseline, so it counted
    as reading the file's text, and each of its mutants' passes ran again with the file on
    disk, one at a time (64 of jinja2's 702 mutants, most of a 93 s sweep). A mutant's
    run puts the mutated text in linecache, so in memory the traceback already shows the
    mutant, as by hand: the test is still selected, and its pass now stands."""
    root = commit(write_files(tmp_path / "project", _traceback_shows(needle)))
    assert _by_hand_exit(root, "app/core.py", "str(x)", "str(int(x))") == hand_exit
    _, mutants = guardcheck_run(root, tmp_path / "report.json", "--no-cache")
    verdict = mutants["int-of-int"]["guardcheck"]
    assert (verdict["verdict"] in CAUGHT) == bool(hand_exit), verdict["reason"]
    assert verdict["executionPath"] == "fork", verdict["executionPathReason"]
    selected = {s["test"] for s in verdict["selection"] if s["selected"]}
    assert "tests/test_core.py::test_the_traceback_shows_the_line" in selected


@pytest.mark.parametrize(
    ("needle", "hand_exit"),
    [
        ("'1.0'", 1),  # the text decides: the mutant is caught by hand
        ("def version", 0),  # it does not: the mutant survives by hand
    ],
)
def test_a_test_that_reads_a_functions_source_without_running_it_is_judged_in_memory(
    tmp_path, needle, hand_exit
):
    """A test that reads `version`'s text with `inspect.getsource` and never calls it: the
    only test that can notice its mutant. Its read goes through linecache, which the
    mutant's run fills with the mutated text, so in memory it reads the mutant, as by
    hand: its pass is evidence, and so is its failure, which a control run confirms
    (before, a failure was `error`, "failed although the mutated code never ran")."""
    files = _reads_unrun_text(needle, in_subprocess=False)
    files["tests/test_core.py"] = (
        files["tests/test_core.py"]
        .replace("import subprocess\n", "import inspect\nimport subprocess\n")
        .replace("Path(path).read_text()", "inspect.getsource(app.core.version)")
    )
    root = commit(write_files(tmp_path / "project", files))
    assert _by_hand_exit(root, "app/core.py", "'1.0'", "'2.0'") == hand_exit
    _, mutants = guardcheck_run(root, tmp_path / "report.json", "--no-cache")
    verdict = mutants["bump"]["guardcheck"]
    expected = "caught" if hand_exit else "survived"
    assert verdict["verdict"] == expected, verdict["reason"]
    assert verdict["executionPath"] == "fork", verdict["executionPathReason"]
    selected = {s["test"]: s["reason"] for s in verdict["selection"] if s["selected"]}
    reader = "tests/test_core.py::test_the_version_is_written_down"
    assert selected == {reader: "read app/core.py from disk in the baseline"}


MYPY_PLUGIN = {
    "pyproject.toml": (
        '[tool.guardcheck]\ncatalogue = ["mutations"]\ntests = ["tests"]\nsource = ["app"]\n'
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\naddopts = "--mypy -p no:cacheprovider"\n'
    ),
    "app/__init__.py": "",
    "app/core.py": "SCALE = 2\n\n\ndef double(x: int) -> int:\n    return x * SCALE\n",
    # Imported only by a test's subprocess, where mypy does not follow.
    "app/cli.py": "def shout(text: str) -> str:\n    return text.upper()\n",
    "tests/test_cli.py": (
        "import subprocess\nimport sys\n\n\n"
        "def test_the_cli_imports() -> None:\n"
        "    subprocess.run([sys.executable, '-c', 'import app.cli'], check=True)\n"
    ),
    "tests/__init__.py": "",
    # Weak at run time on purpose: only mypy can tell a str from an int here.
    "tests/test_core.py": (
        "from app.core import SCALE, double\n\n\n"
        "def test_scale_is_set() -> None:\n    factor: int = SCALE\n    assert factor\n\n\n"
        "def test_double_gives_something() -> None:\n    assert double(2)\n"
    ),
    "mutations/core.toml": (
        # mypy's error is in the test file, which it checks as a source.
        '[[mutation]]\nid = "text-scale"\nsummary = "A str scale."\nfile = "app/core.py"\n'
        "find = 'SCALE = 2'\nreplace = 'SCALE = \"2\"'\n"
        # mypy's error is in app/core.py itself, which it reaches through the import.
        '[[mutation]]\nid = "text-double"\nsummary = "Doubles to text."\nfile = "app/core.py"\n'
        "scope = 'double'\nfind = 'x * SCALE'\nreplace = 'str(x * SCALE)'\n"
        # Well typed, and no test runs it: it survives by hand.
        '[[mutation]]\nid = "lower"\nsummary = "Whispers."\nfile = "app/cli.py"\n'
        "scope = 'shout'\nfind = 'text.upper()'\nreplace = 'text.lower()'\n"
    ),
}


def test_pytest_mypy_type_checks_each_mutant_as_a_plain_session_does(tmp_path):
    """Regression (found 2026-12-06 on Unidecode, whose CI runs `pytest --mypy`):
    pytest-mypy keeps its mypy result in a file picked once per session, and the forked
    children shared the host's, so a mutant's run read the original code's result; only
    the first mypy item reads the source (mypy 2 reads it past the audit hook), and
    mypy's own cache lets a rerun skip a file's text; and the copy's folder, listed
    twice on sys.path, made mypy silence errors inside the project's modules. Mutants
    only mypy catches survived where by hand a mypy item fails."""
    root = commit(write_files(tmp_path / "project", MYPY_PLUGIN))
    assert _by_hand_exit(root, "app/core.py", "SCALE = 2", 'SCALE = "2"') == 1  # by mypy
    assert _by_hand_exit(root, "app/core.py", "x * SCALE", "str(x * SCALE)") == 1
    assert _by_hand_exit(root, "app/cli.py", "text.upper()", "text.lower()") == 0
    assert _plain_suite_exit(root) == 0  # and mypy's cache now holds the original
    _, mutants = guardcheck_run(root, tmp_path / "report.json", "--no-cache")
    for name in ("text-scale", "text-double"):
        verdict = mutants[name]["guardcheck"]
        assert verdict["verdict"] in CAUGHT, (name, verdict["verdict"], verdict["reason"])
        assert verdict["reason"].startswith("tests/__init__.py::mypy-status: "), name
        path = (verdict["executionPath"], verdict["executionPathReason"])
        assert path == ("subprocess", ON_DISK), name
    # Only the mypy items, which read the file on disk, ran it: their pass is the hand
    # verdict (before: `error`, "no evidence the mutant was active").
    untested = mutants["lower"]["guardcheck"]
    assert untested["verdict"] == "survived", (untested["verdict"], untested["reason"])
    # One mypy run serves every mypy item: a read by the first is a read by them all.
    readers = {
        s["test"]
        for s in mutants["text-double"]["guardcheck"]["selection"]
        if s["selected"] and s["reason"] == "read app/core.py from disk in the baseline"
    }
    files = ("__init__.py", "test_cli.py", "test_core.py")
    assert readers == {f"tests/{f}::mypy" for f in files} | {"tests/__init__.py::mypy-status"}


def _cases_project(root: Path, cases: str) -> Path:
    """A conftest.py collector that names every case of a data file alike, as docopt-ng's
    does for its testcases.docopt: one item per line of `cases`, all under one node id."""
    return commit(
        write_files(
            root,
            {
                "pyproject.toml": (
                    '[tool.guardcheck]\ncatalogue = ["mutations"]\ntests = ["tests"]\n'
                    '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'
                ),
                "calc/__init__.py": (
                    "ONE = 1\n\n\ndef sign(x):\n    if x > 0:\n        return ONE\n    return 0\n"
                ),
                "tests/conftest.py": (
                    "import pytest\n\nfrom calc import sign\n\n\n"
                    "def pytest_collect_file(file_path, parent):\n"
                    "    if file_path.suffix == '.cases':\n"
                    "        return CasesFile.from_parent(parent, path=file_path)\n\n\n"
                    "class CasesFile(pytest.File):\n"
                    "    def collect(self):\n"
                    "        for line in self.path.read_text().splitlines():\n"
                    "            arg, expected = map(int, line.split())\n"
                    "            yield CaseItem.from_parent(\n"
                    "                self, name='case', arg=arg, expected=expected\n"
                    "            )\n\n\n"
                    "class CaseItem(pytest.Item):\n"
                    "    def __init__(self, *, arg, expected, **kwargs):\n"
                    "        super().__init__(**kwargs)\n"
                    "        self.arg, self.expected = arg, expected\n\n"
                    "    def runtest(self):\n"
                    "        assert sign(self.arg) == self.expected\n\n"
                    "    def reportinfo(self):\n"
                    "        return self.path, 0, self.name\n"
                ),
                "tests/test_sign.cases": cases,
                "mutations/sign.toml": (
                    '[[mutation]]\nid = "positive-two"\nsummary = "A positive sign is 2."\n'
                    'file = "calc/__init__.py"\nscope = "sign"\nfind = "return ONE"\n'
                    'replace = "return ONE + 1"\n\n'
                    '[[mutation]]\nid = "one-is-two"\nsummary = "ONE is 2, at import."\n'
                    'file = "calc/__init__.py"\nfind = "ONE = 1"\nreplace = "ONE = 2"\n'
                ),
            },
        )
    )


def test_items_that_share_a_node_id_all_run_as_plain_pytest_runs_them(tmp_path):
    """Found on docopt-ng 0.9.0 (bench/corpus): its conftest collector names each case of
    a usage text alike, 614 items under 520 node ids. A forked run kept the first item
    of each id and a fresh run the last, so the others never ran, in the baseline or for
    any mutant: a mutant only a middle case catches was `survived` on both paths (here,
    where by hand the suite fails), and a middle case failing on the original left the
    baseline green where plain pytest is red."""
    root = _cases_project(tmp_path / "project", "0 0\n5 1\n-3 0\n")
    assert _plain_suite_exit(root) == 0
    assert _by_hand_exit(root, "calc/__init__.py", "return ONE", "return ONE + 1") == 1
    assert _by_hand_exit(root, "calc/__init__.py", "ONE = 1", "ONE = 2") == 1
    _, mutants = guardcheck_run(root, tmp_path / "report.json", "--no-cache")
    verdicts = {
        k: (m["guardcheck"]["verdict"], m["guardcheck"]["executionPath"])
        for k, m in mutants.items()
    }
    assert verdicts == {"positive-two": ("caught", "fork"), "one-is-two": ("caught", "subprocess")}

    red = _cases_project(tmp_path / "red", "0 0\n5 2\n-3 0\n")  # the middle case fails
    assert _plain_suite_exit(red) == 1
    done = guardcheck(red, "run", "--no-cache")
    assert done.returncode == 3, done.stdout + done.stderr
    assert "tests/test_sign.cases::case (failed)" in done.stderr


COLD_CACHE = {
    "pyproject.toml": (
        '[tool.guardcheck]\ncatalogue = ["mutations"]\ntests = ["tests"]\n'
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'
    ),
    "app/__init__.py": (
        "import subprocess\nimport sys\n\n_echoed = {}\n\n\n"
        "def echo(text):\n"
        "    if text not in _echoed:  # a process only when the cache is cold\n"
        "        code = 'import sys; print(sys.argv[1])'\n"
        "        done = subprocess.run([sys.executable, '-c', code, text], capture_output=True)\n"
        "        _echoed[text] = done.stdout.decode().strip()\n"
        "    return _echoed[text]\n\n\n"
        "def shout(text):\n    return echo(text).upper()\n"
    ),
    # One file, so that the baseline runs them in one process, test_shout warm.
    "tests/test_echo.py": (
        "from app import echo, shout\n\n\n"
        "def test_echo():\n    assert echo('hi') == 'hi'\n\n\n"
        "def test_shout():\n    assert shout('hi') == 'HI'\n"
    ),
    "mutations/shout.toml": (
        '[[mutation]]\nid = "shout-lower"\nsummary = "Shouting lowers the case."\n'
        'file = "app/__init__.py"\nscope = "shout"\nfind = "echo(text).upper()"\n'
        'replace = "echo(text).lower()"\n'
    ),
}


def test_a_control_run_whose_test_starts_a_process_the_baseline_did_not_confirms_the_kill(
    tmp_path,
):
    """Found on patchy 2.9.0 (bench/corpus): its patches run the `patch` program, and a
    cache skips it for a patch an earlier test applied. A killing test run alone started
    a process that the baseline, where it ran warm, had not; its control run, without the
    mutant, passed, but that pass was doubted as for a mutant ("may have run unmutated
    there") and the kill left unconfirmed: 10 `error`s, each caught by hand. A control
    run has no mutant, so its pass stands."""
    root = commit(write_files(tmp_path / "project", COLD_CACHE))
    assert _plain_suite_exit(root) == 0
    assert _by_hand_exit(root, "app/__init__.py", ".upper()", ".lower()") == 1
    _, mutants = guardcheck_run(root, tmp_path / "report.json", "--no-cache")
    verdict = mutants["shout-lower"]["guardcheck"]
    assert (verdict["verdict"], verdict["executionPath"]) == ("caught", "fork"), verdict["reason"]


def _stdout_project(root: Path, capture: str) -> Path:
    """A module that keeps the `sys.stdout` it saw at import, as structlog's loggers do,
    and a test that needs the one a test sees to be that same object."""
    return commit(
        write_files(
            root,
            {
                "pyproject.toml": (
                    '[tool.guardcheck]\ncatalogue = ["mutations"]\ntests = ["tests"]\n'
                    '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'
                    f'addopts = "--capture={capture}"\n'
                ),
                "pkg/__init__.py": "",
                "pkg/sink.py": (
                    "import sys\nfrom sys import stdout\n\n\n"
                    "def target(file=None):\n    file = file or sys.stdout\n"
                    "    return 'stdout' if file is stdout else 'other'\n"
                ),
                "tests/test_sink.py": (
                    "from pkg.sink import target\n\n\n"
                    "def test_default_target_is_stdout():\n"
                    "    print('a line the capture keeps')\n"
                    "    assert target() == 'stdout'\n"
                ),
                "mutations/sink.toml": (
                    '[[mutation]]\nid = "shout"\nsummary = "Names it in capitals."\n'
                    'file = "pkg/sink.py"\nscope = "target"\n'
                    "find = \"'stdout'\"\nreplace = \"'STDOUT'\"\n"
                ),
            },
        )
    )


@pytest.mark.parametrize("capture", ["fd", "sys"])
def test_a_test_sees_the_stdout_object_its_modules_saw_at_import(tmp_path, capture):
    """Regression (structlog 24.4.0: 18 `test_pickle` cases failed the baseline, exit 3):
    each worker slot captured into capture objects of its own, so `sys.stdout` during a
    test was not the object a module imported while pytest collected, as it is in one
    plain pytest run. The slot's files now sit under the session's own objects."""
    root = _stdout_project(tmp_path / "project", capture)
    assert _plain_suite_exit(root) == 0
    assert _by_hand_exit(root, "pkg/sink.py", "'stdout' if", "'STDOUT' if") == 1
    done, mutants = guardcheck_run(root, tmp_path / "report.json", "--no-cache")
    assert done.returncode == 0, done.stdout + done.stderr  # the baseline passed
    assert mutants["shout"]["guardcheck"]["verdict"] == "caught"
