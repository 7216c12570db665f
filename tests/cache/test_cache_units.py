"""The cache's pure parts: keys, the compact codec, the checked store."""

from __future__ import annotations

import json
from pathlib import Path

from guardcheck import __version__
from guardcheck.cache import ResultCache, codec
from guardcheck.cache.deps import DependencyKeys, mutant_parts
from guardcheck.cache.files import project_digests
from guardcheck.cache.keys import code_digest
from guardcheck.cache.store import Store
from guardcheck.cache.units import units_of
from guardcheck.model import (
    BaselineTest,
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
    read_reason,
)
from guardcheck.options import RunOptions
from guardcheck.reports.record import encode_selection

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


def _packs(folder: Path) -> list[Path]:
    return sorted((folder / "packs").glob("*.jsonl"))


def _edit_line(folder: Path, key: str, edit) -> None:
    """Rewrite the stored line of entry `key`, as a crash, an old guardcheck or a person
    editing the file might have left it."""
    for pack in _packs(folder):
        lines = pack.read_text(encoding="utf-8").split("\n")
        changed = [edit(line) if f" {key} " in line else line for line in lines]
        pack.write_text("\n".join(changed), encoding="utf-8")


def test_the_store_believes_only_an_entry_of_its_own_format_version_kind_and_key(tmp_path):
    store = Store(tmp_path)
    for key in ("ab", "cd", "ef"):
        store.write("mutant", key * 32, {"x": key})
    assert store.read("mutant", "ab" * 32) == {"x": "ab"}
    assert store.read("baseline", "ab" * 32) is None  # another kind: a miss
    _edit_line(tmp_path, "cd" * 32, lambda line: line.replace('"key":"cd', '"key":"xx'))
    _edit_line(tmp_path, "ef" * 32, lambda line: line.replace(__version__, "0.0.0"))
    again = Store(tmp_path)
    assert again.read("mutant", "cd" * 32) is None  # its stored key is not its name
    assert again.read("mutant", "ef" * 32) is None  # another guardcheck's entry
    assert again.read("mutant", "ab" * 32) == {"x": "ab"}
    assert len(again.warnings) == 2
    assert again.entries() == [("mutant", "ab" * 32)]  # the discarded ones are forgotten


def test_a_half_written_last_line_is_not_an_entry(tmp_path):
    """A writer killed mid-line (or still writing) leaves a line without its newline:
    a reader ignores it, and the entries before it stand."""
    store = Store(tmp_path)
    store.write("mutant", "aa" * 32, {"n": 1})
    store.write("mutant", "bb" * 32, {"n": 2, "pad": "x" * 100})
    (pack,) = _packs(tmp_path)
    pack.write_bytes(pack.read_bytes()[:-40])
    again = Store(tmp_path)
    assert again.read("mutant", "aa" * 32) == {"n": 1}
    assert again.read("mutant", "bb" * 32) is None
    assert again.warnings == []  # not a bad entry: one not finished


def test_many_entries_written_at_once_are_all_there_and_marked_used(tmp_path):
    """write_many (what cache.Saver's thread calls): every entry lands whole, marked used,
    in one pack file rather than a file each."""
    store = Store(tmp_path)
    entries = [("mutant", f"{n:064x}", {"n": n, "pad": "x" * 2000}) for n in range(50)]
    store.write_many(entries)
    again = Store(tmp_path)
    assert [again.read(kind, key) for kind, key, _ in entries] == [e[2] for e in entries]
    assert store.used == {(kind, key) for kind, key, _ in entries}
    assert len(_packs(tmp_path)) == 1
    assert [p.name for p in tmp_path.rglob("*") if p.is_file()] == [_packs(tmp_path)[0].name]


def test_many_entries_that_cannot_be_written_are_warnings_not_a_crash(tmp_path, capsys):
    """A full or unusable disk loses the cache, never the run."""
    folder = tmp_path / "cache"
    folder.write_text("a file where the cache folder should be\n")
    Store(folder).write_many([("mutant", f"{n:064x}", {"n": n}) for n in range(20)])
    assert capsys.readouterr().err.count("not written") == 20
    assert folder.is_file()


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


def test_eviction_removes_what_the_last_run_did_not_use(tmp_path):
    """Issue 13 §1: nothing was ever evicted, so the cache grew with every project state."""
    earlier = Store(tmp_path / "cache")
    for key in ("aa1", "bb2", "cc3"):
        earlier.write("mutant", key, {"n": key})
    later = Store(tmp_path / "cache")
    assert later.read("mutant", "aa1") == {"n": "aa1"}
    later.write("mutant", "dd4", {"n": "dd4"})
    later.keep("mutant", "cc3")  # named by an entry it read: kept too
    assert later.evict_unused() == 1
    assert Store(tmp_path / "cache").entries() == [("mutant", k) for k in ("aa1", "cc3", "dd4")]
    assert len(_packs(tmp_path / "cache")) == 1  # the two packs became one


def test_eviction_leaves_a_pack_another_run_started_meanwhile(tmp_path):
    """Two runs may share the cache folder: one's eviction must not drop the entries the
    other is writing."""
    folder = tmp_path / "cache"
    first = Store(folder)
    first.write("mutant", "aa1", {"n": 1})
    other = Store(folder)
    other.write("mutant", "bb2", {"n": 2})  # its pack appears after `first` read the folder
    assert first.read("mutant", "aa1") == {"n": 1}
    first.evict_unused()
    assert Store(folder).entries() == [("mutant", "aa1"), ("mutant", "bb2")]


def test_eviction_removes_entries_of_the_earlier_one_file_layouts(tmp_path):
    """Entries were `<kind>/<key>.json`, and `<kind>/<key[:2]>/<key>.json` before that:
    never read now, so unused."""
    folder = tmp_path / "cache"
    nested = folder / "mutant" / "ee" / f"{'ee' * 32}.json"
    nested.parent.mkdir(parents=True)
    nested.write_text("{}")
    (folder / "mutant" / f"{'dd' * 32}.json").write_text("{}")
    store = Store(folder)
    store.write("mutant", "ff6", {"n": 1})
    assert store.evict_unused() == 2
    assert [p.relative_to(folder).parts[0] for p in folder.rglob("*")] == ["packs", "packs"]
    assert Store(folder).read("mutant", "ff6") == {"n": 1}


CALC = """\
LIMIT = 3


def double(x):
    return x * 2


class Box:
    def get(self):
        return LIMIT

    @property
    def size(self):
        return 1

    @size.setter
    def size(self, value):
        pass
"""


def test_units_split_a_module_into_function_bodies_and_the_import_time_rest():
    units = units_of(CALC)
    assert units is not None
    assert list(units.bodies) == ["double#0", "Box.get#0", "Box.size#0", "Box.size#1"]
    assert units.lines[5] == "double#0"
    assert 1 not in units.lines
    edited = units_of(CALC.replace("return x * 2", "y = x\n    return y * 2"))
    assert edited is not None
    assert edited.skeleton == units.skeleton  # a body edit leaves the skeleton alone
    assert edited.bodies["Box.get#0"] == units.bodies["Box.get#0"]
    assert edited.bodies["double#0"] != units.bodies["double#0"]
    constant = units_of(CALC.replace("LIMIT = 3", "LIMIT = 4"))
    assert constant is not None
    assert constant.skeleton != units.skeleton
    assert units_of("def broken(:\n") is None


def calc_mutant(original: str, find: str, replace: str) -> Mutant:
    change = FileChange("app/calc.py", original, original.replace(find, replace), Where("", 1))
    return Mutant("m", "s", (change,))


def dependency_key(
    root: Path, source: str, mutant: Mutant, tests: str = "", reason: str = "r"
) -> str:
    """`mutant`'s key (test_double selected) after a baseline where test_double ran the
    first line of double's body and test_box the first line of Box.get's."""
    (root / "app").mkdir(exist_ok=True)
    (root / "tests").mkdir(exist_ok=True)
    (root / "app" / "calc.py").write_text(source, encoding="utf-8")
    test_text = tests or "def test_double():\n    pass\n\n\ndef test_box():\n    pass\n"
    (root / "tests" / "test_calc.py").write_text(test_text, encoding="utf-8")
    digests = project_digests(root, ("tests",), root / ".guardcheck")
    t_double, t_box = "tests/test_calc.py::test_double", "tests/test_calc.py::test_box"
    baseline = [BaselineTest(t, 0.1, "tests/test_calc.py") for t in (t_double, t_box)]
    lines = source.splitlines()
    body_of = {
        name: lines.index(next(x for x in lines if name in x)) + 2
        for name in ("def double", "def get")
    }
    coverage = {
        "app/calc.py": {
            body_of["def double"]: frozenset({t_double}),
            body_of["def get"]: frozenset({t_box}),
        }
    }
    keys = DependencyKeys("env", root, digests, baseline, coverage)
    selection = tuple(Selection(t.nodeid, t.nodeid == t_double, reason) for t in baseline)
    return keys.mutant_key(mutant, selection)


def test_a_dependency_key_sees_only_what_the_selected_tests_ran(tmp_path):
    """Issue 13 §1: a mutant of double keeps its key when Box changes, not when double does."""

    def key(source: str, tests: str = "") -> str:
        return dependency_key(tmp_path, source, calc_mutant(source, "x * 2", "x + 2"), tests)

    before = key(CALC)
    assert key(CALC.replace("return 1\n", "return 2\n")) == before  # Box.size: not run
    assert key(CALC.replace("return x * 2", "y = x\n    return y * 2")) != before  # its own body
    assert key(CALC.replace("LIMIT = 3", "LIMIT = 4")) != before  # import-time text
    other_test = "def test_double():\n    pass\n\n\ndef test_box():\n    assert 1\n"
    assert key(CALC, other_test) == before  # another test's body
    own_test = "def test_double():\n    assert 1\n\n\ndef test_box():\n    pass\n"
    assert key(CALC, own_test) != before  # the selected test's body


def test_a_test_selected_for_reading_a_file_depends_on_all_of_its_text(tmp_path):
    """Regression (tests that read a source file's text are selected for its mutants):
    such a test reads every function of the file, so editing one it never ran must not
    restore the verdict of a mutant it was selected for."""

    def key(source: str, reason: str) -> str:
        mutant = calc_mutant(source, "x * 2", "x + 2")
        return dependency_key(tmp_path, source, mutant, reason=reason)

    edited = CALC.replace("return 1\n", "return 2\n")  # Box.size: run by no test
    reads = read_reason("app/calc.py")
    assert key(edited, reads) != key(CALC, reads)
    assert key(edited, "executes app/calc.py:5") == key(CALC, "executes app/calc.py:5")


def test_a_mutant_s_parts_follow_its_function_not_its_position():
    """Issue 13 §1: editing `f` shifts `g`'s offsets; `g`'s mutants must keep their key."""
    before = "def extra():\n    return 0\n\n\n" + CALC
    shifted = before.replace("return 0", "y = 0\n    return y")  # a body edit above double
    here = mutant_parts(splice_mutant(before, "x * 2", "x + 2"))
    assert mutant_parts(splice_mutant(shifted, "x * 2", "x + 2")) == here
    assert mutant_parts(splice_mutant(before, "x * 2", "x - 2")) != here
    # A change to import-time text (a splice outside every body) changes the skeleton.
    constant = mutant_parts(splice_mutant(before, "LIMIT = 3", "LIMIT = 4"))
    assert constant[-1].startswith("skeleton ")
    assert constant[-1] not in here


def splice_mutant(original: str, find: str, replace: str) -> Mutant:
    """A mutant with the splice the engine would record (FileChange derives it)."""
    start = original.index(find)
    mutated = original[:start] + replace + original[start + len(find) :]
    change = FileChange("app/calc.py", original, mutated, Where("app/calc.py", 1))
    return Mutant("m", "s", (change,))


def test_a_restored_selection_writes_the_same_compact_form_as_the_rows_it_holds():
    """Scale issue: restored selections carry their compact form so reports skip the
    row-by-row scan; what they write must equal what the plain rows would write."""
    original = result(mutant())
    digest, nodeids = codec.nodeids_blob(original.selection)
    back = codec.decode(codec.encode(original, digest), mutant(), tuple(nodeids))
    assert back.selection == original.selection
    assert encode_selection(back.selection, 0) == encode_selection(tuple(back.selection), 0)


def test_a_run_that_stores_nothing_new_rewrites_nothing(tmp_path):
    """Regression: a replayed sweep stored its unchanged selection entry again, which
    made a second pack and so a rewrite of the whole cache at every cached run."""
    folder = tmp_path / "cache"
    Store(folder).write_many([("mutant", "aa1", {"n": 1}), ("selection", "bb2", {"s": 2})])
    (pack,) = _packs(folder)
    again = Store(folder)
    assert again.read("mutant", "aa1") == {"n": 1}
    again.write("selection", "bb2", {"s": 2})  # the same body under the same key
    assert again.evict_unused() == 0
    assert _packs(folder) == [pack]


def test_the_code_digest_follows_every_python_file_of_the_package(tmp_path):
    """Regression guard: the cache keyed guardcheck by its version number alone, so a
    guardcheck changed in place (or installed from a branch) at the same version replayed
    verdicts its changed code might no longer give."""
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "a.py").write_text("A = 1\n")
    (package / "sub" / "b.py").write_text("B = 1\n")
    first = code_digest(package)
    other = tmp_path / "other"
    (other / "sub").mkdir(parents=True)
    (other / "a.py").write_text("A = 1\n")
    (other / "sub" / "b.py").write_text("B = 2\n")
    assert code_digest(other) != first
    (other / "sub" / "b.py").write_text("B = 1\n")
    (other / "notes.txt").write_text("not code")
    assert code_digest(other) == first
