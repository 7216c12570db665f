"""One review comment per pull request, found again by a hidden marker and updated.

The marker opens the body, so a comment that merely quotes it is not taken for ours.
When several comments carry it, the oldest one a bot wrote wins (the Actions token posts
as `github-actions[bot]`), else the oldest: someone else's comment carrying the marker
is then overwritten with the real review, or (without the right to edit it) reported.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from guardcheck.github.client import Client, GitHubError
from guardcheck.github.pullrequest import NotAvailable, PullRequest, from_environment

MARKER = "<!-- guardcheck-review -->"
MAX_BODY = 65_536  # GitHub's limit on a comment's body, in characters
TRUNCATED = "\n*Truncated: the whole review is in the job summary and in `review.json`.*\n"
FORBIDDEN_FIX = (
    "fix: give the job `permissions: pull-requests: write`; a pull request from a fork "
    "gets a read-only token and cannot comment (the job summary still has the review)"
)


@dataclass(frozen=True)
class CommentOutcome:
    posted: bool
    message: str  # for stderr: what was done, or the warning


def post_review_comment(markdown: str, environ: Mapping[str, str]) -> CommentOutcome:
    """Create or update the pull request's review comment; never raises for GitHub's sake."""
    try:
        pull = from_environment(environ)
    except NotAvailable as exc:
        return _warning(str(exc))
    client = Client(pull.api_url, pull.token)
    try:
        done, url = upsert(client, pull, comment_body(markdown))
    except GitHubError as exc:
        fix = f"\n  {FORBIDDEN_FIX}" if exc.status in (401, 403, 404) else ""
        return _warning(f"{exc}{fix}")
    return CommentOutcome(True, f"guardcheck: review comment {done}: {url}")


def comment_body(markdown: str) -> str:
    """The marker, then the review; cut at a line to fit GitHub's limit when too long."""
    body = f"{MARKER}\n{markdown}"
    if len(body) <= MAX_BODY:
        return body
    kept = body[: MAX_BODY - len(TRUNCATED)]
    return kept[: kept.rfind("\n") + 1 or len(kept)] + TRUNCATED


def upsert(client: Client, pull: PullRequest, body: str) -> tuple[str, str]:
    """("created" | "updated", the comment's URL)."""
    existing = ours(client.pages(pull.comments_path))
    if existing is None:
        made = client.post(pull.comments_path, {"body": body})
        return "created", _url(made)
    changed = client.patch(pull.comment_path(int(existing["id"])), {"body": body})
    return "updated", _url(changed)


def ours(comments: Iterable[Any]) -> dict[str, Any] | None:
    """The comment to update: marked, a bot's first (see the module's docstring)."""
    marked = [
        c
        for c in comments
        if isinstance(c, dict)
        and isinstance(c.get("id"), int)
        and str(c.get("body") or "").startswith(MARKER)
    ]
    bots = [c for c in marked if (c.get("user") or {}).get("type") == "Bot"]
    return (bots or marked or [None])[0]


def _url(comment: Any) -> str:
    if not isinstance(comment, dict):
        return ""
    return str(comment.get("html_url") or comment.get("url") or "")


def _warning(reason: str) -> CommentOutcome:
    message = f"guardcheck: warning: the review comment was not posted: {reason}"
    return CommentOutcome(False, message)
