"""Fixtures for `guardcheck refactor`'s tests (helpers live in support/refactor.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.refactor import build_migration


@pytest.fixture
def migration(tmp_path: Path) -> Path:
    """The fixture migration as a git repository: revision 1, then revision 2 (HEAD)."""
    return build_migration(tmp_path / "project")
