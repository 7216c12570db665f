"""The baseline under coverage split by test file over the workers (child/baselineparts.py).

Real hosts on the `calc` fixture project with a second test file: the split run
must select the same tests for every mutant as one child would, and a suite
whose test needs another file's test to have run first must still get its
green baseline (the whole suite again in one child), not a red one.
"""

from __future__ import annotations

import pytest
from support.lab import by_id, mutant, run
from support.projects import commit, write_files

from guardcheck.model import TestOutcome

pytestmark = pytest.mark.slow

MORE_TESTS = {
    "tests/test_more.py": (
        "from calc.ops import add, clamp\n\n\n"
        "def test_add_negative():\n    assert add(-1, -2) == -3\n\n\n"
        "def test_clamp_low():\n    assert clamp(3) == 3\n"
    ),
}
# test_a runs first in one child; split by file, test_b runs in the other child.
ORDER_DEPENDENT = {
    "tests/test_a_prepares.py": (
        "import os\nfrom pathlib import Path\n\n\n"
        "def test_prepare():\n"
        "    Path(os.environ['ORDER_WITNESS']).open('a').write('prepared\\n')\n"
        "    os.environ['PREPARED'] = '1'\n"
    ),
    "tests/test_b_needs_a.py": (
        "import os\n\n\ndef test_needs_the_preparation():\n"
        "    assert os.environ.get('PREPARED') == '1'\n"
    ),
}


def selections(report) -> dict[str, tuple[str, tuple[str, ...]]]:
    return {
        r.mutant.id: (r.status.value, tuple(s.nodeid for s in r.selection if s.selected))
        for r in report.results
    }


def test_a_split_baseline_selects_what_one_child_would(project):
    root = project("calc")
    write_files(root, MORE_TESTS)
    commit(root)
    mutants = [
        mutant(root, "add", "return a + b", "return a - b"),
        mutant(root, "clamp", "if x > LIMIT", "if x >= LIMIT"),
        mutant(root, "limit", "LIMIT = 10", "LIMIT = 11"),
    ]
    split = run(root, mutants, jobs=2)
    whole = run(root, mutants, jobs=1)
    assert [t.nodeid for t in split.baseline] == [t.nodeid for t in whole.baseline]
    assert selections(split) == selections(whole)
    chosen = dict(selections(split))
    assert "tests/test_more.py::test_add_negative" in chosen["add"][1]
    assert "tests/test_ops.py::test_add" in chosen["add"][1]  # both files' coverage merged


def test_a_test_that_needs_another_files_test_gets_the_whole_suite_in_one_child(
    project, monkeypatch, tmp_path
):
    root = project("calc")
    write_files(root, ORDER_DEPENDENT)
    commit(root)
    witness = tmp_path / "order-witness.txt"
    monkeypatch.setenv("ORDER_WITNESS", str(witness))
    report = run(root, [mutant(root, "add", "return a + b", "return a - b")], jobs=2)
    outcomes = {t.nodeid: t.outcome for t in report.baseline}
    assert outcomes["tests/test_b_needs_a.py::test_needs_the_preparation"] is TestOutcome.PASSED
    # Once in the split run (where test_b failed without it), once in the whole one.
    assert witness.read_text().splitlines() == ["prepared", "prepared"]
    assert by_id(report)["add"].status.value == "caught"
