"""Fixture projects for `guardcheck equiv`, copied into tmp_path, some as real git histories."""

from __future__ import annotations

import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

PROJECTS = Path(__file__).resolve().parents[1] / "fixtures" / "projects"


@pytest.fixture(autouse=True)
def _isolated_imports() -> Iterator[None]:
    """Each test imports its fixture project afresh from its own tmp_path."""
    path, modules = list(sys.path), set(sys.modules)
    yield
    sys.path[:] = path
    for name in set(sys.modules) - modules:
        if name.split(".", 1)[0] in {"gatekit", "ledger"} or name.startswith("__guardcheck_rev_"):
            del sys.modules[name]


def _git(cwd: Path, *args: str) -> str:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid",
           "HOME": str(cwd), "PATH": "/usr/bin:/bin:/usr/local/bin"}
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          check=True)
    return done.stdout.strip()


@pytest.fixture
def gates(tmp_path: Path) -> Path:
    root = tmp_path / "gates"
    shutil.copytree(PROJECTS / "equiv_gates", root)
    return root


@pytest.fixture
def ledger(tmp_path: Path) -> Path:
    """A git repository: revision 1 (delegating gate, ratio 0.95), then revision 2 on top
    (inlined gate, the shared ratio loosened to 0.9). The working tree is revision 2."""
    root = tmp_path / "ledger"
    source = PROJECTS / "equiv_ledger"
    root.mkdir()
    shutil.copy(source / "pyproject.toml", root)
    shutil.copytree(source / "rev1", root, dirs_exist_ok=True)
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "revision 1")
    shutil.copytree(source / "rev2", root, dirs_exist_ok=True)
    _git(root, "commit", "-q", "-am", "revision 2")
    return root


@pytest.fixture(name="git")
def git_fixture():
    """`git(cwd, *args)`: its stdout, for tests that need a commit's sha."""
    return _git
