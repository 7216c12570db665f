"""Fixtures for the sweep tests: fixture trees and mutmut's own generator as the oracle."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from mutmut import configuration
from support.mutmut_oracle import FunctionDumps, mutmut_dumps


@pytest.fixture
def write_tree(tmp_path: Path) -> Callable[[dict[str, str]], Path]:
    """Write {relative path: text} under tmp_path (exact bytes: no newline translation)."""

    def write(files: dict[str, str]) -> Path:
        for relative, text in files.items():
            path = tmp_path / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(text.encode("utf-8"))
        return tmp_path

    return write


@pytest.fixture
def mutmut_config(tmp_path_factory: pytest.TempPathFactory, monkeypatch) -> Iterator[None]:
    """mutmut's global config, read as `mutmut run` would in a project with no settings.

    mutate_file_contents reads `do_not_mutate_patterns` from it; without a
    `[tool.mutmut]` table mutmut would guess the source folder from the cwd.
    """
    project = tmp_path_factory.mktemp("mutmut-project")
    (project / "pyproject.toml").write_text('[tool.mutmut]\nsource_paths = ["."]\n')
    configuration.reset_config()
    with monkeypatch.context() as patch:
        patch.chdir(project)
        configuration.config()
    yield
    configuration.reset_config()


@pytest.fixture
def mutmut_oracle(mutmut_config: None) -> Callable[[str, str], tuple[int, FunctionDumps]]:
    return mutmut_dumps
