"""The warning when a baseline's tests ran and coverage recorded nothing of the source."""

from __future__ import annotations

from pathlib import Path

from guardcheck.lab.execute.baseline import unmeasured_warning


def test_tests_that_ran_with_nothing_of_the_source_measured_are_named_with_the_fix(tmp_path):
    """Issue 22 (parse 1.20.2): a source coverage.py could not measure gave 1,244
    `no-coverage` verdicts of 1,245 in silence; now the run says why they will come."""
    warning = unmeasured_warning({}, {}, [str(tmp_path / "parse.py")], tmp_path)
    assert warning is not None
    assert "recorded no line of the source (parse.py)" in warning
    assert "fix: point [tool.guardcheck] source at" in warning


def test_a_measured_line_or_an_unfollowed_test_needs_no_warning(tmp_path: Path):
    source = [str(tmp_path / "pkg")]
    measured = {"pkg/m.py": {3: frozenset({"t.py::a"})}}
    assert unmeasured_warning(measured, {}, source, tmp_path) is None
    # A test whose processes coverage could not see into is selected anyway.
    assert unmeasured_warning({}, {"t.py::a": "python -S"}, source, tmp_path) is None
    # Files measured with no line at all still say nothing ran.
    assert unmeasured_warning({"pkg/m.py": {}}, {}, source, tmp_path) is not None
