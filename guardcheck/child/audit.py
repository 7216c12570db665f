"""`-p guardcheck.child.audit`: which tests open files under the source roots while they run.

`guardcheck review` runs a plain pytest over the tests in scope with this plugin and
the environment variables of `guardcheck.messages` set. An audit hook
(`sys.addaudithook`) sees every `open` event; one counts when it happens during a
test's *call* phase, names a file under a source root that is not bytecode, and is
not an import. Imports raise the same `open` event (through `io.open_code`) with the
same mode and flags, so an import is told apart by the import machinery's frames on
the stack. Opening through `inspect.getsource`, `linecache` or `ast` counts: they all
end in a plain `open`. Collection and assertion rewriting happen outside the call
phase, so they never count. At session end `{nodeid: [paths]}` is written as JSON.

Audit hooks cannot be removed: the hook stays installed for the rest of the process,
inert once the session finished.
"""

from __future__ import annotations

import json
import os
import sys
import types
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from guardcheck.messages import AUDIT_OUT_ENV, AUDIT_ROOTS_ENV

_IMPORT_FRAMES = ("<frozen importlib._bootstrap", "<frozen zipimport")


class _Recorder:
    def __init__(self, roots: list[str]) -> None:
        # Trailing separator: `/src/app` must not claim `/src/app2/x.py`.
        self.roots = tuple(os.path.join(os.path.realpath(r), "") for r in roots)
        self.current: str | None = None  # the test in its call phase, else None
        self.opened: dict[str, list[str]] = {}
        self.active = True

    def hook(self, event: str, args: tuple[Any, ...]) -> None:
        if event != "open" or self.current is None or not self.active:
            return
        target = args[0] if args else None
        if not isinstance(target, str | bytes | os.PathLike):
            return  # a file descriptor: no path to judge
        path = os.path.realpath(os.fsdecode(target))
        if path.endswith((".pyc", ".pyo")) or not path.startswith(self.roots):
            return
        if _inside_import():
            return
        seen = self.opened.setdefault(self.current, [])
        if path not in seen:
            seen.append(path)


def _inside_import() -> bool:
    frame: types.FrameType | None = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_filename.startswith(_IMPORT_FRAMES):
            return True
        frame = frame.f_back
    return False


_recorder: _Recorder | None = None


def pytest_configure(config: pytest.Config) -> None:
    global _recorder
    if os.environ.get(AUDIT_OUT_ENV) and _recorder is None:
        roots = [r for r in os.environ.get(AUDIT_ROOTS_ENV, "").split(os.pathsep) if r]
        _recorder = _Recorder(roots)
        sys.addaudithook(_recorder.hook)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    # Only the call phase: fixtures' setup may legitimately read data files.
    if _recorder is not None:
        _recorder.current = item.nodeid
    try:
        yield
    finally:
        if _recorder is not None:
            _recorder.current = None


def pytest_sessionfinish(session: pytest.Session) -> None:
    if _recorder is None:
        return
    _recorder.active = False
    out = Path(os.environ[AUDIT_OUT_ENV])
    out.write_text(json.dumps(_recorder.opened, indent=1, sort_keys=True), encoding="utf-8")
