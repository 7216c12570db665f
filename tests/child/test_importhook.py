"""ServedModules (child/importhook.py): a module served from memory, in this process."""

from __future__ import annotations

import importlib
import linecache
import sys
from collections.abc import Iterator
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
    assert served.get_source("servedpkg.calc") is None  # a code object has no text
    assert served.get_source("servedpkg.other") is None


def test_a_module_nobody_imports_is_never_recorded_as_executed(package):
    served = ServedModules({str((package / "calc.py").resolve()): MUTATED})
    served.install()
    importlib.import_module("servedpkg.other")
    assert served.executed == []
