"""The base revision in a temporary git worktree outside the project, always removed.

`git worktree add --detach` writes only under `.git/worktrees/` (removed again
by `git worktree remove --force` and `git worktree prune`): the user's index,
HEAD and working tree are never touched. Today's source paths can be overlaid
onto a worktree, which then holds the base tests beside the current code.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from guardcheck.errors import GuardcheckError

# What a copy of today's source leaves out: caches a run made, never source.
_NOT_SOURCE = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", ".hypothesis")


def git(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)


@dataclass(frozen=True)
class Base:
    """The revision the change is measured against."""

    label: str  # as given, or "merge-base with origin/HEAD"
    sha: str
    top: Path  # the repository's top-level folder
    prefix: str  # the project root relative to `top` ("" when it is the top)


def _toplevel(root: Path) -> Path:
    found = git(root, "rev-parse", "--show-toplevel")
    if found.returncode != 0:
        raise GuardcheckError(
            f"{root} is not inside a git repository, so there is no base revision to compare "
            "with\n  fix: run guardcheck refactor inside a git checkout"
        )
    return Path(found.stdout.strip())


def _commit(top: Path, rev: str) -> str | None:
    parsed = git(top, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    return parsed.stdout.strip() if parsed.returncode == 0 else None


def resolve_base(root: Path, rev: str | None) -> Base:
    """REV as a commit; without one, the merge base of HEAD with the default branch."""
    top = _toplevel(root)
    prefix = root.resolve().relative_to(top.resolve()).as_posix()
    prefix = "" if prefix == "." else prefix
    if rev is not None:
        sha = _commit(top, rev)
        if sha is None:
            raise GuardcheckError(
                f"--base {rev}: not a revision of the repository at {top}\n"
                "  fix: name a commit, branch or tag that `git rev-parse` knows (e.g. HEAD~1)"
            )
        return Base(rev, sha, top, prefix)
    for branch in ("origin/HEAD", "main", "master"):
        if _commit(top, branch) is None:
            continue
        merged = git(top, "merge-base", "HEAD", branch)
        if merged.returncode == 0 and merged.stdout.strip():
            return Base(f"merge-base with {branch}", merged.stdout.strip(), top, prefix)
    raise GuardcheckError(
        "no default branch to compare with: neither origin/HEAD, main nor master exists\n"
        "  fix: pass --base REV (e.g. --base HEAD~1)"
    )


@contextmanager
def base_worktrees(base: Base, count: int) -> Iterator[list[Path]]:
    """`count` detached worktrees of the base, each its project root inside them."""
    scratch = Path(tempfile.mkdtemp(prefix="guardcheck-refactor-"))
    added: list[Path] = []
    try:
        for index in range(count):
            tree = scratch / f"base-{index}"
            done = git(base.top, "worktree", "add", "--detach", "--quiet", str(tree), base.sha)
            if done.returncode != 0:
                raise GuardcheckError(
                    f"git worktree add of {base.sha[:10]} failed: {done.stderr.strip()}"
                )
            added.append(tree)
        yield [tree / base.prefix if base.prefix else tree for tree in added]
    finally:
        for tree in added:
            git(base.top, "worktree", "remove", "--force", str(tree))
        git(base.top, "worktree", "prune")
        shutil.rmtree(scratch, ignore_errors=True)


def overlay(source_root: Path, target_root: Path, paths: Iterable[str]) -> list[str]:
    """Replace each of `paths` under `target_root` with today's copy from `source_root`.

    A path that is gone today is removed from the target too. Returns the paths copied.
    """
    copied = []
    for relative in paths:
        here, there = source_root / relative, target_root / relative
        if there.is_dir() and not there.is_symlink():
            shutil.rmtree(there)
        elif there.exists() or there.is_symlink():
            there.unlink()
        if here.is_dir():
            shutil.copytree(here, there, ignore=_NOT_SOURCE, symlinks=True)
        elif here.is_file():
            there.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(here, there)
        else:
            continue
        copied.append(relative)
    return copied
