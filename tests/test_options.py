"""`[tool.guardcheck]` settings: the keys guardcheck run reads, and the values it refuses."""

from __future__ import annotations

import pytest

from guardcheck.errors import GuardcheckError
from guardcheck.options import load_options


def write_pyproject(tmp_path, body: str) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.guardcheck]\n" + body, encoding="utf-8")


def test_baseline_runs_defaults_to_one(tmp_path):
    write_pyproject(tmp_path, "")
    assert load_options(tmp_path).baseline_runs == 1


def test_baseline_runs_is_read(tmp_path):
    write_pyproject(tmp_path, "baseline_runs = 3\n")
    assert load_options(tmp_path).baseline_runs == 3


@pytest.mark.parametrize("value", ["0", "-1", "1.5", "true", '"2"'])
def test_baseline_runs_must_be_a_whole_number_of_at_least_one(tmp_path, value):
    write_pyproject(tmp_path, f"baseline_runs = {value}\n")
    with pytest.raises(GuardcheckError, match="baseline_runs must be a whole number >= 1"):
        load_options(tmp_path)
