"""JSON-lines framing between guardcheck, its pytest host and the host's children.

Every message is one JSON object with a "t" (type) key, terminated by a newline.
Parent -> host: "mutant", "stop" (on purpose; see workers.HostProcess.stop).
Host -> parent: "collected", "collect_failed",
"baseline" (one per baseline run, in order; the first carries coverage),
"done". Child -> host: "start" (a test began), "result".
"""

from __future__ import annotations

import json
import os
from typing import Any

Message = dict[str, Any]

# Environment variables through which the lab hands a child its settings.
HOST_ENV = "GUARDCHECK_HOST"  # JSON settings for `-p guardcheck.child.host`
FRESH_ENV = "GUARDCHECK_FRESH"  # path of the spec file for `-p guardcheck.child.freshrun`


def encode(message: Message) -> bytes:
    return json.dumps(message, separators=(",", ":")).encode() + b"\n"


def write_all(fd: int, data: bytes) -> None:
    """os.write until everything is out (pipes accept partial writes)."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def send(fd: int, message: Message) -> None:
    write_all(fd, encode(message))


class LineBuffer:
    """Accumulates raw bytes and yields the complete messages received so far."""

    def __init__(self) -> None:
        self._pending = b""

    def feed(self, data: bytes) -> list[Message]:
        self._pending += data
        *lines, self._pending = self._pending.split(b"\n")
        messages = []
        for line in lines:
            try:
                messages.append(json.loads(line))
            except ValueError:
                # A child killed mid-write leaves a torn line; it carries nothing usable.
                continue
        return messages
