"""guardcheck/pytestrun.py: the one plain pytest-in-a-subprocess helper (collect, review,
refactor), run for real on a small project in tmp_path."""

from __future__ import annotations

import subprocess
import textwrap

import pytest

from guardcheck import pytestrun

TESTS = """
import time


class TestBox:
    def test_fails(self):
        assert 1 == 2


def test_passes():
    pass


def test_hangs():
    time.sleep(60)
"""


@pytest.fixture
def project(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_box.py").write_text(textwrap.dedent(TESTS), encoding="utf-8")
    return tmp_path


@pytest.mark.slow
def test_results_come_back_as_node_ids_and_the_folder_is_left_as_it_was(project):
    xml = project.parent / "results.xml"
    args = [*pytestrun.junit_args(xml), "tests/test_box.py", "-k", "not hangs"]
    done = pytestrun.run(project, args, timeout=60)
    cases = {
        pytestrun.junit_nodeid(c): c.find("failure") is not None for c in pytestrun.junit_cases(xml)
    }
    assert (done.returncode, cases) == (
        1,
        {"tests/test_box.py::TestBox::test_fails": True, "tests/test_box.py::test_passes": False},
    )
    assert "1 failed, 1 passed" in done.tail
    written = sorted(p.name for p in project.rglob("*") if p.is_file())
    assert written == ["test_box.py"]  # no .pytest_cache, no __pycache__


@pytest.mark.slow
def test_a_run_past_its_timeout_is_killed(project):
    process = pytestrun.start(project, ["tests/test_box.py::test_hangs"])
    with pytest.raises(subprocess.TimeoutExpired):
        pytestrun.finish(process, timeout=3)
    assert process.returncode is not None  # killed and reaped, not left running
