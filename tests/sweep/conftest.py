"""Fixtures for the sweep tests: fixture trees and mutmut's own generator as the oracle."""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from mutmut import configuration
from mutmut.mutation.file_mutation import mutate_file_contents

from guardcheck.model import Mutant

FunctionDumps = Counter[tuple[str, str]]  # (mangled function name, ast dump of a mutated copy)


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


def _functions(tree: ast.Module) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Module-level functions and methods of module-level classes, with mutmut's mangled key."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield f"x_{node.name}", node
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    yield f"xǁ{node.name}ǁ{item.name}", item


def _dump(function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> str:
    function.name = name
    return ast.dump(function)


def mutmut_dumps(path: str, source: str) -> tuple[int, FunctionDumps]:
    """What `mutmut run` generates for a file: its mutant count and each mutated function.

    Its mutated file holds a copy `x_f__mutmut_3` (or `xǁClassǁm__mutmut_3`, in
    the class) of the function per mutant; renamed back, each is comparable.
    """
    mutated = mutate_file_contents(path, source)
    dumps: FunctionDumps = Counter()
    tree = ast.parse(mutated.code)
    functions = [n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            functions += [
                n for n in node.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
            ]
    for function in functions:
        key, marker, number = function.name.rpartition("__mutmut_")
        if marker and number.isdigit():
            name = key.removeprefix("x_") if key.startswith("x_") else key.rpartition("ǁ")[2]
            dumps[(key, _dump(function, name))] += 1
    return len(mutated.mutant_names), dumps


def sweep_dumps(mutants: list[Mutant], source: str) -> FunctionDumps:
    """Each sweep mutant's mutated function: the function around its line, which must change."""
    original = {key: ast.dump(f) for key, f in _functions(ast.parse(source))}
    dumps: FunctionDumps = Counter()
    for mutant in mutants:
        (change,) = mutant.changes
        # The line of the character before the splice is the function's even when the
        # splice deletes the function's last lines (a `case` dropped from a `match`).
        line = change.mutated.count("\n", 0, max(change.splices[0].start - 1, 0)) + 1
        around = [
            (key, f)
            for key, f in _functions(ast.parse(mutant.changes[0].mutated))
            if f.lineno <= line <= (f.end_lineno or f.lineno)
        ]
        assert len(around) == 1, f"{mutant.id} is in {len(around)} functions"
        key, function = around[0]
        dump = ast.dump(function)
        assert dump != original[key], f"{mutant.id} does not change {key}"
        dumps[(key, dump)] += 1
    return dumps


@pytest.fixture
def mutmut_oracle(mutmut_config: None) -> Callable[[str, str], tuple[int, FunctionDumps]]:
    return mutmut_dumps
