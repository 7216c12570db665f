"""A target module parsed once: its CST, positions, parents and scopes.

`guardcheck check` applies many edits to a handful of files, so everything the
engine asks of a file is computed in one pass and cached by the file's text.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache

import libcst as cst
from libcst.metadata import CodePosition, CodeRange, MetadataWrapper, PositionProvider

from guardcheck.edit.matching import structural_children

Range = tuple[int, int]  # [start, end) indices into ParsedModule.nodes: one subtree


@dataclass(frozen=True)
class ParsedModule:
    source: str
    module: cst.Module
    nodes: tuple[cst.CSTNode, ...]  # every structural node, pre-order: a subtree is a slice
    positions: Mapping[cst.CSTNode, CodeRange]
    parents: Mapping[int, cst.CSTNode]  # id(node) -> parent
    identifiers: frozenset[int]  # ids of expression nodes that are not expressions here
    scopes: Mapping[str, tuple[Range, ...]]  # qualified name -> the defs/classes with it
    line_starts: tuple[int, ...]  # offset of each line's first character

    @property
    def whole(self) -> Range:
        return (0, len(self.nodes))

    def expressions(self, ranges: tuple[Range, ...]) -> Iterator[cst.BaseExpression]:
        """Expressions inside the ranges: not `x.attr`, `def name`, `k=` or imported names."""
        for start, end in ranges:
            for node in self.nodes[start:end]:
                if isinstance(node, cst.BaseExpression) and id(node) not in self.identifiers:
                    yield node

    def line_of(self, node: cst.CSTNode) -> int:
        return self.positions[node].start.line

    def offset(self, position: CodePosition) -> int:
        return self.line_starts[position.line - 1] + position.column

    def statement_of(self, node: cst.CSTNode) -> cst.CSTNode:
        """The statement `node` is part of (itself if it is one)."""
        while not isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            parent = self.parents.get(id(node))
            if parent is None:
                return node
            node = parent
        return node

    def indent_of(self, statement: cst.CSTNode) -> str:
        """The indentation of the block `statement` is in, as written in the source."""
        start = self.positions[statement].start
        line_start = self.line_starts[start.line - 1]
        return self.source[line_start : line_start + start.column]


@lru_cache(maxsize=64)
def parse_source(source: str) -> ParsedModule:
    """Parse and index a module, cached by its text. Raises libcst.ParserSyntaxError."""
    module = cst.parse_module(source)
    # unsafe_skip_copy: positions must be keyed by *these* nodes; the tree is immutable anyway.
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    index = _Indexer()
    index.visit(module, None, "")
    line_starts = [0]
    for line in source.splitlines(keepends=True):
        line_starts.append(line_starts[-1] + len(line))
    return ParsedModule(
        source=source,
        module=module,
        nodes=tuple(index.nodes),
        positions=positions,
        parents=index.parents,
        identifiers=frozenset(index.identifiers),
        scopes={name: tuple(ranges) for name, ranges in index.scopes.items()},
        line_starts=tuple(line_starts),
    )


class _Indexer:
    def __init__(self) -> None:
        self.nodes: list[cst.CSTNode] = []
        self.parents: dict[int, cst.CSTNode] = {}
        self.identifiers: set[int] = set()
        self.scopes: dict[str, list[Range]] = {}

    def visit(self, node: cst.CSTNode, parent: cst.CSTNode | None, prefix: str) -> None:
        start = len(self.nodes)
        self.nodes.append(node)
        if parent is not None:
            self.parents[id(node)] = parent
        self.identifiers.update(id(n) for n in _identifier_children(node))
        inner = prefix
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            inner = f"{prefix}{node.name.value}."
        for child in structural_children(node):
            self.visit(child, node, inner)
        if isinstance(node, (cst.FunctionDef, cst.ClassDef)):
            self.scopes.setdefault(inner[:-1], []).append((start, len(self.nodes)))
        if isinstance(node, (cst.Import, cst.ImportFrom)):
            self.identifiers.update(id(n) for n in self.nodes[start:])


def _identifier_children(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Children of `node` that are identifiers, not expressions (`x.attr`, `def name`, `k=`)."""
    if isinstance(node, cst.Attribute):
        yield node.attr
    elif isinstance(node, (cst.FunctionDef, cst.ClassDef, cst.Param, cst.NameItem)):
        yield node.name
    elif isinstance(node, cst.Arg) and node.keyword is not None:
        yield node.keyword
