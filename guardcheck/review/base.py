"""The base revision: resolved to a commit, and checked out in a temporary worktree.

The minimal part of `guardcheck.refactor.worktree`, copied rather than imported:
refactor's internals are not an API, and review needs one worktree, not several.
`git worktree add --detach` writes only under `.git/worktrees/` (undone by
`worktree remove --force` and `prune`), so the user's index, HEAD and files are
never touched, and the worktree is removed whatever happens.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from guardcheck.errors import GuardcheckError

DEFAULT_BRANCHES = ("origin/HEAD", "main", "master")


def git(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    try:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    except FileNotFoundError:
        raise GuardcheckError("guardcheck review needs git, which is not on PATH") from None


@dataclass(frozen=True)
class Base:
    label: str  # as given, or "merge-base with main"
    sha: str
    top: Path  # the repository's top-level folder
    prefix: str  # the project root relative to `top` ("" at the top)


def _commit(top: Path, rev: str) -> str | None:
    parsed = git(top, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
    return parsed.stdout.strip() if parsed.returncode == 0 else None


def resolve_base(root: Path, rev: str | None) -> Base:
    """REV as a commit; without one, the merge base of HEAD with the default branch."""
    found = git(root, "rev-parse", "--show-toplevel")
    if found.returncode != 0:
        raise GuardcheckError(
            f"{root} is not inside a git repository, so there is no change to review\n"
            "  fix: run guardcheck review inside a git checkout"
        )
    top = Path(found.stdout.strip())
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
    for branch in DEFAULT_BRANCHES:
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
def base_worktree(base: Base) -> Iterator[Path]:
    """A detached worktree of the base; yields the project root inside it."""
    scratch = Path(tempfile.mkdtemp(prefix="guardcheck-review-"))
    tree = scratch / "base"
    added = False
    try:
        done = git(base.top, "worktree", "add", "--detach", "--quiet", str(tree), base.sha)
        if done.returncode != 0:
            raise GuardcheckError(
                f"git worktree add of {base.sha[:10]} failed: {done.stderr.strip()}"
            )
        added = True
        yield tree / base.prefix if base.prefix else tree
    finally:
        if added:
            git(base.top, "worktree", "remove", "--force", str(tree))
        git(base.top, "worktree", "prune")
        shutil.rmtree(scratch, ignore_errors=True)
