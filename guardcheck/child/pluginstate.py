"""pytest plugins whose state, kept for the whole session, forked children must not share.

pytest-mypy runs mypy once per session, at the first of its items, over every file
it collected, and keeps the result in a file whose path it picks at configure time;
every later mypy item, and the `mypy-status` item that fails when mypy found errors
anywhere (in the package the tests import too), reads that file. Each child forked
from the host inherits the host's path: the baseline's children would write the
result there, and every mutant's child would then read the original code's result
instead of type-checking the mutant. So each child gets its own path in its private
basetemp, and runs mypy again, as a plain pytest session of the mutant would.

Its items also share that one run: only the first reads the source, yet the status
item is the one that fails for an error in a source file. So a read by one of them
counts as a read by all of them (`shared_readers`): a mutant of a file they read
runs them all. And a read is not always seen: mypy 2 reads source files in native
code, past the audit hook (child/sourcereads.py), and with its cache it reads none
it has seen unchanged. So mypy's items count as readers of every project file the
tests imported (`type_checked`): mypy follows the tests' imports to them.

pytest-mypy's stash is its internals (pinned in pyproject's dev extra); with another
shape, nothing is changed and the plugin behaves as in the host.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Iterable
from pathlib import Path

import pytest


def private_plugin_state(config: pytest.Config, tmp: Path) -> None:
    """Give this forked child its own copy of the plugins' session-wide state."""
    plugin = sys.modules.get("pytest_mypy")
    key = getattr(plugin, "stash_key", {}).get("config") if plugin is not None else None
    if key is None or key not in config.stash:
        return
    state = config.stash[key]
    if (
        dataclasses.is_dataclass(state)
        and not isinstance(state, type)
        and hasattr(state, "mypy_results_path")
    ):
        # Not created: the first mypy item of this child runs mypy and writes it.
        fresh = tmp / f"guardcheck-pytest-mypy-results-{os.getpid()}.json"
        config.stash[key] = dataclasses.replace(state, mypy_results_path=fresh)


def mypy_items(items: Iterable[pytest.Item]) -> list[str]:
    """The node ids of pytest-mypy's items, which share one mypy run."""
    plugin = sys.modules.get("pytest_mypy")
    kind = getattr(plugin, "MypyItem", None) if plugin is not None else None
    if not isinstance(kind, type):
        return []
    return [item.nodeid for item in items if isinstance(item, kind)]


def shared_readers(group: list[str]) -> dict[str, list[str]]:
    """For each item whose reads stand for its group's (`mypy_items`): the whole group."""
    return {nodeid: group for nodeid in group}


def type_checked(checkers: list[str], imported: Iterable[str]) -> dict[str, list[str]]:
    """Source file -> the items that type-check it (`mypy_items`): every file the tests
    imported."""
    return {path: checkers for path in imported} if checkers else {}
