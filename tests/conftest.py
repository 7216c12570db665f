"""Shared fixtures for guardcheck's tests (target_app's own live in tests/target_app)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from support.projects import copy_project

# Fixture projects are data: their tests run only inside the projects guardcheck tests.
collect_ignore = ["fixtures"]


@pytest.fixture
def project(tmp_path: Path) -> Callable[..., Path]:
    """`project(tree, *overlays, git=False) -> Path`: a copy of tests/fixtures/projects/<tree>
    (with each overlay tree copied over it) at tmp_path/<tree>; with git, committed."""

    def make(tree: str, *overlays: str, git: bool = False) -> Path:
        return copy_project(tmp_path / tree, tree, *overlays, git=git)

    return make
