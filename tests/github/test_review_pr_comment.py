"""`guardcheck review --pr-comment` end to end: a real change, a fake GitHub API."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.github_api import fake_github
from support.review import build_shop

from guardcheck.github import MARKER

pytestmark = pytest.mark.slow

REPO, NUMBER = "octo/shop", 5
TOKEN = "ghs_cli-token-never-shown"


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = build_shop(tmp_path_factory.mktemp("comment") / "shop", commit_change=True)
    (root.parent / "event.json").write_text(json.dumps({"pull_request": {"number": NUMBER}}))
    return root


def review(root: Path, api_url: str) -> subprocess.CompletedProcess[str]:
    markdown = root.parent / "review.md"
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env |= {
        "GITHUB_TOKEN": TOKEN,
        "GITHUB_API_URL": api_url,
        "GITHUB_REPOSITORY": REPO,
        "GITHUB_EVENT_PATH": str(root.parent / "event.json"),
    }
    command = ["review", "--base", "HEAD~1", "--markdown", str(markdown), "--pr-comment"]
    return subprocess.run(
        [sys.executable, "-m", "guardcheck", *command],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_two_reviews_leave_exactly_one_comment_updated(shop):
    with fake_github() as github:
        github.add(REPO, NUMBER, "LGTM")
        first = review(shop, github.url)
        (shop.parent / "review.md").write_text("stale")  # the second run must rewrite it
        second = review(shop, github.url)
        comments = github.thread(REPO, NUMBER)
    markdown = (shop.parent / "review.md").read_text()
    assert (first.returncode, second.returncode) == (1, 1), second.stderr  # survivors gate
    assert [c["body"] for c in comments] == ["LGTM", f"{MARKER}\n{markdown}"]
    assert "review comment created" in first.stderr
    assert "review comment updated" in second.stderr
    assert github.calls("PATCH") == [f"/repos/{REPO}/issues/comments/{comments[1]['id']}"]


def test_a_failing_api_leaves_the_findings_exit_code_and_no_traceback(shop):
    with fake_github() as github:
        github.refuse_all = 500
        github.refusal_message = f"oops {TOKEN}"
        done = review(shop, github.url)
    assert done.returncode == 1
    assert "guardcheck: warning: the review comment was not posted" in done.stderr
    assert "HTTP 500" in done.stderr
    assert "Traceback" not in done.stderr
    assert TOKEN not in done.stdout + done.stderr
