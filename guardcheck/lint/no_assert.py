"""`no-assert`: test functions that check no result, only that nothing raised.

A test asserts when its body, or anything it reaches, shows an assertion
(`evidence.py` says what counts). It reaches the functions it calls that are
defined in the same file, in the conftest.py files pytest loads for it, or in
a test helper module it imports from (never the code under test: a `raise` in
a library function is not a check), plus the fixtures it requests by
parameter; transitively, each function visited once so recursive helpers end.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import libcst as cst
from libcst.metadata import QualifiedNameSource

from guardcheck.lint.evidence import Evidence, evidence_of
from guardcheck.lint.finding import NO_ASSERT, Finding
from guardcheck.lint.parsed import ParseCache, TestFile

FIXTURE = frozenset({"pytest.fixture"})
TEST_CASES = frozenset(
    {"unittest.TestCase", "unittest.IsolatedAsyncioTestCase", "unittest.case.TestCase"}
)

Function = cst.FunctionDef


@dataclass(frozen=True)
class _Where:
    """A function and what it can see: its file and, for a method, its class."""

    file: TestFile
    function: Function
    cls: cst.ClassDef | None = None


def _functions(body: cst.Module | cst.IndentedBlock) -> dict[str, Function]:
    return {s.name.value: s for s in body.body if isinstance(s, cst.FunctionDef)}


class AssertionSearch:
    """Whether a test reaches an assertion; shares parsed helpers across a run's files."""

    def __init__(self, cache: ParseCache) -> None:
        self.cache = cache
        self._module_functions: dict[Path, dict[str, Function]] = {}
        # Keyed by id(): the parsed trees stay alive in the cache for the whole run.
        self._evidence_of: dict[int, Evidence] = {}

    def reaches_assertion(self, start: _Where) -> bool:
        # Reachability over the call graph, not memoised recursion: a cycle must
        # not freeze a half-computed "no" into the answer for its members.
        seen: set[int] = set()
        pending = [start]
        while pending:
            where = pending.pop()
            if id(where.function) in seen:
                continue
            seen.add(id(where.function))
            evidence = self._evidence(where)
            if evidence.asserts:
                return True
            pending.extend(self._callees(where, evidence.calls))
            if where is start or is_fixture(where.file, where.function):
                pending.extend(self._fixtures(where))
        return False

    def _evidence(self, where: _Where) -> Evidence:
        # Cached per function: every test of a file walks the same conftest fixtures.
        key = id(where.function)
        if key not in self._evidence_of:
            self._evidence_of[key] = evidence_of(where.file, where.function.body)
        return self._evidence_of[key]

    def _fixtures(self, where: _Where) -> Iterator[_Where]:
        params = where.function.params
        for param in (*params.posonly_params, *params.params, *params.kwonly_params):
            found = self._visible(where.file, param.name.value)
            if found is not None:
                yield found

    def _callees(self, where: _Where, calls: list[cst.BaseExpression]) -> Iterator[_Where]:
        for callee in calls:
            if (
                where.cls is not None
                and isinstance(callee, cst.Attribute)
                and isinstance(callee.value, cst.Name)
                and callee.value.value in ("self", "cls")
            ):
                method = _functions(where.cls.body).get(callee.attr.value)
                if method is not None:
                    yield _Where(where.file, method, where.cls)
                continue
            found = self._imported(where.file, callee)
            if found is None and isinstance(callee, cst.Name):
                found = self._visible(where.file, callee.value)
            if found is not None:
                yield found

    def _visible(self, file: TestFile, name: str) -> _Where | None:
        """A module-level function `name` of the file, else of its nearest conftest.py."""
        for candidate in (file, *self.cache.conftests_for(file.path)):
            function = self._functions_of(candidate).get(name)
            if function is not None:
                return _Where(candidate, function)
        return None

    def _imported(self, file: TestFile, callee: cst.BaseExpression) -> _Where | None:
        for qualified in file.qualified_names(callee):
            if qualified.source is not QualifiedNameSource.IMPORT or "." not in qualified.name:
                continue
            module, _, name = qualified.name.rpartition(".")
            for path in self._module_paths(file, module):
                if not self.cache.is_test_code(path):
                    continue
                parsed = self.cache.get(path)
                if isinstance(parsed, TestFile):
                    function = self._functions_of(parsed).get(name)
                    if function is not None:
                        return _Where(parsed, function)
        return None

    def _module_paths(self, file: TestFile, module: str) -> Iterator[Path]:
        """Where `module` may live in the project: relative imports from the file's
        folder; absolute ones from the root, or the file's folder (pytest's rootdir
        import mode puts it on sys.path)."""
        level = len(module) - len(module.lstrip("."))
        parts = module.lstrip(".").split(".")
        if level > len(file.path.parents):
            return
        bases = [file.path.parents[level - 1]] if level else [self.cache.root, file.path.parent]
        for base in bases:
            for path in (
                base.joinpath(*parts).with_suffix(".py"),
                base.joinpath(*parts, "__init__.py"),
            ):
                if path.is_file():
                    yield path

    def _functions_of(self, file: TestFile) -> dict[str, Function]:
        if file.path not in self._module_functions:
            self._module_functions[file.path] = _functions(file.module)
        return self._module_functions[file.path]


def is_fixture(file: TestFile, function: Function) -> bool:
    for decorator in function.decorators:
        expression = decorator.decorator
        target = expression.func if isinstance(expression, cst.Call) else expression
        if file.refers_to(target, FIXTURE):
            return True
    return False


def _is_test(file: TestFile, function: Function) -> bool:
    # pytest never collects a fixture, even one named test_*.
    return function.name.value.startswith("test") and not is_fixture(file, function)


def _is_test_class(file: TestFile, cls: cst.ClassDef) -> bool:
    # pytest collects unittest.TestCase subclasses whatever their name.
    return cls.name.value.startswith("Test") or any(
        file.refers_to(base.value, TEST_CASES) for base in cls.bases
    )


def collected_tests(file: TestFile) -> Iterator[_Where]:
    """What pytest collects by default: `test*` functions, and `test*` methods of
    `Test*` classes and of `unittest.TestCase` subclasses; never fixtures."""
    for statement in file.module.body:
        if isinstance(statement, cst.FunctionDef) and _is_test(file, statement):
            yield _Where(file, statement)
        elif isinstance(statement, cst.ClassDef) and _is_test_class(file, statement):
            for method in _functions(statement.body).values():
                if _is_test(file, method):
                    yield _Where(file, method, statement)


def check(file: TestFile, search: AssertionSearch) -> list[Finding]:
    if file.path.name == "conftest.py":  # pytest collects no tests from it
        return []
    return [
        file.finding(
            where.function.name,
            NO_ASSERT,
            f"test {where.function.name.value} checks no result, only that nothing raised",
            "assert on the result or the state it changed; if not raising is the whole "
            "contract, say so: # guardcheck: allow no-assert -- only checks it does not raise",
        )
        for where in collected_tests(file)
        if not search.reaches_assertion(where)
    ]
