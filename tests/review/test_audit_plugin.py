"""`-p guardcheck.child.audit`: call-phase opens of source files count; imports do not."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.review import PROJECTS, copy_tree

from guardcheck.messages import AUDIT_OUT_ENV, AUDIT_ROOTS_ENV

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def opened(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    root = tmp_path_factory.mktemp("audit")
    copy_tree(PROJECTS / "review_audit", root)
    out = root / "opened.json"
    env = {**os.environ, AUDIT_OUT_ENV: str(out), AUDIT_ROOTS_ENV: str(root / "pkg")}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "guardcheck.child.audit", "-p", "no:cacheprovider"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout
    return {
        nodeid.split("::")[1]: [Path(p).name for p in paths]
        for nodeid, paths in json.loads(out.read_text()).items()
    }


def test_reading_a_source_file_with_open_is_recorded(opened):
    assert opened["test_reads_with_open"] == ["mod.py"]


def test_reading_through_linecache_is_recorded(opened):
    assert opened["test_reads_through_linecache"] == ["mod.py"]


def test_an_import_during_the_call_is_not_a_read(opened):
    """Regression: imports raise the same `open` event, with the same mode and flags."""
    assert "test_imports_lazily" not in opened


def test_reads_at_module_import_and_plain_code_are_not_recorded(opened):
    assert sorted(opened) == ["test_reads_through_linecache", "test_reads_with_open"]
