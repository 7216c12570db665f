"""The import walls of docs/DESIGN.md, read from the import graph of guardcheck's own modules.

This reads the `ast` of guardcheck's modules on purpose: the walls are a property of the
code's structure, not a behaviour of the code under test.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "guardcheck"

# package -> the guardcheck modules/packages it may import (besides itself).
WALLS: dict[str, set[str]] = {
    # Runs inside the user's pytest: the less it drags in, the less it disturbs.
    "child": {"model", "messages"},
    # `pytestrun`: the `--collect-only` run, through the one pytest-subprocess helper.
    "catalogue": {"model", "errors", "exitcodes", "options", "edit", "splices", "pytestrun"},
    "edit": {"model", "errors", "exitcodes", "splices"},
    # splices.py is part of the value layer: model re-exports its Splice.
    "reports": {"model", "splices"},
    # Flags in, one `api` call, a rendered report out.
    "commands": {"api", "reports", "commands"},
    "lint": {"model", "errors", "exitcodes"},
    # `git`: one helper that runs git (it imports only `errors`), for a revision's files.
    "equiv": {"model", "errors", "exitcodes", "git"},
    # A sweep builds Mutants with edit's public engine and catalogue's id rules; `git` for
    # `--since`.
    "sweep": {"model", "errors", "exitcodes", "splices", "edit", "catalogue", "git"},
    "shard": {"model", "errors", "splices"},
    # A capability built on the pipeline: lab and catalogue work goes through it; its reports
    # escape project text with reports' shared rules (`reports.escaping`); it calls the leaf
    # package equiv directly; `catalogue` only for the listing's `Row` type.
    "refactor": {
        "pipeline",
        "model",
        "options",
        "errors",
        "exitcodes",
        "gitbase",
        "pytestrun",
        "reports",
        "equiv",
        "catalogue",
    },
    # Like refactor; `messages` names the audit plugin's environment variables; it reads the
    # lint's `source-reading` findings.
    "review": {
        "pipeline",
        "model",
        "options",
        "errors",
        "exitcodes",
        "messages",
        "gitbase",
        "pytestrun",
        "reports",
        "lint",
    },
    # The orchestration: everything a step needs, never what is built on it (the facade,
    # the commands, review, refactor), so no cycle runs through it.
    "pipeline": {
        "applyfile",
        "cache",
        "catalogue",
        "errors",
        "exitcodes",
        "lab",
        "merge",
        "model",
        "options",
        "provenance",
        "reports",
        "shard",
        "splices",
        "sweep",
    },
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


def imports_of(path: Path, modules: frozenset[str] = frozenset()) -> Iterator[str]:
    """Absolute names of what `path` imports, anywhere in it (functions included)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    name = module_name(path)
    yield from imports_in(
        tree, name if path.name == "__init__.py" else name.rpartition(".")[0], modules
    )


def imports_in(tree: ast.Module, package: str, modules: frozenset[str]) -> Iterator[str]:
    """Every import statement of `tree`, at module level or inside a function or class, by
    absolute name (`from a import b` is `a.b` when that is a module); relative imports are
    resolved from `package`. An import inside a function runs later, but it still needs the
    module it names: a cycle through it is a cycle."""
    for node in ast.walk(tree):
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


def own_modules() -> dict[str, Path]:
    return {module_name(p): p for p in PACKAGE.rglob("*.py")}


def graph() -> dict[str, set[str]]:
    """module -> the guardcheck modules it imports (a fresh copy: callers may change it)."""
    return {name: set(targets) for name, targets in _graph().items()}


@functools.cache
def _graph() -> dict[str, frozenset[str]]:
    modules = own_modules()
    names = frozenset(modules)
    return {
        name: frozenset(i for i in imports_of(path, names) if i in modules and i != name)
        for name, path in modules.items()
    }


def area(module: str) -> str:
    """`guardcheck.lab.execute.session` -> "lab", `guardcheck.api` -> "api", `guardcheck` itself."""
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


def test_nothing_imports_the_api_but_the_commands():
    """`api` is the facade over the pipeline: what is built on the pipeline (review,
    refactor) imports it, never the facade (they did, through a cycle back into `api`)."""
    importers = sorted(
        name
        for name, targets in graph().items()
        if area(name) != "commands" and "guardcheck.api" in targets
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


def import_cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Each cycle a depth-first walk of `edges` meets, as the modules around it."""
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the stack, 2: done

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append([*stack[stack.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt, [*stack, nxt])
        state[node] = 2

    for start in sorted(edges):
        if start not in state:
            visit(start, [start])
    return cycles


def test_there_are_no_import_cycles():
    """Imports inside functions count: a module imported late still needs the module it
    imports, and a package's `__init__` counts like any module."""
    assert import_cycles(graph()) == []


def test_the_cycle_finder_sees_a_cycle_through_an_import_inside_a_function():
    """Guards the check itself: `api` -> `review.verify` -> `api` went unseen while the cycle
    test read top-level imports only (`api` imports `review.verify` inside a function)."""
    edges = graph()
    assert "guardcheck.review.verify" in edges["guardcheck.api"]
    edges["guardcheck.review.verify"] = edges["guardcheck.review.verify"] | {"guardcheck.api"}
    assert any(
        {"guardcheck.api", "guardcheck.review.verify"} <= set(cycle)
        for cycle in import_cycles(edges)
    )


PROBE = """
import os


class Probe:
    def method(self):
        def inner():
            from ..api import run
            import guardcheck.pipeline.run
        return inner
"""


def test_the_reader_sees_an_import_inside_a_function():
    """Guards the reader: an import nested in a method's inner function is read, relative
    ones resolved from the module's package."""
    modules = frozenset({"guardcheck.api", "guardcheck.pipeline.run"})
    found = set(imports_in(ast.parse(PROBE), "guardcheck.lab", modules))
    assert found == {"os", "guardcheck.api", "guardcheck.pipeline.run"}


def test_the_wall_reader_sees_a_crossing():
    """The reader itself must catch an import, or every wall test above passes vacuously."""
    probe = PACKAGE / "child" / "host.py"
    assert "guardcheck.messages" in set(imports_of(probe, frozenset(own_modules())))
    assert "guardcheck.child.workdirs" in graph()["guardcheck.child.host"]
