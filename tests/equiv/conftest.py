"""Fixture projects for `guardcheck equiv`, copied into tmp_path, some as real git histories."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.projects import PROJECTS, commit, copy_project, edit, git

REPO = Path(__file__).resolve().parents[2]

# The top-level packages of the fixture projects, imported afresh by each test.
FIXTURE_PACKAGES = {"gatekit", "ledger", "pkg", "hooks", "pkg_a", "pkg_b", "bedhooks"}


@pytest.fixture(autouse=True)
def _isolated_imports() -> Iterator[None]:
    """Each test imports its fixture project afresh from its own tmp_path."""
    path, modules = list(sys.path), set(sys.modules)
    yield
    sys.path[:] = path
    for name in set(sys.modules) - modules:
        if name.split(".", 1)[0] in FIXTURE_PACKAGES or name.startswith("__guardcheck_rev_"):
            del sys.modules[name]


@pytest.fixture
def gates(tmp_path: Path) -> Path:
    """The equiv_gates project; its pythonpath names the repository root relative to where
    it lives in the repository, so the copy names it absolutely."""
    root = copy_project(tmp_path / "gates", "equiv_gates")
    edit(root / "pyproject.toml", '"../../../.."', f'"{REPO.as_posix()}"')
    return root


@pytest.fixture
def ledger(tmp_path: Path) -> Path:
    """A git repository: revision 1 (delegating gate, ratio 0.95), then revision 2 on top
    (inlined gate, the shared ratio loosened to 0.9). The working tree is revision 2."""
    root = tmp_path / "ledger"
    root.mkdir()
    shutil.copy(PROJECTS / "equiv_ledger" / "pyproject.toml", root)
    commit(copy_project(root, "equiv_ledger/rev1"), "revision 1")
    return commit(copy_project(root, "equiv_ledger/rev2"), "revision 2")


@pytest.fixture(name="git")
def git_fixture():
    """`git(cwd, *args)`: its stdout, for tests that need a commit's sha."""
    return git
