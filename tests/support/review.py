"""The review fixture projects as real git repositories (see tests/fixtures/projects/README.md)."""

from __future__ import annotations

import shutil
from pathlib import Path

from support.git import git

PROJECTS = Path(__file__).resolve().parents[1] / "fixtures" / "projects"


def copy_tree(source: Path, target: Path) -> None:
    """Copy `source` over `target`; `x.py.txt` becomes `x.py` (kept unlintable as data)."""
    for path in sorted(source.rglob("*")):
        if path.is_dir():
            continue
        relative = path.relative_to(source).as_posix().removesuffix(".txt")
        if relative == "gitignore":
            relative = ".gitignore"
        (target / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, target / relative)


def build_shop(root: Path, *, commit_change: bool) -> Path:
    """review_shop's base committed on `main`; its change on top, committed or left in the tree."""
    root.mkdir(parents=True)
    copy_tree(PROJECTS / "review_shop" / "base", root)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    copy_tree(PROJECTS / "review_shop" / "change", root)
    if commit_change:
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "change")
    return root
