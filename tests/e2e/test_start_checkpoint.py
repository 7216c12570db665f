"""Fresh-interpreter mutants resumed at the start checkpoint.

A mutant of module-level code runs in a fresh pytest session. Those sessions used to be
forked from the warm interpreter before pytest read its configuration and imported its
plugins; they now fork from one session paused just before pytest loads the first
conftest.py (guardcheck/child/checkpoint.py), unless something before that pause
imported the mutated module. Real `python -m guardcheck run` processes; each verdict
is checked against the mutant written by hand into a copy of the project and the whole
suite run there with plain pytest.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.projects import commit, git_status, write_files
from support.verdicts import failing_by_hand, guardcheck_run, mutant_log, tracked_bytes

pytestmark = pytest.mark.slow

LIMITS = "pkg/limits.py"
PROJECT = {
    "pyproject.toml": (
        '[tool.guardcheck]\ncatalogue = ["mutations"]\ntests = ["tests"]\n\n'
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\nfilterwarnings = ["error"]\n'
    ),
    "pkg/__init__.py": "",
    LIMITS: (
        "def _computed():\n    return 3\n\n\n"
        "LIMIT = _computed()\n"
        "UNUSED = 1\n\n\n"
        "def allowed(n):\n    return n <= LIMIT\n"
    ),
    # The first import of pkg.limits is here: a conftest.py that the start checkpoint
    # has not loaded yet when it pauses.
    "tests/conftest.py": (
        "import pytest\n\nfrom pkg.limits import LIMIT\n\n\n"
        "@pytest.fixture\ndef limit():\n    return LIMIT\n"
    ),
    "tests/test_limits.py": (
        "from pkg.limits import allowed\n\n\n"
        "def test_the_limit_is_allowed(limit):\n    assert allowed(limit)\n\n\n"
        "def test_four_is_too_many(tmp_path):\n"
        '    (tmp_path / "seen").write_text("4")\n'
        "    assert not allowed(4)\n"
    ),
}
# entry id -> (find, replace) of module-level code, as the entry makes it and by hand
ENTRIES = {
    "limit-raised": ("LIMIT = _computed()", "LIMIT = _computed() + 1"),
    "unused-changed": ("UNUSED = 1", "UNUSED = 2"),
}


def catalogue(entries: dict[str, tuple[str, str]]) -> str:
    return "".join(
        f'[[mutation]]\nid = "{entry}"\nsummary = "module-level change."\nfile = "{LIMITS}"\n'
        f"find = {json.dumps(old)}\nreplace = {json.dumps(new)}\n\n"
        for entry, (old, new) in entries.items()
    )


def by_hand(root: Path, old: str, new: str) -> list[str]:
    """The tests that fail with `old` -> `new` written into pkg/limits.py by hand."""
    return failing_by_hand(root, LIMITS, old, new)


def swept_project(root: Path, extra: dict[str, str]) -> dict:
    write_files(root, {**PROJECT, **extra, "mutations/limits.toml": catalogue(ENTRIES)})
    commit(root)
    before = tracked_bytes(root)
    done, mutants = guardcheck_run(root, root.parent / "r.json")
    return {"root": root, "done": done, "mutants": mutants, "before": before}


@pytest.fixture(scope="module")
def swept(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return swept_project(tmp_path_factory.mktemp("start") / "project", {})


def test_the_baseline_passes_and_the_tree_is_left_as_it_was(swept):
    root = swept["root"]
    assert by_hand(root, "UNUSED = 1", "UNUSED = 1") == []
    assert tracked_bytes(root) == swept["before"]
    assert git_status(root) == ""


@pytest.mark.parametrize("entry", sorted(ENTRIES))
def test_a_module_level_mutant_resumes_at_the_start_with_the_verdict_by_hand(swept, entry):
    """Issue 22 (speed): each fresh run paid for pytest's start-up and its plugins' imports
    (blinker: 18 of 281 mutants, 40% of the worker time). They now resume at a session
    paused before the conftest files, which import the mutated module with the mutant
    served, and each verdict is the one by hand."""
    root = swept["root"]
    killers = by_hand(root, *ENTRIES[entry])
    fields = swept["mutants"][entry]["guardcheck"]
    assert fields["executionPath"] == "subprocess"
    if entry == "limit-raised":
        assert killers == ["tests/test_limits.py::test_four_is_too_many"]
        assert fields["verdict"] == "caught", fields["reason"]
        assert fields["reason"].startswith(f"{killers[0]}: ")
    else:
        assert killers == []
        assert fields["verdict"] == "survived", fields["reason"]
    assert "resumed at the start checkpoint" in mutant_log(root, entry)


def test_a_module_imported_before_the_pause_does_not_resume_there(tmp_path, monkeypatch):
    """A plugin named in PYTEST_PLUGINS imports the mutated module before pytest loads any
    conftest.py, so the session paused there holds the original. Its mutants must not
    resume there (the run would find the module imported, and go again with the file
    on disk): a fresh interpreter loads guardcheck's plugin before PYTEST_PLUGINS' and
    serves the mutant, with the verdict by hand."""
    monkeypatch.setenv("PYTEST_PLUGINS", "pkg.plugin")  # for guardcheck and by hand alike
    swept = swept_project(tmp_path / "project", {"pkg/plugin.py": "from pkg import limits\n"})
    root = swept["root"]
    assert swept["done"].returncode == 1, swept["done"].stderr  # one survivor: gate fails
    for entry, (old, new) in ENTRIES.items():
        killers = by_hand(root, old, new)
        fields = swept["mutants"][entry]["guardcheck"]
        assert fields["verdict"] == ("caught" if killers else "survived"), fields["reason"]
        log = mutant_log(root, entry)
        assert "resumed at the start checkpoint" not in log
        assert "written into the private copy" not in log
    assert tracked_bytes(root) == swept["before"]
