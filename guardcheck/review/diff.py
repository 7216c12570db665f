"""What changed since the base: files, lines (in today's files) and the functions around them.

Lines come from `git diff` through the pipeline (the sweep's `changed_lines_since`);
functions from libcst positions, so a function counts as changed when any line of
it (decorators and signature included) changed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path, PurePosixPath

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from guardcheck.pipeline.project import read_source

# pytest's default `python_files` (conftest.py is test code too, but holds no tests).
TEST_FILE_GLOBS = ("test_*.py", "*_test.py")


@dataclass(frozen=True)
class Function:
    """A function or method of today's file: `qualname` and its lines (first to last)."""

    path: str
    qualname: str  # "Class.method", "outer"
    start: int
    end: int

    def lines(self) -> range:
        return range(self.start, self.end + 1)

    def nodeid(self) -> str:
        """The pytest node id a test function has (parametrized ids extend it with `[...]`)."""
        return "::".join([self.path, *self.qualname.split(".")])


@dataclass
class Change:
    """The diff between the base and the working tree, for `.py` files."""

    lines: dict[str, set[int]]  # posix path relative to the root -> changed lines
    functions: dict[str, list[Function]] = field(default_factory=dict)  # every function per file

    def changed_functions(self, path: str) -> list[Function]:
        touched = self.lines.get(path, set())
        return [f for f in self.functions.get(path, []) if touched.intersection(f.lines())]

    def source_files(self) -> list[str]:
        return sorted(p for p in self.lines if not is_test_file(p) and not _conftest(p))

    def test_files(self) -> list[str]:
        return sorted(p for p in self.lines if is_test_file(p))


def is_test_file(path: str) -> bool:
    name = PurePosixPath(path).name
    return any(fnmatch(name, glob) for glob in TEST_FILE_GLOBS)


def _conftest(path: str) -> bool:
    return PurePosixPath(path).name == "conftest.py"


def build_change(root: Path, lines: dict[str, set[int]]) -> Change:
    """`lines` (path -> changed lines) of the `.py` files that exist, and their functions."""
    kept = {p: set(v) for p, v in lines.items() if p.endswith(".py") and (root / p).is_file()}
    change = Change(kept)
    for path in kept:
        change.functions[path] = functions_of(path, read_source(root, path))
    return change


def functions_of(path: str, text: str) -> list[Function]:
    """Every function and method in `text`, nested ones too; [] when it does not parse."""
    try:
        wrapper = MetadataWrapper(cst.parse_module(text))
    except cst.ParserSyntaxError:
        return []
    collector = _Functions(path)
    wrapper.visit(collector)
    return collector.found


class _Functions(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, path: str) -> None:
        self.path = path
        self.stack: list[str] = []
        self.found: list[Function] = []

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.stack.append(node.name.value)

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.stack.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.stack.append(node.name.value)
        span = self.get_metadata(PositionProvider, node)
        # The decorators belong to the function: a changed parametrize changes the test.
        start = min([span.start.line, *(self._line(d) for d in node.decorators)])
        self.found.append(Function(self.path, ".".join(self.stack), start, span.end.line))

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.stack.pop()

    def _line(self, node: cst.CSTNode) -> int:
        return self.get_metadata(PositionProvider, node).start.line
