"""Which opens of a source file count as a test reading its text (child/sourcereads.py).

Each case runs in its own interpreter: an audit hook stays for the process's life.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

DRIVER = textwrap.dedent(
    """
    import importlib, inspect, json, sys, warnings
    from pathlib import Path

    sys.dont_write_bytecode = True
    sys.path.insert(0, sys.argv[1])
    from guardcheck.child.sourcereads import SourceReads

    reads = SourceReads([str(Path(sys.argv[1]) / "pkg")])
    reads.current = sys.argv[2]
    exec(sys.argv[3])
    print(json.dumps([reads.by_file(), reads.through_linecache()]))
    """
)


def _reads(tmp_path: Path, action: str, test: str = "tests/test_x.py::test_x") -> dict:
    return _both(tmp_path, action, test)[0]


def _both(tmp_path: Path, action: str, test: str = "tests/test_x.py::test_x") -> list[dict]:
    """Every read of the package's files, and those only through linecache (by file name)."""
    package = tmp_path / "pkg"
    package.mkdir(exist_ok=True)
    (package / "__init__.py").write_text("")
    (package / "mod.py").write_text(
        "import warnings\n\n\ndef f():\n    warnings.warn('old', DeprecationWarning)\n"
        "    return 1\n"
    )
    (tmp_path / "other.py").write_text("X = 1\n")
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, str(tmp_path), test, action],
        capture_output=True,
        text=True,
        check=True,
    )
    return [{Path(k).name: v for k, v in found.items()} for found in json.loads(done.stdout)]


def test_reading_a_source_files_text_is_a_read_by_the_running_test(tmp_path):
    found = _reads(tmp_path, "Path(sys.argv[1], 'pkg', 'mod.py').read_text()")
    assert found == {"mod.py": ["tests/test_x.py::test_x"]}


def test_inspect_getsource_reads_the_file(tmp_path):
    found = _reads(tmp_path, "import pkg.mod; inspect.getsource(pkg.mod.f)")
    assert found == {"mod.py": ["tests/test_x.py::test_x"]}


def test_a_read_through_linecache_is_a_read_that_a_mutants_run_serves_from_memory(tmp_path):
    """A traceback's source lines and `inspect.getsource` come through linecache, which a
    mutant's run fills with the mutated text: still a read (the test is selected), but one
    a pass in memory already made of the mutant, as by hand (found on jinja2 3.1.4)."""
    test = "tests/test_x.py::test_x"
    through_inspect = "import pkg.mod; inspect.getsource(pkg.mod.f)"
    assert _both(tmp_path, through_inspect) == [{"mod.py": [test]}, {"mod.py": [test]}]
    action = (  # f's warning as an error: a traceback with a frame in pkg/mod.py
        "import traceback, pkg.mod\n"
        "warnings.simplefilter('error')\n"
        "try:\n    pkg.mod.f()\n"
        "except DeprecationWarning as exc:\n"
        "    traceback.format_exception(exc)\n"
    )
    assert _both(tmp_path, action) == [{"mod.py": [test]}, {"mod.py": [test]}]


def test_a_direct_read_is_not_one_through_linecache_even_beside_one(tmp_path):
    test = "tests/test_x.py::test_x"
    action = (
        "import pkg.mod; inspect.getsource(pkg.mod.f)\n"
        "Path(sys.argv[1], 'pkg', 'mod.py').read_text()"
    )
    assert _both(tmp_path, action) == [{"mod.py": [test]}, {}]


def test_an_import_is_no_read(tmp_path):
    """Its code runs, so coverage selects the test already; a read would select it for
    every mutant of the file."""
    assert _reads(tmp_path, "import pkg.mod; importlib.reload(pkg.mod)") == {}


def test_a_warnings_source_line_is_no_read(tmp_path):
    """Formatting a warning quotes its line from the file: that says nothing about the text."""
    action = (
        "import pkg.mod\n"
        "with warnings.catch_warnings(record=True) as seen:\n"
        "    warnings.simplefilter('always')\n"
        "    pkg.mod.f()\n"
        "warnings.formatwarning(seen[0].message, seen[0].category, seen[0].filename,"
        " seen[0].lineno)"
    )
    assert _reads(tmp_path, action) == {}


def test_files_outside_the_source_and_reads_outside_a_test_are_not_recorded(tmp_path):
    assert _reads(tmp_path, "Path(sys.argv[1], 'other.py').read_text()") == {}
    assert _reads(tmp_path, "Path(sys.argv[1], 'pkg', 'mod.py').read_text()", test="") == {}


def test_the_interpreter_opening_its_own_script_is_no_read_and_still_runs(tmp_path):
    """Regression: Python opens `python pkg/mod.py`'s script with no caller frame; the hook
    asked for one, raised, and so failed the open ("can't open file ... Invalid argument"),
    which broke every test that runs a source file as a script in a followed process."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "mod.py").write_text("print('ran')\n")
    site = tmp_path / "site"
    site.mkdir()
    # A startup hook, as the follower installs one: it is in place before the script opens.
    (site / "sitecustomize.py").write_text(
        "import atexit, json, sys\n"
        "from guardcheck.child.sourcereads import SourceReads\n"
        f"reads = SourceReads([{str(package)!r}])\n"
        "reads.current = 'tests/test_x.py::test_x'\n"
        "atexit.register(lambda: print(json.dumps(reads.by_file())))\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), *sys.path])}
    done = subprocess.run(
        [sys.executable, str(package / "mod.py")], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["ran", "{}"]
