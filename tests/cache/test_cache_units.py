"""The cache's pure parts: keys, the compact codec, the checked store."""

from __future__ import annotations

import json
from pathlib import Path

from guardcheck.cache import ResultCache, codec
from guardcheck.cache.store import Store
from guardcheck.model import (
    ChildOutcome,
    ExecutionPath,
    FileChange,
    Mutant,
    MutantResult,
    Selection,
    Status,
    TestOutcome,
    TestResult,
    Where,
)
from guardcheck.options import RunOptions

ORIGINAL = "def f(x):\n    return x + 1\n"


def mutant(mutated: str = "def f(x):\n    return x - 1\n", **fields) -> Mutant:
    change = FileChange("pkg/m.py", ORIGINAL, mutated, Where("pkg/m.py", 2))
    return Mutant(fields.pop("id", "m"), "minus", (change,), **fields)


def result(m: Mutant) -> MutantResult:
    killer = TestResult("tests/test_m.py::test_a", TestOutcome.FAILED, 0.25, "assert 0 == 2")
    selection = (
        Selection("tests/test_m.py::test_a", True, "executes pkg/m.py:2"),
        *(Selection(f"tests/test_o.py::test_{i}", False, "does not execute") for i in range(50)),
        Selection("tests/test_z.py::test_z", True, "executes pkg/m.py:2"),
    )
    outcome = ChildOutcome(tests=(killer,), evidence=True)
    return MutantResult(
        m, Status.CAUGHT, "tests/test_m.py::test_a", (killer,), selection,
        ExecutionPath.FORK, 0.5, outcome,
    )  # fmt: skip


def test_the_codec_round_trips_a_result_and_stores_its_selection_as_a_few_runs():
    original = result(mutant())
    digest, nodeids = codec.nodeids_blob(original.selection)
    encoded = json.loads(json.dumps(codec.encode(original, digest)))
    assert len(encoded["selection"]["runs"]) == 3  # not 52 rows
    assert codec.decode(encoded, original.mutant, nodeids) == original


def test_the_store_believes_only_an_entry_of_its_own_format_version_kind_and_key(tmp_path):
    store = Store(tmp_path)
    store.write("mutant", "ab" * 32, {"x": 1})
    assert store.read("mutant", "ab" * 32) == {"x": 1}
    assert store.read("baseline", "ab" * 32) is None  # another kind: a miss, no file
    path = store.path("mutant", "ab" * 32)
    moved = store.path("mutant", "cd" * 32)
    moved.parent.mkdir(parents=True)
    path.rename(moved)  # renamed: its stored key no longer matches its name
    assert store.read("mutant", "cd" * 32) is None
    assert not moved.exists()
    moved.write_text(json.dumps({"format": 1, "guardcheck": "0.0.0", "kind": "mutant",
                                 "key": "cd" * 32, "body": {}}))  # fmt: skip
    assert store.read("mutant", "cd" * 32) is None  # another guardcheck's entry
    assert len(store.warnings) == 2
    assert not list(tmp_path.rglob(".tmp-*"))  # atomic writes leave no temporary files


def project(tmp_path: Path) -> RunOptions:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "tests").mkdir()
    (tmp_path / "pkg" / "m.py").write_text(ORIGINAL)
    (tmp_path / "pkg" / "other.py").write_text("X = 1\n")
    (tmp_path / "tests" / "test_m.py").write_text("def test_a(): pass\n")
    (tmp_path / "tests" / "data.txt").write_text("1\n")
    return RunOptions(root=tmp_path, tests=("tests",))


def test_a_key_follows_content_not_ids_positions_or_unrelated_files(tmp_path):
    options = project(tmp_path)
    before = ResultCache(options)
    key = before.key(mutant())
    assert ResultCache(options).key(mutant()) == key  # stable across runs
    assert before.key(mutant(declared_at=Where("mutations/x.toml", 40))) == key  # position
    (tmp_path / "README.md").write_text("docs\n")  # not read by any test
    (tmp_path / ".guardcheck").mkdir()
    (tmp_path / ".guardcheck" / "x.py").write_text("scratch\n")  # the output folder
    assert ResultCache(options).key(mutant()) == key
    assert ResultCache(options).world == before.world


def test_a_key_changes_with_the_mutated_text_the_tests_their_data_and_the_options(tmp_path):
    options = project(tmp_path)
    key = ResultCache(options).key(mutant())
    assert ResultCache(options).key(mutant("def f(x):\n    return x * 1\n")) != key
    assert ResultCache(options).key(mutant(killed_by=("tests/test_m.py::test_a",))) != key
    slower = options.with_overrides(timeout_constant=9.0)
    assert ResultCache(slower).key(mutant()) != key
    for path, text in [("tests/data.txt", "2\n"), ("pkg/other.py", "X = 2\n")]:
        (tmp_path / path).write_text(text)
        changed = ResultCache(options).key(mutant())
        assert changed != key
        key = changed
