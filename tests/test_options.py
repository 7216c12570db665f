"""RunOptions: the `[tool.guardcheck]` keys it reads, the values it refuses, and how each
field is described and classified (options.py's `Setting`)."""

from __future__ import annotations

import os
from dataclasses import field, fields, make_dataclass
from pathlib import Path

import pytest

from guardcheck.cache.keys import KEYED_FIELDS
from guardcheck.errors import GuardcheckError
from guardcheck.lab.plan import plan_mutant
from guardcheck.model import BaselineTest, FileChange, Mutant, Where
from guardcheck.options import (
    READERS,
    SETTINGS,
    Effect,
    RunOptions,
    fields_with,
    load_options,
    settings_of,
)
from guardcheck.provenance import VERDICT_FIELDS


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


def test_every_field_is_classified_and_a_field_without_a_setting_is_refused():
    """Regression: the known keys, readers and the cache's and provenance's field lists were
    four hand-kept lists that drifted (memory_limit_mb was in neither key list)."""
    assert set(SETTINGS) == {f.name for f in fields(RunOptions)}
    assert all(isinstance(described.effect, Effect) for described in SETTINGS.values())
    unclassified = make_dataclass(
        "Later", [("retries", int, field(default=0))], bases=(RunOptions,), frozen=True
    )
    with pytest.raises(TypeError, match=r"Later field\(s\) without a Setting: retries;"):
        settings_of(unclassified)


def test_the_derived_lists_follow_the_classification():
    assert READERS.keys() == {n for n, s in SETTINGS.items() if s.reader is not None}
    assert fields_with(Effect.VERDICT) == KEYED_FIELDS  # not a hand-kept list
    assert "memory_limit_mb" in KEYED_FIELDS
    assert set(KEYED_FIELDS) < set(VERDICT_FIELDS)
    assert set(VERDICT_FIELDS) - set(KEYED_FIELDS) == set(fields_with(Effect.SELECTION))


@pytest.mark.parametrize("key", ["matrix", "only", "shard", "cache", "origin", "root"])
def test_a_command_line_or_api_only_field_is_not_a_config_key(tmp_path, key):
    write_pyproject(tmp_path, f"{key} = 1\n")
    with pytest.raises(GuardcheckError, match=f"unknown key `{key}` in \\[tool.guardcheck\\]"):
        load_options(tmp_path)


def test_every_config_key_is_read_by_its_own_reader(tmp_path):
    write_pyproject(tmp_path, 'jobs = 3\noutput = "out"\nmemory_limit_mb = 0\nexclude = "x/*"\n')
    options = load_options(tmp_path)
    assert (options.jobs, options.output) == (3, Path("out"))
    assert (options.memory_limit_mb, options.exclude) == (0, ("x/*",))


def test_help_shows_the_default_the_dataclass_holds():
    assert RunOptions.help_for("timeout_factor").endswith("baseline time (default: 2.0).")
    assert RunOptions.help_for("catalogue").endswith("(default: ['mutations']).")
    assert RunOptions.help_for("jobs") == "Parallel mutant workers (default: number of CPUs)."
    assert "(default" not in RunOptions.help_for("matrix")  # a flag: off unless given


def test_jobs_none_means_one_worker_per_cpu(tmp_path):
    assert RunOptions(root=tmp_path).workers == max(1, os.cpu_count() or 1)
    assert RunOptions(root=tmp_path, jobs=3).workers == 3


def test_planning_without_a_timeout_uses_the_options_defaults():
    """Regression: the 2.0 timeout factor was written in options.py and in lab/plan.py."""
    change = FileChange("m.py", "x = a + b\n", "x = a - b\n", Where("m.py", 1))
    mutant = Mutant("minus", "a - b", (change,))
    baseline = [BaselineTest("t.py::test_a", 1.5, "t.py")]
    coverage = {"m.py": {1: frozenset({"t.py::test_a"})}}
    plan = plan_mutant(mutant, baseline, coverage)
    defaults = RunOptions(root=Path("."))
    assert plan.timeout == defaults.timeout_factor * 1.5 + defaults.timeout_constant
