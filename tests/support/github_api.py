"""A fake GitHub REST API on 127.0.0.1 for the pull-request comment (tests/github).

It serves the three calls guardcheck makes, pages lists the way GitHub does (`per_page`,
`page`, a Link header with rel="next"), and records every request it got. `refuse`
makes it answer writes (or everything) with a status, as a fork's token or an outage does.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

LIST = re.compile(r"^/repos/([^/]+/[^/]+)/issues/(\d+)/comments$")
ONE = re.compile(r"^/repos/([^/]+/[^/]+)/issues/comments/(\d+)$")


@dataclass
class Recorded:
    method: str
    path: str
    authorization: str


@dataclass
class FakeGitHub:
    url: str = ""
    comments: dict[tuple[str, int], list[dict[str, Any]]] = field(default_factory=dict)
    requests: list[Recorded] = field(default_factory=list)
    refuse_writes: int | None = None  # a status for POST/PATCH (403: a fork's token)
    refuse_all: int | None = None  # a status for every call (500: an outage)
    refusal_message: str = "Resource not accessible by integration"
    next_id: int = 1000

    def thread(self, repository: str, number: int) -> list[dict[str, Any]]:
        return self.comments.setdefault((repository, number), [])

    def add(self, repository: str, number: int, body: str, user_type: str = "User") -> int:
        self.next_id += 1
        comment = {
            "id": self.next_id,
            "body": body,
            "user": {"login": "someone", "type": user_type},
            "html_url": f"https://github.example/{repository}/pull/{number}#c{self.next_id}",
        }
        self.thread(repository, number).append(comment)
        return self.next_id

    def calls(self, method: str) -> list[str]:
        return [r.path for r in self.requests if r.method == method]


def _handler(fake: FakeGitHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # quiet
            pass

        def do_GET(self) -> None:
            self._serve("GET")

        def do_POST(self) -> None:
            self._serve("POST")

        def do_PATCH(self) -> None:
            self._serve("PATCH")

        def _serve(self, method: str) -> None:
            url = urlsplit(self.path)
            size = int(self.headers.get("Content-Length") or 0)
            payload = json.loads(self.rfile.read(size)) if size else None
            fake.requests.append(Recorded(method, self.path, self.headers.get("Authorization", "")))
            refused = fake.refuse_all or (fake.refuse_writes if method != "GET" else None)
            if refused:
                return self._send(refused, {"message": fake.refusal_message})
            listing, one = LIST.match(url.path), ONE.match(url.path)
            if listing and method == "GET":
                return self._page(fake.thread(listing[1], int(listing[2])), url.query)
            if listing and method == "POST":
                repository, number = listing[1], int(listing[2])
                made = fake.add(repository, number, payload["body"], user_type="Bot")
                return self._send(201, self._find(made))
            if one and method == "PATCH":
                comment = self._find(int(one[2]))
                if comment is None:
                    return self._send(404, {"message": "Not Found"})
                comment["body"] = payload["body"]
                return self._send(200, comment)
            return self._send(404, {"message": "Not Found"})

        def _find(self, comment_id: int) -> dict[str, Any] | None:
            every = (c for thread in fake.comments.values() for c in thread)
            return next((c for c in every if c["id"] == comment_id), None)

        def _page(self, items: list[dict[str, Any]], query: str) -> None:
            asked = parse_qs(query)
            per_page = min(int(asked.get("per_page", ["30"])[0]), 100)
            page = int(asked.get("page", ["1"])[0])
            start = (page - 1) * per_page
            headers = {}
            path = urlsplit(self.path).path
            last = max(1, -(-len(items) // per_page))
            links = [(page - 1, "prev"), (page + 1, "next"), (1, "first"), (last, "last")]
            # As GitHub does: every relation that exists, `next` among others.
            headers["Link"] = ", ".join(
                f'<{fake.url}{path}?per_page={per_page}&page={n}>; rel="{rel}"'
                for n, rel in links
                if 1 <= n <= last
            )
            self._send(200, items[start : start + per_page], headers)

        def _send(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

    return Handler


@contextmanager
def fake_github() -> Iterator[FakeGitHub]:
    fake = FakeGitHub()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(fake))
    fake.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
