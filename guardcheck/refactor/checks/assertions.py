"""Check 3: tests that existed at the base and are gone, or now assert less.

Assertions are counted per test function with `ast`: `assert` statements and
calls that assert (`pytest.raises`/`warns`/`deprecated_call`, in a `with` or
not; `self.assertEqual`-style and `mock.assert_called_once_with`-style
calls). A test that is gone from its file but exists under the same name in
another test file today counts as moved, compared there. Informational
unless `--fail-on lost-assertions`.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from guardcheck.refactor.findings import CheckResult, Finding, Outcome
from guardcheck.refactor.layout import display, is_test_file, python_files, test_paths
from guardcheck.refactor.trees import Trees

KEY = "lost-assertions"
TITLE = "Lost assertions"
_ASSERTING_CALLS = frozenset({"raises", "warns", "deprecated_call"})


@dataclass(frozen=True)
class TestFunction:
    __test__ = False  # not a pytest test class

    nodeid: str  # tests/test_x.py::TestY::test_z
    name: str  # test_z
    path: str
    line: int
    assertions: int


def _called_name(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def count_assertions(function: ast.AST) -> int:
    count = 0
    for node in ast.walk(function):
        if isinstance(node, ast.Assert):
            count += 1
        elif isinstance(node, ast.Call):
            name = _called_name(node)
            if name in _ASSERTING_CALLS or name.startswith("assert"):
                count += 1
    return count


def _tests_in(body: list[ast.stmt], prefix: str, path: str) -> Iterator[TestFunction]:
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith(
            "test"
        ):
            yield TestFunction(
                f"{prefix}::{node.name}", node.name, path, node.lineno, count_assertions(node)
            )
        elif isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            yield from _tests_in(node.body, f"{prefix}::{node.name}", path)


def collect_tests(root: Path, paths: list[str]) -> dict[str, TestFunction]:
    found: dict[str, TestFunction] = {}
    for file in python_files(root, paths):
        if not is_test_file(file):
            continue
        try:
            tree = ast.parse(file.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, OSError):
            continue
        shown = display(root, file)
        for test in _tests_in(tree.body, shown, shown):
            found[test.nodeid] = test
    return found


def check_assertions(trees: Trees) -> CheckResult:
    then = collect_tests(trees.then.root, test_paths(trees.then))
    now = collect_tests(trees.today.root, test_paths(trees.today))
    by_name: dict[str, list[TestFunction]] = {}
    for test in now.values():
        by_name.setdefault(test.name, []).append(test)
    findings, moved = [], []
    for nodeid, old in sorted(then.items()):
        new = now.get(nodeid)
        if new is None:
            elsewhere = [t for t in by_name.get(old.name, []) if t.nodeid not in then]
            if len(elsewhere) == 1:
                new = elsewhere[0]
                moved.append(f"{nodeid} -> {new.nodeid}")
            else:
                findings.append(
                    Finding(
                        f"{nodeid} is gone or renamed ({old.assertions} assertion(s) at the base)",
                        path=old.path,
                        line=old.line,
                    )
                )
                continue
        if new.assertions < old.assertions:
            findings.append(
                Finding(
                    f"{new.nodeid} asserts less: {old.assertions} assertion(s) at the base, "
                    f"{new.assertions} now",
                    path=new.path,
                    line=new.line,
                )
            )
    notes = [f"{len(moved)} test(s) moved to another file: {', '.join(moved)}"] if moved else []
    if not findings:
        return CheckResult(
            KEY,
            TITLE,
            Outcome.PASSED,
            f"all {len(then)} base test(s) still exist with as many assertions",
            [],
            notes,
        )
    fails = KEY in trees.request.fail_on
    notes.append(
        "fails the command (--fail-on lost-assertions)"
        if fails
        else "informational: pass --fail-on lost-assertions to fail on it"
    )
    return CheckResult(
        KEY,
        TITLE,
        Outcome.FAILED if fails else Outcome.INFO,
        f"{len(findings)} of {len(then)} base test(s) gone or asserting less",
        findings,
        notes,
    )
