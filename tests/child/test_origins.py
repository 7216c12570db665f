"""The host's check that the tests imported the project from the private copy
(child/origins.py), and its reading of pytest-xdist's `-n` (child/host.py)."""

from __future__ import annotations

import sys
import types
from pathlib import Path

import pytest

from guardcheck.child.host import asks_for_workers
from guardcheck.child.origins import foreign_modules


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path]:
    """A user's project (origin) with its private copy inside, both with src/pkg."""
    origin = tmp_path / "project"
    copy = origin / ".guardcheck" / "tree"
    for root in (origin, copy):
        (root / "src" / "pkg").mkdir(parents=True)
        (root / "src" / "pkg" / "__init__.py").write_text("")
    return origin, copy


def _loaded(monkeypatch: pytest.MonkeyPatch, name: str, path: Path) -> None:
    module = types.ModuleType(name)
    module.__file__ = str(path)
    monkeypatch.setitem(sys.modules, name, module)


def test_a_project_module_from_the_users_tree_is_named(layout, monkeypatch):
    """Issue 22 case 1: an editable install resolved the package to the user's tree and
    every mutant was silently `no-coverage`; the host now names such a module."""
    origin, copy = layout
    _loaded(monkeypatch, "pkg", origin / "src" / "pkg" / "__init__.py")
    found = foreign_modules(str(origin), str(copy), [str(copy / "src" / "pkg")])
    assert found == [f"pkg ({(origin / 'src' / 'pkg' / '__init__.py').resolve()})"]


def test_modules_from_the_copy_or_an_installed_folder_are_not_named(layout, monkeypatch):
    origin, copy = layout
    _loaded(monkeypatch, "pkg", copy / "src" / "pkg" / "__init__.py")
    venv = origin / ".venv" / "lib" / "site-packages" / "dep.py"
    venv.parent.mkdir(parents=True)
    venv.write_text("")
    _loaded(monkeypatch, "dep", venv)
    assert foreign_modules(str(origin), str(copy), [str(copy)]) == []


def test_without_an_origin_nothing_is_checked(layout, monkeypatch):
    origin, copy = layout
    _loaded(monkeypatch, "pkg", origin / "src" / "pkg" / "__init__.py")
    assert foreign_modules("", str(copy), [str(copy / "src" / "pkg")]) == []


@pytest.mark.parametrize(
    ("args", "asked"),
    [
        (["-n", "2"], True),
        (["-nauto"], True),
        (["--numprocesses=4"], True),
        (["-n", "2", "-n", "0"], True),  # the user asked; the lab's -n 0 overrides it
        (["-n", "0"], False),
        (["--no-cov", "-n", "0"], False),
        (["-m", "not slow"], False),
    ],
)
def test_asks_for_workers_reads_every_spelling_of_n(args, asked):
    assert asks_for_workers(args) is asked
