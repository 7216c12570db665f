"""Mutants of code that only a test file's collection ran, resumed at a checkpoint.

Real `python -m guardcheck run` processes on a project whose `widths()` builds one test
file's parametrize list. Its mutants used to run in a fresh interpreter each; they now
fork from a pytest session paused before that file (guardcheck/child/checkpoint.py).
Each verdict is checked against the mutant written by hand into a copy of the project
and the whole suite run there with plain pytest.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.projects import RECOMPILING_DECORATOR, commit, git_status, write_files
from support.verdicts import failing_by_hand, guardcheck_run, mutant_log, tracked_bytes

pytestmark = pytest.mark.slow

CASES = "pkg/cases.py"
PROJECT = {
    "pyproject.toml": (
        '[tool.guardcheck]\ncatalogue = ["mutations"]\ntests = ["tests"]\n\n'
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\nfilterwarnings = ["error"]\n'
    ),
    "pkg/__init__.py": "",
    "tests/__init__.py": "",  # a test package: pytest 7 collects it through this file
    CASES: (
        "def widths():\n"
        '    """Parametrize values for tests/test_widths.py, built as pytest collects it."""\n'
        "    return [(1, 10), (2, 20)]\n\n\n"
        "def scale(n):\n"
        "    return n * 10\n"
    ),
    # Collected before the checkpoint: pkg.cases is imported there, so the mutant is
    # swapped into the live function, as in the host's forked children.
    "tests/test_a_first.py": (
        "from pkg.cases import scale\n\n\ndef test_scale():\n    assert scale(3) == 30\n"
    ),
    "tests/test_widths.py": (
        "import pytest\n\nfrom pkg.cases import scale, widths\n\n\n"
        '@pytest.mark.parametrize(("n", "width"), widths())\n'
        "def test_width(n, width):\n    assert scale(n) == width\n"
    ),
    "tests/test_z_last.py": "def test_last():\n    assert 1 + 1 == 2\n",
}
# entry id -> (find, replace) in widths(), as the entry makes it and as written by hand
ENTRIES = {
    "wrong-width": ("(2, 20)", "(2, 21)"),
    "fewer-cases": ("[(1, 10), (2, 20)]", "[(1, 10)]"),
    "no-cases": ("return [(1, 10), (2, 20)]", "return None"),
}


def catalogue() -> str:
    return "".join(
        f'[[mutation]]\nid = "{entry}"\nsummary = "widths() changed."\nfile = "{CASES}"\n'
        f'scope = "widths"\nfind = {json.dumps(old)}\nreplace = {json.dumps(new)}\n\n'
        for entry, (old, new) in ENTRIES.items()
    )


def by_hand(root: Path, old: str, new: str) -> list[str]:
    """The tests that fail with `old` -> `new` written into widths() by hand."""
    return failing_by_hand(root, CASES, old, new)


@pytest.fixture(scope="module")
def swept(tmp_path_factory: pytest.TempPathFactory) -> dict:
    root = write_files(tmp_path_factory.mktemp("checkpoint") / "project", PROJECT)
    write_files(root, {"mutations/cases.toml": catalogue()})
    commit(root)
    before = tracked_bytes(root)
    done, mutants = guardcheck_run(root, root.parent / "r.json")
    return {"root": root, "done": done, "mutants": mutants, "before": before}


def test_the_baseline_passes_and_the_tree_is_left_as_it_was(swept):
    root = swept["root"]
    assert by_hand(root, "(1, 10)", "(1, 10)") == []  # the unmutated suite passes
    assert tracked_bytes(root) == swept["before"]
    assert git_status(root) == ""


@pytest.mark.parametrize("entry", sorted(ENTRIES))
def test_each_mutant_resumes_at_the_checkpoint_with_the_verdict_by_hand(swept, entry):
    """Issue 22 (speed): these mutants each paid for a new pytest session (dep-logic: 62 of
    278 mutants, most of the worker time). They now resume at a checkpoint before
    tests/test_widths.py, which is collected again with the mutant in place, and each
    verdict is the one by hand, or `error` where a fresh interpreter says so too: a
    renamed parametrize id fails (caught), a list that is no list breaks collection
    (caught), one case fewer passes by hand, but the selected id it drops never ran."""
    root = swept["root"]
    killers = by_hand(root, *ENTRIES[entry])
    fields = swept["mutants"][entry]["guardcheck"]
    verdict, reason = fields["verdict"], fields["reason"]
    if entry == "wrong-width":
        assert killers == ["tests/test_widths.py::test_width[2-21]"]
        assert verdict == "caught", reason
        assert reason.startswith(f"{killers[0]}: ")
    if entry == "no-cases":
        assert killers  # collection errors: the suite fails
        assert verdict == "caught", reason
        assert reason.startswith("crash: collection aborted: tests/test_widths.py")
    if entry == "fewer-cases":
        assert killers == []
        assert verdict == "error", reason
        assert reason.startswith("tests/test_widths.py::test_width[2-20] never ran: not collected")
    assert fields["executionPath"] == "subprocess"
    assert fields["executionPathReason"] == (
        f"{CASES}: widths ran while pytest collected tests/test_widths.py "
        "(its results would outlive a code swap)"
    )
    assert "resumed at a checkpoint; swapped widths (1 live)" in mutant_log(root, entry)


def test_a_mutated_file_read_before_the_checkpoint_sends_a_pass_to_a_run_with_it_on_disk(
    tmp_path,
):
    """A test file collected before the checkpoint reads pkg/cases.py's text (linecache):
    by hand it reads the mutant, at the checkpoint it read the original. The run's pass is
    no proof, so the mutant runs again with its file on disk, where the verdict is the
    one by hand (survived)."""
    reader = (
        "import linecache\n\nfrom pkg import cases\n\n"
        "LINES = linecache.getlines(cases.__file__)  # read as pytest collects this file\n\n\n"
        "def test_source_read():\n    assert LINES\n"
    )
    root = write_files(tmp_path / "project", {**PROJECT, "tests/test_a_first.py": reader})
    write_files(
        root,
        {
            "mutations/cases.toml": (
                f'[[mutation]]\nid = "sliced"\nsummary = "A slice that keeps all."\n'
                f'file = "{CASES}"\nscope = "widths"\nfind = "[(1, 10), (2, 20)]"\n'
                'replace = "[(1, 10), (2, 20)][:2]"\n'
            )
        },
    )
    commit(root)
    assert by_hand(root, "[(1, 10), (2, 20)]", "[(1, 10), (2, 20)][:2]") == []
    done, mutants = guardcheck_run(root, tmp_path / "r.json")
    fields = mutants["sliced"]["guardcheck"]
    assert fields["verdict"] == "survived", fields["reason"]
    assert done.returncode == 1, done.stdout + done.stderr  # the gate: a survivor
    assert mutant_log(root, "sliced").startswith(
        "mutant sliced (subprocess: run again with the mutant written into the private copy"
    )


RECOMPILED_CASES = {
    **{k: v for k, v in PROJECT.items() if not k.startswith("tests/test_widths")},
    "pkg/recompile.py": RECOMPILING_DECORATOR,
    CASES: (
        "from pkg.recompile import recompiled\n\n\n@recompiled\ndef widths(n):\n"
        '    """Parametrize values for tests/test_widths.py, built as pytest collects it."""\n'
        "    return [(1, 10 * n), (2, 20 * n)]\n\n\n"
        "def scale(n):\n    return n * 10\n"
    ),
    "tests/test_widths.py": (
        "import pytest\n\nfrom pkg.cases import scale, widths\n\n\n"
        '@pytest.mark.parametrize(("n", "width"), widths(1))\n'
        "def test_width(n, width):\n    assert scale(n) == width\n"
    ),
    "mutations/cases.toml": (
        '[[mutation]]\nid = "wider"\nsummary = "widths() widens the second case."\n'
        f'file = "{CASES}"\nscope = "widths"\nfind = "(2, 20 * n)"\nreplace = "(2, 21 * n)"\n'
    ),
}


def test_a_recompiled_function_resumed_at_a_checkpoint_runs_with_its_mutant_on_disk(tmp_path):
    """A function a decorator compiled again from the module's text (typeguard's
    @typechecked), called while pytest collects a test file: no live function matches
    the text at the checkpoint either. The run gave up there with `error`; it now runs
    again with the mutant written on disk, where the decorator compiles it: caught by
    the renamed case, as by hand."""
    root = commit(write_files(tmp_path / "project", RECOMPILED_CASES))
    assert by_hand(root, "(2, 20 * n)", "(2, 21 * n)") == ["tests/test_widths.py::test_width[2-21]"]
    _, mutants = guardcheck_run(root, tmp_path / "r.json", "--no-cache")
    fields = mutants["wider"]["guardcheck"]
    assert (fields["verdict"], fields["executionPath"]) == ("caught", "subprocess"), fields
    assert fields["reason"].startswith("tests/test_widths.py::test_width[2-21]: ")
    assert "run again with the mutant written into the private copy" in mutant_log(root, "wider")


def test_a_test_file_collected_twice_under_doctest_modules_resumes_once(tmp_path):
    """Regression (tblib 3.0.0, `--doctest-modules`): pytest collects each test file twice,
    as a Module and as a DoctestModule. A run resumed before the file paused again at the
    second one and bound the checkpoint's address anew: one sibling run hung until its
    timeout, the other ended in pytest INTERNALERROR ("Address already in use"), and
    both equivalent mutants were reported caught. By hand the suite passes with each."""
    root = write_files(tmp_path / "project", PROJECT)
    config = root / "pyproject.toml"
    config.write_text(
        config.read_text(encoding="utf-8") + 'addopts = "--doctest-modules"\n', encoding="utf-8"
    )
    equivalent = {"as-list": "list([(1, 10), (2, 20)])", "as-copy": "[(1, 10), (2, 20)][:]"}
    write_files(
        root,
        {
            "mutations/cases.toml": "".join(
                f'[[mutation]]\nid = "{entry}"\nsummary = "The same list."\nfile = "{CASES}"\n'
                f'scope = "widths"\nfind = "[(1, 10), (2, 20)]"\nreplace = "{new}"\n\n'
                for entry, new in equivalent.items()
            )
        },
    )
    commit(root)
    for new in equivalent.values():
        assert by_hand(root, "[(1, 10), (2, 20)]", new) == []  # the suite passes by hand
    _, mutants = guardcheck_run(root, tmp_path / "r.json", "-j", "2")
    for entry in equivalent:
        fields = mutants[entry]["guardcheck"]
        assert (fields["verdict"], fields["executionPath"]) == ("survived", "subprocess"), (
            entry,
            fields["reason"],
        )
        assert "resumed at a checkpoint" in mutant_log(root, entry)
