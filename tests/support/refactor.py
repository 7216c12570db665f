"""The refactor_migration fixture as a real two-commit repository, and guardcheck run on it."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from support.git import git

MIGRATION = Path(__file__).resolve().parents[1] / "fixtures" / "projects" / "refactor_migration"


def build_migration(root: Path, before_first_commit: Callable[[Path], None] | None = None) -> Path:
    """Revision 1 (per-chat dicts on `Relay`), committed; then revision 2 (SessionState
    behind dict views) committed on top. The working tree is revision 2."""
    root.mkdir()
    shutil.copy(MIGRATION / "common" / "pyproject.toml", root)
    shutil.copy(MIGRATION / "common" / "gitignore", root / ".gitignore")
    shutil.copytree(MIGRATION / "rev1", root, dirs_exist_ok=True)
    if before_first_commit is not None:
        before_first_commit(root)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "revision 1: per-chat dicts")
    shutil.copytree(MIGRATION / "rev2", root, dirs_exist_ok=True)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "revision 2: SessionState behind legacy views")
    return root


def edit(root: Path, relative: str, old: str, new: str) -> None:
    """Replace `old` (which must be there) by `new` in one file of the working tree."""
    path = root / relative
    text = path.read_text()
    assert old in text, f"the fixture changed: {old!r} is not in {relative}"
    path.write_text(text.replace(old, new, 1))


@dataclass
class Refactor:
    code: int
    out: str
    err: str
    report: dict

    def check(self, key: str) -> dict:
        return next(c for c in self.report["checks"] if c["check"] == key)

    def outcomes(self) -> dict[str, str]:
        return {c["check"]: c["outcome"] for c in self.report["checks"]}

    def messages(self, key: str) -> list[str]:
        return [f["message"] for f in self.check(key)["findings"]]


def run_refactor(root: Path, *args: str, env: dict[str, str] | None = None) -> Refactor:
    """`guardcheck refactor ARGS --json` in `root`, as a user runs it."""
    # One report per project: the bed runs several projects of one folder at once.
    report_path = root.parent / f"{root.name}.refactor.json"
    report_path.unlink(missing_ok=True)
    environment = {k: v for k, v in os.environ.items() if k != "GITHUB_ACTIONS"}
    done = subprocess.run(
        [sys.executable, "-m", "guardcheck", "refactor", *args, "--json", str(report_path)],
        cwd=root,
        env={**environment, **(env or {})},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    report = json.loads(report_path.read_text()) if report_path.is_file() else {}
    return Refactor(done.returncode, done.stdout, done.stderr, report)


def repository_state(root: Path) -> dict[str, str]:
    """HEAD, the index file's bytes, every file of the working tree (ignored ones too),
    and the worktree list: what guardcheck refactor must leave exactly as it was."""
    state = {
        "HEAD": git(root, "rev-parse", "HEAD"),
        "index": hashlib.sha256((root / ".git" / "index").read_bytes()).hexdigest(),
        "worktrees": git(root, "worktree", "list", "--porcelain"),
    }
    for path in sorted(root.rglob("*")):
        if ".git" in path.relative_to(root).parts[:1] or not path.is_file():
            continue
        state[path.relative_to(root).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return state


BED = Path(__file__).resolve().parents[1] / "fixtures" / "projects" / "refactor_bed"


def bed_commits() -> list[str]:
    """The test bed's refactor commits, by folder name."""
    return sorted(p.name for p in (BED / "commits").iterdir() if p.is_dir())


def bed_truth(name: str) -> dict:
    """What the commit does, written down with it before guardcheck ever ran on it."""
    import tomllib

    return tomllib.loads((BED / "commits" / name / "truth.toml").read_text())


def build_bed_commit(root: Path, name: str) -> Path:
    """The bed's base revision committed, then commit `name`'s change.diff on top (HEAD)."""
    root.mkdir()
    shutil.copytree(BED / "base", root, dirs_exist_ok=True)
    (root / "gitignore").rename(root / ".gitignore")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    git(root, "apply", "-p1", str(BED / "commits" / name / "change.diff"))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", name)
    return root


def two_revisions(root: Path, base: dict[str, str], change: dict[str, str]) -> Path:
    """A repository whose first commit holds `base` (relative path -> text) and whose
    second (HEAD) writes `change` over it."""
    root.mkdir()
    for revision, files in (("base", base), ("change", change)):
        for relative, text in files.items():
            path = root / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        if revision == "base":
            git(root, "init", "-q", "-b", "main")
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", revision)
    return root


def pyproject(package: str) -> str:
    """A pyproject.toml for a one-package project with its tests under tests/."""
    return (
        f'[project]\nname = "{package}"\nversion = "0"\n\n'
        '[tool.pytest.ini_options]\npythonpath = ["."]\n\n'
        f'[tool.guardcheck]\nsource = ["{package}"]\ntests = ["tests"]\n'
    )
