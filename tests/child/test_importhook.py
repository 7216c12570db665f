"""ServedModules (child/importhook.py): a module served from memory, in this process."""

from __future__ import annotations

import importlib
import linecache
import pkgutil
import runpy
import sys
from collections.abc import Iterator
from importlib.machinery import SourceFileLoader
from importlib.resources import files
from pathlib import Path

import pytest

from guardcheck.child.importhook import ServedModules

ORIGINAL = "def add(a, b):\n    return a + b\n"
MUTATED = "def add(a, b):\n    return a - b\n"


@pytest.fixture
def package(tmp_path: Path) -> Iterator[Path]:
    """servedpkg/ with calc.py and other.py on sys.path; imports and finders undone after."""
    folder = tmp_path / "servedpkg"
    folder.mkdir()
    (folder / "__init__.py").write_text("")
    (folder / "calc.py").write_text(ORIGINAL)
    (folder / "other.py").write_text("VALUE = 1\n")
    path, finders = list(sys.path), list(sys.meta_path)
    sys.path.insert(0, str(tmp_path))
    try:
        yield folder
    finally:
        sys.path[:], sys.meta_path[:] = path, finders
        for name in [n for n in sys.modules if n.split(".")[0] == "servedpkg"]:
            del sys.modules[name]
        importlib.invalidate_caches()


def test_a_served_module_runs_the_text_from_memory_and_records_it(package):
    real = str((package / "calc.py").resolve())
    ran: list[str] = []
    served = ServedModules({real: MUTATED}, on_exec=ran.append)
    served.install()
    calc = importlib.import_module("servedpkg.calc")
    assert calc.add(2, 3) == -1
    assert served.executed == [real]
    assert ran == [real]
    assert calc.__file__ == str(package / "calc.py")  # the spec is the real one
    assert (package / "calc.py").read_text() == ORIGINAL  # nothing written over it
    # Tracebacks show the mutated text: linecache holds it under the real filename.
    assert linecache.getline(str(package / "calc.py"), 2) == "    return a - b\n"


def test_no_bytecode_is_written_for_a_served_module(package, monkeypatch):
    monkeypatch.setattr(sys, "dont_write_bytecode", False)  # as in a user's plain run
    real = str((package / "calc.py").resolve())
    ServedModules({real: MUTATED}).install()
    importlib.import_module("servedpkg.calc")
    written = sorted(p.name.split(".")[0] for p in (package / "__pycache__").iterdir())
    assert written == ["__init__"]  # the package itself came from disk; calc did not


def test_a_code_object_can_be_served_and_other_modules_import_from_disk(package):
    real = str((package / "calc.py").resolve())
    code = compile(MUTATED.replace("a - b", "a * b"), real, "exec")
    served = ServedModules({real: code})
    served.install()
    other = importlib.import_module("servedpkg.other")
    calc = importlib.import_module("servedpkg.calc")
    assert other.VALUE == 1  # not ours: left to the normal finders
    assert calc.add(2, 3) == 6
    assert served.executed == [real]
    assert isinstance(other.__loader__, SourceFileLoader)  # the path finder's own
    assert calc.__loader__.get_source("servedpkg.calc") == ORIGINAL  # no text given: the file


def test_a_module_nobody_imports_is_never_recorded_as_executed(package):
    served = ServedModules({str((package / "calc.py").resolve()): MUTATED})
    served.install()
    importlib.import_module("servedpkg.other")
    assert served.executed == []


def test_a_served_package_keeps_its_data_files(package):
    """Issue 22 case 3: the served loader had no resource reader or get_data, so
    `importlib.resources` failed and `pkgutil.get_data` returned None under a mutant of
    `pkg/__init__.py`; by hand both read the package's real data file."""
    (package / "data.txt").write_text("hello\n")
    init = str((package / "__init__.py").resolve())
    ServedModules({init: "UNUSED = 2\n"}).install()
    pkg = importlib.import_module("servedpkg")
    assert pkg.UNUSED == 2
    assert files("servedpkg").joinpath("data.txt").read_text() == "hello\n"
    assert pkgutil.get_data("servedpkg", "data.txt") == b"hello\n"
    assert pkg.__loader__.is_package("servedpkg")


def test_run_module_executes_the_served_text_as_main(package):
    """Issue 22 case 4: `runpy.run_module` (what `python -m pkg.mod` does) raised
    "'ServedModules' object has no attribute 'get_code'"."""
    (package / "cli.py").write_text("RESULT = 'original'\n")
    real = str((package / "cli.py").resolve())
    ServedModules({real: "RESULT = __name__ + ' mutated'\n"}).install()
    namespace = runpy.run_module("servedpkg.cli", run_name="__main__")
    assert namespace["RESULT"] == "__main__ mutated"


def test_the_served_source_bytes_keep_the_files_encoding(package):
    """A file with a latin-1 coding cookie: `get_data` of the source path returns the
    mutated text in that encoding, as the file written by hand would hold it."""
    header = "# -*- coding: latin-1 -*-\n"
    (package / "calc.py").write_bytes((header + "NAME = 'caf\xe9'\n").encode("latin-1"))
    real = str((package / "calc.py").resolve())
    ServedModules({real: header + "NAME = 'th\xe9'\n"}).install()
    calc = importlib.import_module("servedpkg.calc")
    assert calc.NAME == "th\xe9"
    raw = calc.__loader__.get_data(real)
    assert raw == (header + "NAME = 'th\xe9'\n").encode("latin-1")
