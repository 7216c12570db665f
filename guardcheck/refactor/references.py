"""Every reference to a name in a Python file, with what it may stand for (libcst).

One scan per file yields `Reference`s: imports, names, attribute accesses and
the string targets of `monkeypatch.setattr("pkg.mod.name", ...)`,
`mock.patch("pkg.mod.name")` and `patch.object(Target, "name")`. Each carries
the absolute qualified names libcst's scope analysis resolves it to (local
names prefixed with the file's module), its line, and the qualified name of
the enclosing function or class. Comments and ordinary strings are never
references. Receivers are not type-inferred: `self._x` resolves to nothing
more than "attribute `_x`", which is why matching by attribute name exists.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import libcst as cst
from libcst.metadata import (
    MetadataWrapper,
    PositionProvider,
    QualifiedName,
    QualifiedNameProvider,
    QualifiedNameSource,
)

from guardcheck.refactor.layout import display, module_name

# Calls whose first (or, with an object, second) string argument names a target:
# mock.patch / mocker.patch / patch, monkeypatch.setattr / setattr, patch.object.
_PATCHERS = frozenset({"patch", "setattr", "patch.object"})


@dataclass(frozen=True)
class CallShape:
    """What a call passes, by position and by name."""

    positional: int  # arguments before any `*args`
    keywords: frozenset[str]
    unpacks: bool  # `*args` or `**kwargs`: anything may be passed

    def passes(self, name: str, index: int | None) -> bool | None:
        """Does the call pass parameter `name` (at `index` when positional)? None: unknown."""
        if name in self.keywords or (index is not None and index < self.positional):
            return True
        return None if self.unpacks else False


@dataclass(frozen=True)
class Reference:
    kind: str  # "import", "name", "attribute", "patch target", "call"
    text: str  # as written: `relay.runner._x`, `self._running_agents`, "relay.runner.x"
    qualified: frozenset[str]  # absolute qualified names it may stand for
    attr: str | None  # an attribute access's (or string target's) last name
    path: str  # posix, relative to the root
    line: int
    enclosing: str  # "Relay.begin_turn", or "<module>"
    call: CallShape | None = None  # for a "call": what it passes

    def stands_for(self, dotted: str) -> bool:
        """Does it name `dotted` (or something inside it) by qualified name?"""
        return any(q == dotted or q.startswith(dotted + ".") for q in self.qualified)

    def ends_with(self, dotted: str) -> bool:
        return any(q == dotted or q.endswith("." + dotted) for q in self.qualified)


def _absolute(name: str, package: str) -> str:
    """`.runner.Relay` seen from package `relay` is `relay.runner.Relay`."""
    if not name.startswith("."):
        return name
    level = len(name) - len(name.lstrip("."))
    base = package.split(".") if package else []
    base = base[: len(base) - (level - 1)] if level > 1 else base
    return ".".join([*base, name[level:]]) if base else name[level:]


class _Scanner(cst.CSTVisitor):
    METADATA_DEPENDENCIES = (QualifiedNameProvider, PositionProvider)

    def __init__(self, path: str, module: str, package: str) -> None:
        super().__init__()
        self.path, self.module, self.package = path, module, package
        self.stack: list[str] = []
        self.found: list[Reference] = []
        self._class_targets: set[int] = set()  # ids of names assigned in a class body
        self._skip: set[int] = set()  # names that are parts of an import or attribute

    # -- where we are -------------------------------------------------------

    def _enclosing(self) -> str:
        return ".".join(self.stack) or "<module>"

    def visit_ClassDef(self, node: cst.ClassDef) -> None:
        self.stack.append(node.name.value)
        for statement in node.body.body:
            if not isinstance(statement, cst.SimpleStatementLine):
                continue
            for small in statement.body:
                targets = getattr(small, "targets", None)
                if targets is not None:
                    self._class_targets.update(id(t.target) for t in targets)
                elif isinstance(small, cst.AnnAssign):
                    self._class_targets.add(id(small.target))

    def leave_ClassDef(self, original_node: cst.ClassDef) -> None:
        self.stack.pop()

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self.stack.append(node.name.value)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self.stack.pop()

    # -- what we record -----------------------------------------------------

    def _qualified(self, node: cst.CSTNode) -> frozenset[str]:
        names: set[QualifiedName] = self.get_metadata(QualifiedNameProvider, node, set())
        out = set()
        for q in names:
            if q.source is QualifiedNameSource.LOCAL:
                out.add(f"{self.module}.{q.name}" if self.module else q.name)
            elif q.source is QualifiedNameSource.IMPORT:
                out.add(_absolute(q.name, self.package))
            else:
                out.add(q.name)
        return frozenset(out)

    def _add(
        self,
        kind: str,
        node: cst.CSTNode,
        text: str,
        qualified: frozenset[str],
        attr: str | None,
        enclosing: str | None = None,
    ) -> None:
        line = self.get_metadata(PositionProvider, node).start.line
        self.found.append(
            Reference(kind, text, qualified, attr, self.path, line, enclosing or self._enclosing())
        )

    def visit_Import(self, node: cst.Import) -> bool:
        for alias in node.names:
            dotted = cst.Module([]).code_for_node(alias.name)
            self._add("import", alias, dotted, frozenset({dotted}), dotted.rsplit(".", 1)[-1])
        return False

    def visit_ImportFrom(self, node: cst.ImportFrom) -> bool:
        dots = "." * len(node.relative)
        written = cst.Module([]).code_for_node(node.module) if node.module else ""
        source = _absolute(dots + written, self.package) if dots else written
        if isinstance(node.names, cst.ImportStar):
            return False
        for alias in node.names:
            name = cst.Module([]).code_for_node(alias.name)
            dotted = f"{source}.{name}" if source else name
            self._add(
                "import", alias, f"from {dots}{written} import {name}", frozenset({dotted}), name
            )
        return False

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._skip.add(id(node.attr))
        text = cst.Module([]).code_for_node(node)
        self._add("attribute", node, text, self._qualified(node), node.attr.value)

    def visit_Name(self, node: cst.Name) -> None:
        if id(node) in self._skip:
            return
        enclosing = None
        if id(node) in self._class_targets:
            # A class attribute's own definition: it lives at `Class.attr`.
            enclosing = f"{self._enclosing()}.{node.value}"
        self._add("name", node, node.value, self._qualified(node), None, enclosing)

    def _record_call(self, node: cst.Call, func: str) -> None:
        positional, keywords, unpacks = 0, set(), False
        for arg in node.args:
            if arg.star:
                unpacks = True
            elif arg.keyword is not None:
                keywords.add(arg.keyword.value)
            elif not unpacks:
                positional += 1
        attr = node.func.attr.value if isinstance(node.func, cst.Attribute) else None
        line = self.get_metadata(PositionProvider, node).start.line
        shape = CallShape(positional, frozenset(keywords), unpacks)
        qualified = self._qualified(node.func)
        text = cst.Module([]).code_for_node(node)
        self.found.append(
            Reference("call", text, qualified, attr, self.path, line, self._enclosing(), shape)
        )

    def visit_Call(self, node: cst.Call) -> None:
        func = cst.Module([]).code_for_node(node.func)
        self._record_call(node, func)
        last = func.rsplit(".", 2)
        if not node.args or not ({last[-1], ".".join(last[-2:])} & _PATCHERS):
            return
        first = node.args[0].value
        if isinstance(first, cst.SimpleString) and len(node.args) >= 1:
            target = first.evaluated_value
            if isinstance(target, str) and "." in target and " " not in target:
                self._add(
                    "patch target",
                    first,
                    f"{func}({first.value})",
                    frozenset({target}),
                    target.rsplit(".", 1)[-1],
                )
                return
        if len(node.args) >= 2 and isinstance(node.args[1].value, cst.SimpleString):
            attr = node.args[1].value.evaluated_value
            if isinstance(attr, str) and attr.isidentifier():
                owners = self._qualified(first)
                self._add(
                    "patch target",
                    node.args[1].value,
                    f"{func}(..., {node.args[1].value.value})",
                    frozenset(f"{o}.{attr}" for o in owners),
                    attr,
                )


@lru_cache(maxsize=512)
def _scan_text(text: str, path: str, module: str, package: str) -> tuple[Reference, ...]:
    try:
        tree = cst.parse_module(text)
    except cst.ParserSyntaxError:
        return ()
    scanner = _Scanner(path, module, package)
    MetadataWrapper(tree).visit(scanner)
    return tuple(scanner.found)


def scan(root: Path, path: Path) -> tuple[Reference, ...]:
    """The references in one file; a file that does not parse has none (pytest reports it)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ()
    module = module_name(root, path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    return _scan_text(text, display(root, path), module, package)


def scan_all(root: Path, paths: Sequence[Path]) -> Iterator[Reference]:
    for path in paths:
        yield from scan(root, path)
