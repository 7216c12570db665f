"""The three REST calls the sticky comment needs, over urllib (no dependency).

Redirects are not followed: urllib would resend the Authorization header to wherever a
response points. Every failure is a `GitHubError` whose message names the call and the
HTTP status, with the token (should a server ever echo it) blanked out.
"""

from __future__ import annotations

import http.client
import json
import re
import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

from guardcheck import __version__

TIMEOUT_SECONDS = 30.0
PER_PAGE = 100  # GitHub's largest page
MAX_PAGES = 100  # 10,000 comments: a bound on a server that links pages in a circle
_NEXT = re.compile(r'<([^>]+)>\s*;\s*rel="?next"?')


class GitHubError(Exception):
    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # the 3xx is then raised as an HTTPError


class Client:
    def __init__(self, api_url: str, token: str) -> None:
        self.api_url = api_url.rstrip("/")
        self._token = token
        self._opener = urllib.request.build_opener(_NoRedirects)

    def pages(self, path: str) -> Iterator[Any]:
        """Each item of a paginated list, following the Link header's rel="next"."""
        url: str | None = f"{self.api_url}{path}?per_page={PER_PAGE}"
        for _ in range(MAX_PAGES):
            if url is None:
                return
            items, headers = self._call("GET", url)
            if not isinstance(items, list):
                raise GitHubError(f"GET {_shown(url)}: the answer is not a list")
            yield from items
            url = self._next_page(headers.get("Link", ""))
        raise GitHubError(f"GET {_shown(path)}: more than {MAX_PAGES} pages")

    def post(self, path: str, payload: dict[str, Any]) -> Any:
        return self._call("POST", f"{self.api_url}{path}", payload)[0]

    def patch(self, path: str, payload: dict[str, Any]) -> Any:
        return self._call("PATCH", f"{self.api_url}{path}", payload)[0]

    def _next_page(self, link: str) -> str | None:
        found = _NEXT.search(link)
        if found is None:
            return None
        url = found.group(1)
        # The token goes only where GITHUB_API_URL points.
        here, there = urlsplit(self.api_url), urlsplit(url)
        if (there.scheme, there.netloc) != (here.scheme, here.netloc):
            raise GitHubError(f"the next page is on another host ({there.netloc}): not followed")
        return url

    def _call(
        self, method: str, url: str, payload: dict[str, Any] | None = None
    ) -> tuple[Any, http.client.HTTPMessage]:
        data = None if payload is None else json.dumps(payload).encode("utf-8")
        request = urllib.request.Request(url, data=data, method=method)
        request.add_header("Accept", "application/vnd.github+json")
        request.add_header("X-GitHub-Api-Version", "2022-11-28")
        request.add_header("User-Agent", f"guardcheck/{__version__}")
        request.add_header("Authorization", f"Bearer {self._token}")
        if data is not None:
            request.add_header("Content-Type", "application/json")
        call = f"{method} {_shown(url)}"
        try:
            with self._opener.open(request, timeout=TIMEOUT_SECONDS) as response:
                text = response.read().decode("utf-8")
                headers = response.headers
        except urllib.error.HTTPError as exc:
            detail = self._redacted(_error_message(exc))
            raise GitHubError(f"{call}: HTTP {exc.code} {detail}".rstrip(), exc.code) from None
        except (OSError, http.client.HTTPException, UnicodeDecodeError) as exc:
            reason = getattr(exc, "reason", None) or exc
            raise GitHubError(f"{call}: {self._redacted(str(reason))}") from None
        try:
            return (json.loads(text) if text else None), headers
        except ValueError:
            raise GitHubError(f"{call}: the answer is not JSON") from None

    def _redacted(self, text: str) -> str:
        return text.replace(self._token, "***") if self._token else text


def _shown(url: str) -> str:
    """The path of a URL, for messages (its query holds nothing of interest)."""
    return urlsplit(url).path or url


def _error_message(error: urllib.error.HTTPError) -> str:
    """GitHub's `message` field of an error answer, else its reason phrase."""
    try:
        body = json.loads(error.read().decode("utf-8"))
        message = body.get("message") if isinstance(body, dict) else None
    except (OSError, ValueError, http.client.HTTPException):
        message = None
    return str(message or error.reason or "")[:200]
