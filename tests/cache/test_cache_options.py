"""Each RunOptions field, changed alone: does the cache re-run and does the provenance differ?

The answer follows options.py's classification (`Effect`): a verdict-relevant field
changes every cache key and the provenance's configuration; a field that picks which
mutants run changes only the provenance; the rest change neither.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from guardcheck.cache import ResultCache
from guardcheck.model import FileChange, Gate, Mutant, Where
from guardcheck.options import SETTINGS, Effect, RunOptions
from guardcheck.provenance import run_config

ORIGINAL = "def f(x):\n    return x + 1\n"
MUTANT = Mutant(
    "minus",
    "x - 1",
    (FileChange("pkg/m.py", ORIGINAL, "def f(x):\n    return x - 1\n", Where("pkg/m.py", 2)),),
)
VERDICT, SELECTION, NONE = Effect.VERDICT, Effect.SELECTION, Effect.NONE


def elsewhere(root: Path) -> Path:
    """The same project, byte for byte, in another folder."""
    return Path(shutil.copytree(root, root.parent / "elsewhere"))


# field -> (its value in the changed options, given the project root; its expected effect).
# A new RunOptions field fails test_every_field_has_a_change_here until it is added here.
CHANGES: dict[str, tuple[Callable[[Path], object], Effect]] = {
    "root": (elsewhere, NONE),
    "catalogue": (lambda root: (Path("more-mutations"),), SELECTION),
    "source": (lambda root: ("pkg",), VERDICT),
    "tests": (lambda root: ("tests/test_m.py",), VERDICT),
    "pytest_args": (lambda root: ("-p", "no:cacheprovider"), VERDICT),
    "output": (lambda root: Path("elsewhere-output"), NONE),
    "jobs": (lambda root: 7, NONE),
    "timeout_factor": (lambda root: 3.0, VERDICT),
    "timeout_constant": (lambda root: 9.0, VERDICT),
    "baseline_runs": (lambda root: 2, VERDICT),
    "baseline_timeout": (lambda root: 60.0, NONE),
    "memory_limit_mb": (lambda root: 2048, VERDICT),
    "exclude": (lambda root: ("pkg/other.py",), SELECTION),
    "mutate_arid": (lambda root: ("logging",), SELECTION),
    "matrix": (lambda root: True, VERDICT),
    "only": (lambda root: ("minus*",), SELECTION),
    "gate": (lambda root: Gate(fail_under=50.0), NONE),
    "shard": (lambda root: (2, 2), NONE),
    "shard_times": (lambda root: Path("times-b.json"), SELECTION),
    "cache": (lambda root: False, NONE),
    "origin": (lambda root: root.parent / "user-project", NONE),
}


def project(root: Path) -> RunOptions:
    """A project with two catalogues and two shard-time reports of different content."""
    for path, text in {
        "pkg/m.py": ORIGINAL,
        "pkg/other.py": "X = 1\n",
        "tests/test_m.py": "def test_a(): pass\n",
        "mutations/a.toml": "# a\n",
        "more-mutations/b.toml": "# b\n",
        "times-a.json": "{}\n",
        "times-b.json": "{ }\n",
    }.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    return RunOptions(root=root, tests=("tests",), shard=(1, 2), shard_times=Path("times-a.json"))


def test_every_field_has_a_change_here():
    assert set(CHANGES) == set(SETTINGS)


@pytest.mark.parametrize("name", list(CHANGES))
def test_a_changed_field_re_runs_and_is_recorded_as_its_classification_says(tmp_path, name):
    """Regression: memory_limit_mb was in no key, so a changed limit replayed old verdicts."""
    value, expected = CHANGES[name]
    base = project(tmp_path / "project")
    changed = base.with_overrides(**{name: value(base.root)})
    assert SETTINGS[name].effect is expected
    key_differs = ResultCache(changed).key(MUTANT) != ResultCache(base).key(MUTANT)
    recorded_differs = run_config(changed, [MUTANT]) != run_config(base, [MUTANT])
    assert (key_differs, recorded_differs) == {
        VERDICT: (True, True),
        SELECTION: (False, True),
        NONE: (False, False),
    }[expected]
