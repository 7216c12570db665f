"""guardcheck/git.py: the one helper that runs git, with each caller's choices kept."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from guardcheck import git
from guardcheck.errors import GuardcheckError


def commit_repo(root: Path, text: str) -> str:
    """A repository at `root` with one commit of `text`; its HEAD."""
    root.mkdir()
    for args in (
        ["init", "-q"],
        ["config", "user.email", "t@example.com"],
        ["config", "user.name", "t"],
    ):
        git.run(root, *args, check=True)
    (root / "f.txt").write_text(text, encoding="utf-8")
    git.run(root, "add", "f.txt", check=True)
    git.run(root, "commit", "-q", "-m", text, check=True)
    return git.run(root, "rev-parse", "HEAD", check=True).stdout.strip()


@pytest.mark.slow
def test_a_scrubbed_environment_keeps_git_in_the_folder_it_is_given(tmp_path, monkeypatch):
    """Regression guard for the private copy: a `GIT_DIR` set by a git hook redirected git
    to the user's repository while it should read the copy."""
    mine = commit_repo(tmp_path / "copy", "copy")
    theirs = commit_repo(tmp_path / "user", "user")
    monkeypatch.setenv("GIT_DIR", str(tmp_path / "user" / ".git"))
    scrubbed = git.run(tmp_path / "copy", "rev-parse", "HEAD", scrub_env=True)
    inherited = git.run(tmp_path / "copy", "rev-parse", "HEAD")
    assert (scrubbed.stdout.strip(), inherited.stdout.strip()) == (mine, theirs)


@pytest.mark.slow
def test_check_raises_on_a_failing_git_and_its_stderr_is_text(tmp_path):
    with pytest.raises(subprocess.CalledProcessError):
        git.run(tmp_path, "rev-parse", "HEAD", check=True)
    failed = git.run(tmp_path, "rev-parse", "HEAD")
    assert failed.returncode != 0
    assert "not a git repository" in failed.stderr


def test_git_missing_from_path_is_the_caller_s_message_or_file_not_found(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # a folder without git
    with pytest.raises(GuardcheckError, match=r"^`--since` needs git$"):
        git.run(tmp_path, "status", missing="`--since` needs git")
    with pytest.raises(FileNotFoundError):
        git.run(tmp_path, "status")
