"""A test file parsed once with the metadata every rule asks for, and a cache of them.

Rules see names as qualified names (libcst's QualifiedNameProvider), so
`from inspect import getsource as gs` and `import pytest as pt` are recognised
without each rule re-implementing import resolution.
"""

from __future__ import annotations

import ast
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import libcst as cst
from libcst.metadata import (
    CodeRange,
    MetadataWrapper,
    PositionProvider,
    QualifiedName,
    QualifiedNameProvider,
    Scope,
    ScopeProvider,
)

from guardcheck.lint.finder import is_test_file
from guardcheck.lint.finding import PARSE_ERROR, Finding

T = TypeVar("T")


@dataclass(frozen=True)
class TestFile:
    path: Path  # absolute
    display: str  # as findings name it
    module: cst.Module
    positions: Mapping[cst.CSTNode, CodeRange]
    qualified: Mapping[cst.CSTNode, Collection[QualifiedName]]
    scopes: Mapping[cst.CSTNode, Scope | None]

    __test__ = False  # a name pytest would otherwise try to collect as a test class

    def qualified_names(self, node: cst.CSTNode) -> Collection[QualifiedName]:
        return _resolved(self.qualified, node, ())

    def names(self, node: cst.CSTNode) -> set[str]:
        """The qualified names `node` may refer to, e.g. {'inspect.getsource'} for `gs`."""
        return {q.name for q in self.qualified_names(node)}

    def scope(self, node: cst.CSTNode) -> Scope | None:
        return _resolved(self.scopes, node, None)

    def refers_to(self, node: cst.CSTNode, candidates: Collection[str]) -> bool:
        return not self.names(node).isdisjoint(candidates)

    def line(self, node: cst.CSTNode) -> int:
        return self.positions[node].start.line

    def finding(self, node: cst.CSTNode, rule: str, message: str, fix: str) -> Finding:
        start = self.positions[node].start
        return Finding(self.display, start.line, start.column + 1, rule, message, fix)


def _resolved(mapping: Mapping[cst.CSTNode, Any], node: cst.CSTNode, default: T) -> T:
    # MetadataWrapper.resolve hands out some values as lazy thunks computed on first
    # use (CSTVisitor.get_metadata unwraps them the same way); no metadata value
    # itself is callable, so calling what is callable is exact.
    value = mapping.get(node, default)
    return value() if callable(value) else value


def parse_test_file(path: Path, display: str) -> TestFile | Finding:
    """The parsed file, or a parse-error finding: a broken file must not end the run."""
    try:
        source = path.read_bytes()
        module = cst.parse_module(source)  # bytes: libcst honours the coding cookie
    except cst.ParserSyntaxError as exc:
        return _parse_error(display, source, exc)
    except (OSError, UnicodeDecodeError) as exc:
        return Finding(
            display, 1, 1, PARSE_ERROR, f"cannot be read: {exc}", "make the file readable text"
        )
    # unsafe_skip_copy: metadata must be keyed by *these* nodes, which rules walk.
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    return TestFile(
        path=path,
        display=display,
        module=module,
        positions=wrapper.resolve(PositionProvider),
        qualified=wrapper.resolve(QualifiedNameProvider),
        scopes=wrapper.resolve(ScopeProvider),
    )


def _parse_error(display: str, source: bytes, exc: cst.ParserSyntaxError) -> Finding:
    # Python's own parser names the line pytest will show; libcst's recovery point
    # is often a line later. Only if Python accepts the file is libcst the reason.
    try:
        compile(source, display, "exec", flags=ast.PyCF_ONLY_AST)
    except SyntaxError as syntax:
        line, column = syntax.lineno or 1, syntax.offset or 1
        message = f"not valid Python, nothing in it was checked: {syntax.msg}"
        fix = "fix the syntax error (pytest cannot import this file either)"
    else:
        line, column = exc.raw_line, exc.raw_column + 1
        message = f"libcst cannot parse it, nothing in it was checked: {exc.message}"
        fix = "Python accepts it, so this is a gap in guardcheck: please report it"
    return Finding(display, line, column, PARSE_ERROR, message, fix)


class ParseCache:
    """Each file parsed once per run, whether it is linted or only read for its helpers."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self._files: dict[Path, TestFile | Finding] = {}
        self._holds_tests: dict[Path, bool] = {}

    def display(self, path: Path) -> str:
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return path.as_posix()

    def get(self, path: Path) -> TestFile | Finding:
        path = path.resolve()
        if path not in self._files:
            self._files[path] = parse_test_file(path, self.display(path))
        return self._files[path]

    def conftests_for(self, path: Path) -> list[TestFile]:
        """The parsed conftest.py files pytest loads for `path`, nearest first, up to the root."""
        found = []
        for folder in path.resolve().parents:
            conftest = folder / "conftest.py"
            if conftest.is_file() and conftest != path.resolve():
                parsed = self.get(conftest)
                if isinstance(parsed, TestFile):
                    found.append(parsed)
            # Outside the root only the file's own folder: a stray conftest above is not ours.
            if folder == self.root or not folder.is_relative_to(self.root):
                break
        return found

    def is_test_code(self, path: Path) -> bool:
        """Whether a module is test code (a helper) rather than the code under test.

        Test code sits in a folder that holds test files or a conftest.py, or below
        such a folder inside the root; the root itself counts only for a module
        directly in it. So `tests/utils.py` is a helper, while `toolz/itertoolz.py`
        of a flat layout, whose tests live in `toolz/tests/`, is not.
        """
        folder = path.resolve().parent
        if self._holds_test_files(folder):
            return True
        return any(
            self._holds_test_files(parent)
            for parent in folder.parents
            if parent != self.root and parent.is_relative_to(self.root)
        )

    def _holds_test_files(self, folder: Path) -> bool:
        if folder not in self._holds_tests:
            self._holds_tests[folder] = any(
                child.is_file() and is_test_file(child) for child in folder.iterdir()
            )
        return self._holds_tests[folder]
