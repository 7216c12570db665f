"""Issue 8 §A4: code that ran before the first test cannot be swapped into a fork.

The host records which functions of the source roots ran at import and
collection (child/importwatch.py); once collection is over the lab moves every
FORK mutant whose changed code is among them to a fresh interpreter
(lab/prepare/classify.py::after_collection).
"""

from __future__ import annotations

import contextlib
import importlib
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from guardcheck.child.importwatch import ImportWatch
from guardcheck.lab.prepare.classify import after_collection, classify
from guardcheck.messages import RanFunction
from guardcheck.model import ExecutionPath, FileChange, Mutant, Where

SOURCE = textwrap.dedent(
    """\
    import functools


    @functools.lru_cache
    def cached(x):
        return x**2


    WARM = cached(4)


    def build_table():
        return [n * 2 for n in range(4)]


    TABLE = build_table()


    def later(x):
        return x + 1


    def make_key():
        return lambda v: v * 2


    KEY = make_key()


    def later_key():
        return lambda v: v


    def scaled(factor=2):
        return factor * 10


    SCALED = scaled()
    """
)


def mutant(find: str, replace: str) -> Mutant:
    assert SOURCE.count(find) == 1, find
    change = FileChange("pkg/core.py", SOURCE, SOURCE.replace(find, replace), Where("m.py", 1))
    return Mutant("m", "m", (change,))


Watched = tuple[list[RanFunction] | None, dict[str, list[int]] | None]


@contextlib.contextmanager
def watching_import(root: Path, files: dict[str, str], module: str) -> Iterator[Watched]:
    """What an ImportWatch saw of the import of `module` from `files` written into root/pkg:
    the functions that ran, and the lines."""
    (root / "pkg").mkdir()
    (root / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    for name, text in files.items():
        (root / "pkg" / name).write_text(text, encoding="utf-8")
    sys.path.insert(0, str(root))
    watch = ImportWatch(str(root), [str(root / "pkg")])
    previous, tracer = sys.getprofile(), sys.gettrace()
    # a coverage or debugger hook in our own run would hide us
    sys.setprofile(None)
    sys.settrace(None)
    try:
        watch.start()
        try:
            importlib.import_module(module)
        finally:
            ran = watch.stop()
        yield ran, watch.lines
    finally:
        sys.setprofile(previous)
        sys.settrace(tracer)
        sys.path.remove(str(root))
        for name in [n for n in sys.modules if n == "pkg" or n.startswith("pkg.")]:
            sys.modules.pop(name, None)


@pytest.fixture
def imported(tmp_path) -> Iterator[list[RanFunction]]:
    """What the watch saw while SOURCE was imported as pkg.core from tmp_path."""
    with watching_import(tmp_path, {"core.py": SOURCE}, "pkg.core") as (ran, _):
        assert ran is not None
        yield ran


def test_the_watch_records_what_ran_at_import_and_nothing_else(imported):
    names = {(r.path, r.qualname) for r in imported}
    assert ("pkg/core.py", "cached") in names
    assert ("pkg/core.py", "build_table") in names
    assert ("pkg/core.py", "build_table.<locals>.<listcomp>") in names
    assert ("pkg/core.py", "later") not in names  # defined, never called
    assert all(r.path.startswith("pkg/") for r in imported)  # functools is not a source root


@pytest.mark.parametrize(
    ("find", "replace", "function"),
    [
        ("x**2", "x**3", "cached"),
        ("n * 2", "n * 3", "build_table.<locals>.<listcomp>"),
        # Issue 10: a removed lambda is on the fork path only if none can be alive.
        ("return lambda v: v * 2", "return None", "make_key"),
        # Issue 10: new default values are set on the live function, too late for a call
        # at import (SCALED keeps the original's result).
        ("factor=2", "factor=3", "scaled"),
    ],
)
def test_a_change_to_code_that_ran_at_import_takes_the_fresh_path(
    tmp_path, imported, find, replace, function
):
    activation = classify(mutant(find, replace), tmp_path)
    assert activation.mode is ExecutionPath.FORK  # as far as the text alone can tell
    moved = after_collection(activation, imported)
    assert moved.mode is ExecutionPath.FRESH
    assert moved.why == (
        f"pkg/core.py: {function} ran at import or collection time "
        "(its results would outlive a code swap)"
    )


@pytest.mark.parametrize(
    ("find", "replace"), [("x + 1", "x - 1"), ("return lambda v: v\n", "return None\n")]
)
def test_a_change_to_code_that_did_not_run_before_the_tests_keeps_the_fork(
    tmp_path, imported, find, replace
):
    activation = classify(mutant(find, replace), tmp_path)
    assert activation.mode is ExecutionPath.FORK
    assert after_collection(activation, imported) is activation


def test_a_same_named_function_elsewhere_does_not_count(tmp_path):
    activation = classify(mutant("x**2", "x**3"), tmp_path)
    elsewhere = [RanFunction("pkg/other.py", "cached", 4), RanFunction("pkg/core.py", "cached", 9)]
    assert after_collection(activation, elsewhere).mode is ExecutionPath.FORK


def test_when_the_host_could_not_watch_every_fork_mutant_goes_fresh(tmp_path):
    activation = classify(mutant("x + 1", "x - 1"), tmp_path)
    moved = after_collection(activation, None)
    assert moved.mode is ExecutionPath.FRESH
    assert "could not watch import and collection" in moved.why


def test_an_already_fresh_mutant_keeps_its_own_reason(tmp_path):
    activation = classify(mutant("WARM = cached(4)", "WARM = cached(5)"), tmp_path)
    assert activation.mode is ExecutionPath.FRESH
    assert after_collection(activation, []) is activation


def test_the_watch_steps_aside_when_another_profiler_is_installed(tmp_path):
    watch = ImportWatch(str(tmp_path), [str(tmp_path)])
    previous = sys.getprofile()
    sys.setprofile(lambda frame, event, arg: None)
    try:
        watch.start()
        assert watch.stop() is None  # unknown, so the lab must assume the worst
    finally:
        sys.setprofile(previous)


def test_a_root_outside_the_sources_is_not_reported(tmp_path: Path):
    watch = ImportWatch(str(tmp_path), [str(tmp_path / "src")])
    watch.start()
    ran = watch.stop()
    assert ran is not None
    assert ran == []  # this test's own code lives outside tmp_path/src


def test_a_function_that_only_one_test_files_collection_ran_is_that_files(tmp_path, imported):
    """Issue 22 (speed): a helper building one test file's parametrize list sent each of
    its mutants to a fresh interpreter running every test of the suite (isodate's
    parse_duration: 164 of 317 mutants). What it computed then lives in that file."""
    core = importlib.import_module("pkg.core")
    later = RanFunction("pkg/core.py", "later", core.later.__code__.co_firstlineno, "t/test_x.py")
    activation = classify(mutant("x + 1", "x - 1"), tmp_path)
    moved = after_collection(activation, [*imported, later])
    assert moved.mode is ExecutionPath.FRESH
    assert moved.collected_in == ("t/test_x.py",)
    assert moved.why == (
        "pkg/core.py: later ran while pytest collected t/test_x.py "
        "(its results would outlive a code swap)"
    )
    elsewhere_too = after_collection(activation, [*imported, later, replace(later, during="")])
    assert elsewhere_too.collected_in is None
    assert "ran at import or collection time" in elsewhere_too.why


def test_the_watch_tells_which_test_files_collection_ran_a_function(tmp_path, imported):
    """A window that imports another project module for the first time is everyone's:
    that module's top-level code may have called the function for all tests."""
    core = importlib.import_module("pkg.core")
    (tmp_path / "pkg" / "extra.py").write_text(
        "from pkg import core\n\nEXTRA = core.later_key()\n", encoding="utf-8"
    )
    test_file = tmp_path / "t" / "test_x.py"
    watch = ImportWatch(str(tmp_path), [str(tmp_path / "pkg")])
    previous = sys.getprofile()
    sys.setprofile(None)
    try:
        watch.start()
        watch.enter("t/test_x.py", str(test_file))
        core.later(1)
        watch.leave()
        watch.enter("t/test_y.py", str(tmp_path / "t" / "test_y.py"))
        importlib.import_module("pkg.extra")
        watch.leave()
        core.scaled()
        ran = watch.stop()
    finally:
        sys.setprofile(previous)
        sys.modules.pop("pkg.extra", None)
    assert ran is not None
    during = {(r.qualname, r.during) for r in ran}
    assert ("later", "t/test_x.py") in during
    assert ("later_key", "") in during  # run by pkg.extra's import, in t/test_y.py's window
    assert ("scaled", "") in during
    assert not any(r.during == "t/test_y.py" for r in ran)


BRANCHES = textwrap.dedent(
    """\
    def magnitude(x):
        if x >= 0:
            return x
        return -x


    AT_IMPORT = magnitude(3)
    """
)


def test_a_statement_the_import_never_reached_keeps_the_fork(tmp_path):
    """Issue 22 (speed): a function that ran at import sent every mutant of it to a fresh
    interpreter, even in a branch the import never took (isodate's parse_duration: 81
    of its 164 fresh mutants). Only the statements that ran then make a mutant fresh."""
    files = {"core.py": BRANCHES}
    with watching_import(tmp_path, files, "pkg.core") as (ran, lines):
        assert lines is not None
        assert lines["pkg/core.py"] == [1, 2, 3, 7]  # the def, the test, the first return

    def moved(find: str, replace: str) -> ExecutionPath:
        change = FileChange(
            "pkg/core.py", BRANCHES, BRANCHES.replace(find, replace), Where("m.py", 1)
        )
        activation = classify(Mutant("m", "m", (change,)), tmp_path)
        assert activation.mode is ExecutionPath.FORK
        return after_collection(activation, ran, lines).mode

    assert moved("return -x", "return x") is ExecutionPath.FORK
    assert moved("x >= 0", "x > 0") is ExecutionPath.FRESH
    assert moved("return x\n", "return x + 1\n") is ExecutionPath.FRESH
    # Without the lines, the function having run is all that is known.
    change = FileChange("pkg/core.py", BRANCHES, BRANCHES.replace("-x", "x"), Where("m.py", 1))
    activation = classify(Mutant("m", "m", (change,)), tmp_path)
    assert after_collection(activation, ran, None).mode is ExecutionPath.FRESH


def test_a_generator_left_paused_at_import_makes_its_file_unknown(tmp_path):
    """A generator started at import runs its original code on when resumed in a test,
    past lines that had not run yet: its file's lines are not reported, so every mutant
    of a function that ran then stays fresh."""
    paused = "def count():\n    yield 1\n    yield 2\n\n\nCOUNTER = count()\nnext(COUNTER)\n"
    files = {"core.py": BRANCHES, "paused.py": paused, "both.py": "from . import core, paused\n"}
    with watching_import(tmp_path, files, "pkg.both") as (_, lines):
        assert lines is not None
        assert "pkg/core.py" in lines
        assert "pkg/paused.py" not in lines
