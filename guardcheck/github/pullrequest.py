"""Which pull request a GitHub Actions run is about, from its environment."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit

PUBLIC_API = "https://api.github.com"


class NotAvailable(Exception):
    """The run cannot comment (no token, not a pull request, ...): the message says why."""


@dataclass(frozen=True)
class PullRequest:
    api_url: str  # without a trailing slash
    repository: str  # owner/name
    number: int
    token: str = field(repr=False)  # never in a repr, a log or a message

    @property
    def comments_path(self) -> str:
        return f"/repos/{self.repository}/issues/{self.number}/comments"

    def comment_path(self, comment_id: int) -> str:
        return f"/repos/{self.repository}/issues/comments/{comment_id}"


def from_environment(environ: Mapping[str, str]) -> PullRequest:
    """GITHUB_TOKEN, GITHUB_API_URL, GITHUB_REPOSITORY and the event's PR number."""
    token = environ.get("GITHUB_TOKEN", "").strip()
    if not token:
        raise NotAvailable(
            "GITHUB_TOKEN is not set\n  fix: give the step `GITHUB_TOKEN: ${{ github.token }}`"
        )
    repository = environ.get("GITHUB_REPOSITORY", "")
    owner, _, name = repository.partition("/")
    if not owner or not name or "/" in name:
        raise NotAvailable(f"GITHUB_REPOSITORY is {repository!r}, not owner/name")
    api_url = (environ.get("GITHUB_API_URL") or PUBLIC_API).rstrip("/")
    if urlsplit(api_url).scheme not in ("http", "https"):
        raise NotAvailable(f"GITHUB_API_URL is {api_url!r}, not an http(s) URL")
    number = pull_request_number(environ.get("GITHUB_EVENT_PATH", ""))
    return PullRequest(api_url, repository, number, token)


def pull_request_number(event_path: str) -> int:
    """The PR number of a pull_request(_target) event, or of an issue_comment on a PR."""
    event = read_event(event_path)
    for holder in ("pull_request", "issue"):
        number = (event.get(holder) or {}).get("number")
        if isinstance(number, int) and number > 0:
            return number
    number = event.get("number")
    if isinstance(number, int) and number > 0:
        return number
    raise NotAvailable(f"the event in {event_path} is not about a pull request")


def read_event(event_path: str) -> dict:
    """The event's JSON (GITHUB_EVENT_PATH); NotAvailable when missing or not an object."""
    if not event_path:
        raise NotAvailable("GITHUB_EVENT_PATH is not set (not a GitHub Actions run)")
    try:
        with open(event_path, encoding="utf-8") as handle:
            event = json.load(handle)
    except (OSError, ValueError) as exc:
        raise NotAvailable(f"cannot read the event file {event_path}: {exc}") from None
    if not isinstance(event, dict):
        raise NotAvailable(f"the event file {event_path} holds no JSON object")
    return event
