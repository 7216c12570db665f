"""The import walls of docs/DESIGN.md, read from the import graph of guardcheck's own modules.

This reads the `ast` of guardcheck's modules on purpose: the walls are a property of the
code's structure, not a behaviour of the code under test.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "guardcheck"

# package -> the guardcheck modules/packages it may import (besides itself).
WALLS: dict[str, set[str]] = {
    # Runs inside the user's pytest: the less it drags in, the less it disturbs.
    "child": {"model", "messages"},
    "catalogue": {"model", "errors", "exitcodes", "options", "edit", "splices"},
    "edit": {"model", "errors", "exitcodes", "splices"},
    # splices.py is part of the value layer: model re-exports its Splice.
    "reports": {"model", "splices"},
    "commands": {"api", "options", "reports", "commands", "guardcheck"},
    "lint": {"model", "errors", "exitcodes"},
    "equiv": {"model", "errors", "exitcodes"},
    # A sweep builds Mutants with edit's public engine and catalogue's id rules.
    "sweep": {"model", "errors", "exitcodes", "splices", "edit", "catalogue"},
    "shard": {"model", "errors", "splices"},
    # A capability built on the API: lab, catalogue and equiv work goes through it; its
    # reports escape project text with reports' shared rules (`reports.escaping`); its
    # differential check's worker process calls the leaf package equiv directly.
    "refactor": {
        "api", "model", "options", "errors", "exitcodes", "gitbase", "reports", "equiv"
    },
    # Like refactor; `messages` names the audit plugin's environment variables.
    # Its reports escape project text with reports' shared rules (`reports.escaping`).
    "review": {"api", "model", "options", "errors", "exitcodes", "messages", "gitbase", "reports"},
    "merge": {"model", "errors", "exitcodes", "reports", "provenance", "shard", "splices"},
    # Incremental results: keys from values and options (catalogue.load: which files, no
    # libcst); never the lab, never the reports.
    "cache": {"guardcheck", "model", "options", "shard", "splices", "errors", "catalogue"},
    # The pull-request comment and the action's steps: the standard library, nothing of ours
    # but the version (the action runs `guardcheck review` as a command).
    "github": {"guardcheck"},
}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(
    path: Path, modules: frozenset[str] = frozenset(), *, top_level_only: bool = False
) -> Iterator[str]:
    """Absolute names of what `path` imports (`from a import b` is `a.b` when that is a module).

    `top_level_only`: only what runs when the module is imported (not inside functions).
    """
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = (
        module_name(path) if path.name == "__init__.py" else module_name(path).rpartition(".")[0]
    )
    nodes = _top_level(tree) if top_level_only else ast.walk(tree)
    for node in nodes:
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            for alias in node.names:
                # `from guardcheck import api` imports the module guardcheck.api, while
                # `from guardcheck import __version__` imports the package itself.
                name = f"{base}.{alias.name}"
                yield name if name in modules else base


def _top_level(tree: ast.Module) -> Iterator[ast.AST]:
    """Statements run at import: the module body, into if/try blocks, not into defs."""
    pending: list[ast.AST] = list(tree.body)
    while pending:
        node = pending.pop()
        yield node
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            pending.extend(ast.iter_child_nodes(node))
        elif isinstance(node, ast.ClassDef):
            pending.extend(node.body)


def own_modules() -> dict[str, Path]:
    return {module_name(p): p for p in PACKAGE.rglob("*.py")}


def graph(*, top_level_only: bool = False) -> dict[str, set[str]]:
    modules = own_modules()
    names = frozenset(modules)
    return {
        name: {
            i
            for i in imports_of(path, names, top_level_only=top_level_only)
            if i in modules and i != name
        }
        for name, path in modules.items()
    }


def area(module: str) -> str:
    """`guardcheck.lab.session` -> "lab", `guardcheck.api` -> "api", `guardcheck` itself."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


@pytest.mark.parametrize("package", sorted(WALLS))
def test_each_package_imports_only_what_its_wall_allows(package):
    allowed = WALLS[package] | {package}
    crossings = sorted(
        f"{name} imports {target}"
        for name, targets in graph().items()
        if area(name) == package
        for target in targets
        if area(target) not in allowed
    )
    assert crossings == []


def test_nothing_imports_the_commands_but_the_entry_point():
    importers = sorted(
        name
        for name, targets in graph().items()
        if area(name) != "commands" and name != "guardcheck.__main__"
        if any(area(t) == "commands" for t in targets)
    )
    assert importers == []


def test_guardcheck_and_target_app_never_import_each_other():
    target_app = ROOT / "target_app"
    into_guardcheck = sorted(
        str(p.relative_to(ROOT))
        for p in target_app.rglob("*.py")
        if any(i.split(".")[0] == "guardcheck" for i in imports_of(p))
    )
    into_target_app = sorted(
        name
        for name, path in own_modules().items()
        if any(i.split(".")[0] == "target_app" for i in imports_of(path))
    )
    assert (into_guardcheck, into_target_app) == ([], [])


def test_there_are_no_import_cycles():
    """At import time: a capability the API imports when it runs (refactor) may call the API;
    the walls above still count those deferred imports."""
    edges = graph(top_level_only=True)
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the stack, 2: done

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(edges.get(node, ())):
            # A package's __init__ importing its own submodules is not a cycle of concern.
            if nxt.startswith(node + "."):
                continue
            if state.get(nxt) == 1:
                cycles.append([*stack[stack.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt, [*stack, nxt])
        state[node] = 2

    for start in sorted(edges):
        if start not in state:
            visit(start, [start])
    assert cycles == []


def test_the_wall_reader_sees_a_crossing():
    """The reader itself must catch an import, or every wall test above passes vacuously."""
    probe = PACKAGE / "child" / "host.py"
    assert "guardcheck.messages" in set(imports_of(probe, frozenset(own_modules())))
    assert "guardcheck.child.workdirs" in graph()["guardcheck.child.host"]
