"""The sticky pull-request comment against a fake GitHub API on 127.0.0.1."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.github_api import FakeGitHub, fake_github

from guardcheck.github import MARKER, post_review_comment
from guardcheck.github.sticky import MAX_BODY, comment_body

REPO, NUMBER = "octo/shop", 7
TOKEN = "ghs_s3cr3t-token-value"


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with fake_github() as fake:
        yield fake


def environ(github_url: str, tmp_path: Path, **overrides: str) -> dict[str, str]:
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"number": NUMBER, "pull_request": {"number": NUMBER}}))
    env = {
        "GITHUB_TOKEN": TOKEN,
        "GITHUB_API_URL": github_url,
        "GITHUB_REPOSITORY": REPO,
        "GITHUB_EVENT_PATH": str(event),
    }
    return {**env, **overrides}


def test_a_first_run_creates_the_comment_and_a_second_updates_it(github, tmp_path):
    env = environ(github.url, tmp_path)
    first = post_review_comment("## review\n2 survivors\n", env)
    second = post_review_comment("## review\n0 survivors\n", env)
    [comment] = github.thread(REPO, NUMBER)
    assert comment["body"] == f"{MARKER}\n## review\n0 survivors\n"
    assert (first.posted, second.posted) == (True, True)
    assert "created" in first.message
    assert "updated" in second.message
    assert github.calls("PATCH") == [f"/repos/{REPO}/issues/comments/{comment['id']}"]
    assert {r.authorization for r in github.requests} == {f"Bearer {TOKEN}"}


def test_the_marked_comment_is_found_among_150_earlier_comments_across_pages(github, tmp_path):
    for index in range(150):
        if index == 120:
            github.add(REPO, NUMBER, f"{MARKER}\nold review", user_type="Bot")
        else:
            github.add(REPO, NUMBER, f"comment {index} mentions {MARKER} in passing")
    outcome = post_review_comment("new review", environ(github.url, tmp_path))
    comments = github.thread(REPO, NUMBER)
    marked = [c["body"] for c in comments if c["body"].startswith(MARKER)]
    assert outcome.posted
    assert (len(comments), marked) == (150, [f"{MARKER}\nnew review"])
    assert len(github.calls("GET")) == 2  # pages of 100: the second came from rel="next"
    assert github.calls("POST") == []


def test_a_bots_marked_comment_is_preferred_to_a_users_copy_of_the_marker(github, tmp_path):
    """Someone pasting the marker first must not capture the review's comment."""
    github.add(REPO, NUMBER, f"{MARKER}\nall good, trust me")
    bot = github.add(REPO, NUMBER, f"{MARKER}\nreal review", user_type="Bot")
    post_review_comment("newer review", environ(github.url, tmp_path))
    assert github.calls("PATCH") == [f"/repos/{REPO}/issues/comments/{bot}"]


@pytest.mark.parametrize(
    ("refusal", "expected"),
    [
        ({"refuse_writes": 403}, "POST /repos/octo/shop/issues/7/comments: HTTP 403"),
        ({"refuse_all": 500}, "GET /repos/octo/shop/issues/7/comments: HTTP 500"),
    ],
)
def test_a_refused_or_failing_api_is_a_warning_without_the_token(
    github, tmp_path, refusal, expected
):
    for name, status in refusal.items():
        setattr(github, name, status)
    github.refusal_message = f"bad credentials {TOKEN}"  # a server echoing the token
    outcome = post_review_comment("review", environ(github.url, tmp_path))
    assert not outcome.posted
    assert outcome.message.startswith("guardcheck: warning: the review comment was not posted")
    assert f"{expected} bad credentials ***" in outcome.message
    assert TOKEN not in outcome.message
    assert github.thread(REPO, NUMBER) == []


def test_a_403_says_how_to_give_the_job_write_permission(github, tmp_path):
    github.refuse_writes = 403
    outcome = post_review_comment("review", environ(github.url, tmp_path))
    assert "fix: give the job `permissions: pull-requests: write`" in outcome.message


def test_no_server_listening_is_a_warning(tmp_path):
    with socket.socket() as probe:  # a port nothing listens on once closed
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    outcome = post_review_comment("review", environ(f"http://127.0.0.1:{port}", tmp_path))
    assert not outcome.posted
    assert "Connection refused" in outcome.message


@pytest.mark.parametrize(
    ("overrides", "reason"),
    [
        ({"GITHUB_TOKEN": ""}, "GITHUB_TOKEN is not set"),
        ({"GITHUB_REPOSITORY": "no-slash"}, "not owner/name"),
        ({"GITHUB_EVENT_PATH": "/nonexistent/event.json"}, "cannot read the event file"),
    ],
)
def test_a_run_that_cannot_comment_says_why_and_calls_nothing(github, tmp_path, overrides, reason):
    outcome = post_review_comment("review", environ(github.url, tmp_path, **overrides))
    assert (outcome.posted, github.requests) == (False, [])
    assert reason in outcome.message


def test_a_push_event_has_no_pull_request_to_comment_on(github, tmp_path):
    event = tmp_path / "push.json"
    event.write_text(json.dumps({"ref": "refs/heads/main"}))
    outcome = post_review_comment(
        "review", environ(github.url, tmp_path, GITHUB_EVENT_PATH=str(event))
    )
    assert not outcome.posted
    assert "not about a pull request" in outcome.message


def test_a_next_page_on_another_host_is_not_followed(github, tmp_path, monkeypatch):
    """The token goes only to GITHUB_API_URL's host, even when a Link header points away."""
    for index in range(101):
        github.add(REPO, NUMBER, f"comment {index}")
    other = github.url.replace("127.0.0.1", "localhost")
    original = github.url
    github.url = other  # the fake now writes Link headers naming another host
    outcome = post_review_comment("review", environ(original, tmp_path))
    assert not outcome.posted
    assert "another host" in outcome.message
    assert len(github.requests) == 1


def test_a_review_longer_than_githubs_limit_is_cut_at_a_line_with_a_note():
    body = comment_body("| a line of the table |\n" * 5000)
    assert len(body) <= MAX_BODY
    assert body.startswith(MARKER)
    assert body.endswith("the whole review is in the job summary and in `review.json`.*\n")
    assert "| a line of the table |\n\n*Truncated" in body
