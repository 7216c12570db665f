"""Which mutated files a module was already imported from (guardcheck/child/preloaded.py)."""

from __future__ import annotations

import importlib
import os
import sys
from pathlib import Path

import pytest

from guardcheck.child.preloaded import ImportsOf, imported_from, not_served_reason


def test_a_file_an_imported_module_came_from_is_found_by_its_real_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """Regression (pluggy 1.7.0 in the corpus): a module imported before a fresh run's
    import hook holds the original, and that run must say so instead of passing."""
    real = tmp_path / "real"
    real.mkdir()
    (real / "preloaded_probe_mod.py").write_text("VALUE = 1\n")
    (real / "never_imported_probe.py").write_text("VALUE = 2\n")
    linked = tmp_path / "linked"
    linked.symlink_to(real)
    monkeypatch.syspath_prepend(str(linked))
    monkeypatch.delitem(sys.modules, "preloaded_probe_mod", raising=False)
    module = importlib.import_module("preloaded_probe_mod")
    try:
        assert module.__file__ is not None
        assert module.__file__.startswith(str(linked))  # imported through the link
        wanted = [
            os.path.realpath(real / n)
            for n in ("preloaded_probe_mod.py", "never_imported_probe.py")
        ]
        assert imported_from(wanted) == [str(real / "preloaded_probe_mod.py")]
    finally:
        del sys.modules["preloaded_probe_mod"]


def test_nothing_is_found_when_no_module_came_from_the_files(tmp_path: Path):
    assert imported_from([str(tmp_path / "nowhere.py")]) == []


def test_the_reason_names_every_file():
    reason = not_served_reason(["/p/a.py", "/p/b.py"])
    assert reason.startswith("/p/a.py, /p/b.py was imported before guardcheck could serve")


def test_imports_of_finds_a_file_once_a_module_is_imported_from_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """With the mutant written on disk nothing is served: an import of the file is the
    run's evidence, looked up again only when more modules were loaded."""
    (tmp_path / "imports_of_probe.py").write_text("VALUE = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    watch = ImportsOf([str(tmp_path / "imports_of_probe.py")])
    assert watch.seen() == []
    importlib.import_module("imports_of_probe")
    try:
        assert watch.seen() == [str(tmp_path / "imports_of_probe.py")]
    finally:
        del sys.modules["imports_of_probe"]
