"""Issue 23's acceptance for `equiv @REV`: recall 100% on the view and import cases.

A copy of target_app, with a package `bedhooks` beside it that reaches into it
(a `--stateful` factory returning a runner's legacy view, functions importing
its predicate absolutely and through `importlib`), is committed as the base;
each case is one refactor committed on top, with its ground truth written
before equiv ran on it: `changed` (equiv must find a disagreement between the
target at HEAD~1 and today) or `same` (it must not). Only target_app's files
change in the view and import cases, never the target compared, which is what
made `@REV` compare today's code with itself before (recall 50%).

Reproduce the measurement: `.venv/bin/python -m pytest -q tests/equiv/test_revision_bed.py`.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from support.projects import commit, edit, write_files

from guardcheck.equiv.check import check
from guardcheck.equiv.request import EquivRequest

pytestmark = pytest.mark.slow  # real git histories

REPO = Path(__file__).resolve().parents[2]
SESSION_STATE = "target_app/gateway/session_state.py"
TURN_CONTEXT = "target_app/agent/turn_context.py"

BEDHOOKS = {
    "pyproject.toml": '[project]\nname = "bed"\nversion = "0"\n\n'
    '[tool.guardcheck]\nsource = ["target_app", "bedhooks"]\n',
    "bedhooks/__init__.py": "",
    "bedhooks/views.py": "from target_app.gateway.run import GatewayRunner\n\n\n"
    "def running_agents():\n    return GatewayRunner()._running_agents\n",
    "bedhooks/gates.py": "import importlib\n\n"
    "from target_app.agent.turn_context import compression_made_progress\n\n\n"
    "def progress(orig_len: int, new_len: int, orig_tokens: int, new_tokens: int) -> bool:\n"
    "    return compression_made_progress(orig_len, new_len, orig_tokens, new_tokens)\n\n\n"
    "def progress_dynamic(orig_len: int, new_len: int, orig_tokens: int, new_tokens: int)"
    " -> bool:\n"
    "    module = importlib.import_module('target_app.agent.turn_context')\n"
    "    return module.compression_made_progress(orig_len, new_len, orig_tokens, new_tokens)\n",
    "bedhooks/text.py": 'def slug(text: str, sep: str = "-") -> str:\n'
    "    return sep.join(text.split())\n",
}


@dataclass(frozen=True)
class Case:
    target: str  # package.module:qualname, compared at HEAD~1 and today
    path: str  # the one file the refactor edits
    old: str
    new: str
    truth: str  # "changed" or "same", written before the run
    stateful: bool = False


CASES = {
    # Views: the factory is in bedhooks, the view class in target_app.
    "view-get-default-empty-string": Case(
        "bedhooks.views:running_agents",
        SESSION_STATE,
        "    def __len__(self) -> int:\n",
        "    def get(self, key: str, default: Any = '') -> Any:\n"
        "        return self[key] if key in self else default\n\n"
        "    def __len__(self) -> int:\n",
        "changed",
        stateful=True,
    ),
    "view-sorted-iteration": Case(
        "bedhooks.views:running_agents",
        SESSION_STATE,
        "        return iter(keys)\n",
        "        return iter(sorted(keys))\n",
        "changed",
        stateful=True,
    ),
    "view-popitem-last-instead-of-first": Case(
        "bedhooks.views:running_agents",
        SESSION_STATE,
        "    def __len__(self) -> int:\n",
        "    def popitem(self) -> tuple[str, Any]:\n"
        "        keys = list(self)\n"
        "        if not keys:\n"
        "            raise KeyError('popitem(): view is empty')\n"
        "        return keys[-1], self.pop(keys[-1])\n\n"
        "    def __len__(self) -> int:\n",
        "changed",
        stateful=True,
    ),
    "view-len-rewritten": Case(
        "bedhooks.views:running_agents",
        SESSION_STATE,
        "        return sum(1 for _ in self)\n",
        "        return len([key for key in self])\n",
        "same",
        stateful=True,
    ),
    # Imports: the gate is in bedhooks, the predicate it imports in target_app.
    "import-absolute-ratio-loosened": Case(
        "bedhooks.gates:progress",
        TURN_CONTEXT,
        "_TOKEN_PROGRESS_RATIO = 0.95\n",
        "_TOKEN_PROGRESS_RATIO = 0.9\n",
        "changed",
    ),
    "import-importlib-ratio-loosened": Case(
        "bedhooks.gates:progress_dynamic",
        TURN_CONTEXT,
        "_TOKEN_PROGRESS_RATIO = 0.95\n",
        "_TOKEN_PROGRESS_RATIO = 0.9\n",
        "changed",
    ),
    "import-absolute-strict-edge": Case(
        "bedhooks.gates:progress",
        TURN_CONTEXT,
        "new_tokens < orig_tokens * _TOKEN_PROGRESS_RATIO",
        "new_tokens <= orig_tokens * _TOKEN_PROGRESS_RATIO",
        "changed",
    ),
    "import-predicate-rewritten": Case(
        "bedhooks.gates:progress",
        TURN_CONTEXT,
        "    return orig_tokens > 0 and new_tokens < orig_tokens * _TOKEN_PROGRESS_RATIO\n",
        "    if orig_tokens <= 0:\n        return False\n"
        "    return not new_tokens >= _TOKEN_PROGRESS_RATIO * orig_tokens\n",
        "same",
    ),
    # Defaults: the case, where every input passed `sep` and agreed.
    "default-dash-to-underscore": Case(
        "bedhooks.text:slug", "bedhooks/text.py", 'sep: str = "-"', 'sep: str = "_"', "changed"
    ),
}


@pytest.fixture(autouse=True)
def _todays_target_app_is_the_cases() -> Iterator[None]:
    """Today's side imports target_app from the case's copy: set aside the repository's
    target_app that other tests imported, and put it back afterwards."""

    def ours() -> list[str]:
        return [name for name in sys.modules if name.partition(".")[0] == "target_app"]

    saved = {name: sys.modules.pop(name) for name in ours()}
    yield
    for name in ours():
        del sys.modules[name]
    sys.modules.update(saved)


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("bed") / "base"
    shutil.copytree(
        REPO / "target_app", root / "target_app", ignore=shutil.ignore_patterns("__pycache__")
    )
    return commit(write_files(root, BEDHOOKS), "base")


@pytest.mark.parametrize("name", sorted(CASES))
def test_equiv_at_the_revision_matches_the_ground_truth(base, tmp_path, name):
    case = CASES[name]
    root = tmp_path / "bed"
    shutil.copytree(base, root)
    edit(root / case.path, case.old, case.new)
    commit(root, name)
    request = EquivRequest(
        root=root,
        old=f"{case.target}@HEAD~1",
        new=case.target,
        sources=("target_app", "bedhooks"),
        stateful=case.stateful,
        examples=300 if case.stateful else 20_000,
    )
    result = check(request)
    found = "same" if result.equal else "changed"
    assert found == case.truth, result.text()
