"""A base revision of the user's repository, and temporary worktrees of it, always removed.

Shared by `guardcheck refactor` and `guardcheck review`, which both measure a
change against a base. `git worktree add --detach` writes only under
`.git/worktrees/` (removed again by `git worktree remove --force` and `git
worktree prune`): the user's index, HEAD and working tree are never touched.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from guardcheck import git
from guardcheck.errors import GuardcheckError


def _git(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return git.run(cwd, *args, missing="guardcheck needs git here, and git is not on PATH")


@dataclass(frozen=True)
class Base:
    """The revision the change is measured against."""

    label: str  # as given, or "merge-base with origin/HEAD"
    sha: str
    top: Path  # the repository's top-level folder
    prefix: str  # the project root relative to `top` ("" when it is the top)


def _toplevel(root: Path, command: str) -> Path:
    found = _git(root, "rev-parse", "--show-toplevel")
    if found.returncode != 0:
        raise GuardcheckError(
            f"{root} is not inside a git repository, so there is no base revision to compare "
            f"with\n  fix: run guardcheck {command} inside a git checkout"
        )
    return Path(found.stdout.strip())


def _commit(top: Path, rev: str) -> str | None:
    parsed = _git(top, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    return parsed.stdout.strip() if parsed.returncode == 0 else None


def resolve_base(root: Path, rev: str | None, *, command: str) -> Base:
    """REV as a commit; without one, the merge base of HEAD with the default branch."""
    top = _toplevel(root, command)
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
        merged = _git(top, "merge-base", "HEAD", branch)
        if merged.returncode == 0 and merged.stdout.strip():
            return Base(f"merge-base with {branch}", merged.stdout.strip(), top, prefix)
    raise GuardcheckError(
        "no default branch to compare with: neither origin/HEAD, main nor master exists\n"
        "  fix: pass --base REV (e.g. --base HEAD~1)"
    )


@contextmanager
def base_worktrees(base: Base, count: int = 1) -> Iterator[list[Path]]:
    """`count` detached worktrees of the base; yields the project root inside each."""
    scratch = Path(tempfile.mkdtemp(prefix="guardcheck-base-"))
    added: list[Path] = []
    try:
        for index in range(count):
            tree = scratch / f"base-{index}"
            done = _git(base.top, "worktree", "add", "--detach", "--quiet", str(tree), base.sha)
            if done.returncode != 0:
                raise GuardcheckError(
                    f"git worktree add of {base.sha[:10]} failed: {done.stderr.strip()}"
                )
            added.append(tree)
        yield [tree / base.prefix if base.prefix else tree for tree in added]
    finally:
        for tree in added:
            _git(base.top, "worktree", "remove", "--force", str(tree))
        _git(base.top, "worktree", "prune")
        shutil.rmtree(scratch, ignore_errors=True)
