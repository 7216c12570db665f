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

import json
from pathlib import Path

import pytest
from support.editable import BACKENDS, EditableProject, editable_project, hand_verdict

pytestmark = pytest.mark.slow

ENTRIES = ("unused-constant", "no-total-ordering", "clamp-off-by-one", "cli-no-clamp")
CAUGHT = {"caught", "timeout"}


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
