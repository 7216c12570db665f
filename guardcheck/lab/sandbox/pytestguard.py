"""Keeps the user's own pytest out of guardcheck's output folder.

The output folder (`.guardcheck/` by default) holds the private copy of the project,
tests included. pytest skips folders whose names start with a dot only through the
default `norecursedirs`; a project that sets its own (`norecursedirs = dist build
.tox`, as jaraco's many packages do) makes a plain `pytest` from the project collect
the copy's tests as well: the suite runs twice, or fails on import-file mismatches.

Two markers, since no one works on every pytest:
- `pyvenv.cfg`: pytest 8.3 and later never enter a folder that has one (a virtualenv,
  PEP 405), whatever the import mode, and load nothing from it. The file says it is
  not one.
- `conftest.py`, for older pytest (or `--collect-in-virtualenv`): its
  `pytest_ignore_collect` leaves the folder alone. pytest imports it as the module
  `conftest` and may put the folder on sys.path; it undoes both. It cannot help where
  pytest fails to import it at all: `--import-mode=append` beside a conftest.py at the
  project's root, and `--import-mode=importlib` before pytest 8.1 (a module name from
  a folder named with a dot). Those collected the copy, and failed, before it too.

guardcheck's own sessions run inside the copy, whose rootdir (and so pytest's
`confcutdir`) lies below both: pytest never reads them there. The conftest checks
anyway, and ignores nothing for a session rooted inside the output folder.
"""

from __future__ import annotations

from pathlib import Path

CONFTEST = "conftest.py"
MARKER = "# written by guardcheck: keeps pytest from collecting this output folder"

TEXT = f"""{MARKER}
# tree/ holds a private copy of the project, tests included: a project whose pytest
# `norecursedirs` no longer skips folders named with a dot would collect it again.
# pytest imports this file as the top-level module `conftest` and, in its default import
# mode, puts this folder first on sys.path; both are undone, so that the project's own
# conftest.py and imports resolve as they do without this folder.
import os
import sys

_HERE = os.path.dirname(os.path.realpath(__file__))

if sys.path and os.path.realpath(sys.path[0] or os.curdir) == _HERE:
    del sys.path[0]


def _inside(path):
    return os.path.commonpath([_HERE, os.path.realpath(str(path))]) == _HERE


def pytest_plugin_registered(plugin, manager):
    if __name__ != "conftest" or plugin is not sys.modules.get("conftest"):
        return
    if getattr(plugin, "__file__", None) != __file__:
        return
    # The conftest module pytest imported before this one is the `conftest` it replaced.
    earlier = [
        other
        for _, other in manager.list_name_plugin()
        if getattr(other, "__name__", None) == "conftest" and other is not plugin
    ]
    if earlier:
        sys.modules["conftest"] = earlier[-1]
    else:
        del sys.modules["conftest"]


def pytest_ignore_collect(collection_path, config):
    if _inside(config.rootpath):
        return None  # guardcheck's own session, in the private copy
    return True if _inside(collection_path) else None
"""


PYVENV_CFG = "pyvenv.cfg"
PYVENV_TEXT = f"""{MARKER}
# Not a virtual environment: pytest (8.3 and later) does not collect a folder that has
# this file, and this folder holds a private copy of the project's tests.
"""


def keep_pytest_out(output_dir: Path) -> None:
    """Write the output folder's pyvenv.cfg and conftest.py, unless they are there.

    A file of either name that guardcheck did not write is left alone (the folder is
    the user's choice of `output`; guardcheck rewrites only what is its own)."""
    for name, text in ((PYVENV_CFG, PYVENV_TEXT), (CONFTEST, TEXT)):
        _write_ours(output_dir / name, text)


def _write_ours(path: Path, text: str) -> None:
    try:
        current = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        current = None
    if current == text or (current is not None and not current.startswith(MARKER)):
        return
    path.write_text(text, encoding="utf-8")
