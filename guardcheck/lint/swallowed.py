"""`swallowed-assert`: an assertion inside `try` whose failure an `except` throws away.

`try: assert x == 3` / `except AssertionError: pass` passes whatever x is. The
same holds for `except Exception`, `except BaseException` and a bare `except`
when the handler neither raises, asserts, fails nor skips, and for unittest's
`self.assert*` calls in the `try`. Left alone: a `try` whose `else:` raises
(it expects the assertion to fail), and a handler that records the failure in
a name the function tests afterwards (`failed += 1`, then `if failed: raise`).
"""

from __future__ import annotations

import libcst as cst

from guardcheck.lint.evidence import evidence_of, is_named_assert
from guardcheck.lint.finding import SWALLOWED_ASSERT, Finding
from guardcheck.lint.parsed import TestFile
from guardcheck.lint.values import names_in

CATCHES_ASSERTION = frozenset(
    {"builtins.AssertionError", "builtins.Exception", "builtins.BaseException"}
)
ENDS_THE_TEST = frozenset({"pytest.skip", "pytest.xfail", "pytest.exit"})


class _FirstAssertion(cst.CSTVisitor):
    """The first assertion that runs in a block: not one inside a nested function."""

    def __init__(self) -> None:
        self.found: cst.CSTNode | None = None

    def visit_FunctionDef(self, node: cst.FunctionDef) -> bool:
        return False

    def visit_Lambda(self, node: cst.Lambda) -> bool:
        return False

    def visit_Assert(self, node: cst.Assert) -> None:
        self.found = self.found or node

    def visit_Call(self, node: cst.Call) -> None:
        if is_named_assert(node.func):
            self.found = self.found or node


def _first_assertion(block: cst.BaseSuite) -> cst.CSTNode | None:
    finder = _FirstAssertion()
    block.visit(finder)
    return finder.found


class _Names(cst.CSTVisitor):
    """Names a block writes (`failed += 1`, `failed.append(...)`) and names it tests
    (in an `if`/`while` condition or an `assert`)."""

    def __init__(self) -> None:
        self.written: set[str] = set()
        self.tested: set[str] = set()

    def visit_AssignTarget(self, node: cst.AssignTarget) -> None:
        self._write(node.target)

    def visit_AugAssign(self, node: cst.AugAssign) -> None:
        self._write(node.target)

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Attribute):
            self._write(node.func.value)  # failed.append(msg)

    def visit_If(self, node: cst.If) -> None:
        self._test(node.test)

    def visit_While(self, node: cst.While) -> None:
        self._test(node.test)

    def visit_Assert(self, node: cst.Assert) -> None:
        self._test(node.test)

    def _write(self, target: cst.BaseExpression) -> None:
        if isinstance(target, cst.Name):
            self.written.add(target.value)

    def _test(self, condition: cst.BaseExpression) -> None:
        self.tested.update(names_in(condition))


def _names(block: cst.CSTNode) -> _Names:
    names = _Names()
    block.visit(names)
    return names


class _Swallowed(cst.CSTVisitor):
    def __init__(self, file: TestFile) -> None:
        self.file = file
        self.findings: list[Finding] = []
        self._functions: list[cst.CSTNode] = [file.module]

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._functions.append(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._functions.pop()

    def visit_Try(self, node: cst.Try) -> None:
        assertion = _first_assertion(node.body)
        if assertion is None or (node.orelse is not None and self._acts(node.orelse.body)):
            return
        for handler in node.handlers:
            if (
                self._catches_assertion(handler)
                and not self._acts(handler.body)
                and not self._recorded(handler)
            ):
                self.findings.append(
                    self.file.finding(
                        handler,
                        SWALLOWED_ASSERT,
                        "this except swallows the assertion on line "
                        f"{self.file.line(assertion)}, so it can never fail the test",
                        "let the assertion fail; to expect a failure, use "
                        "pytest.raises(AssertionError)",
                    )
                )
                return

    def _catches_assertion(self, handler: cst.ExceptHandler) -> bool:
        caught = handler.type
        if caught is None:
            return True
        types = [e.value for e in caught.elements] if isinstance(caught, cst.Tuple) else [caught]
        return any(self.file.refers_to(t, CATCHES_ASSERTION) for t in types)

    def _recorded(self, handler: cst.ExceptHandler) -> bool:
        """The handler writes a name that the enclosing function tests."""
        written = _names(handler.body).written
        return bool(written & _names(self._functions[-1]).tested)

    def _acts(self, block: cst.BaseSuite) -> bool:
        """Whether a handler (or else block) raises, asserts, fails or skips."""
        if evidence_of(self.file, block).asserts:
            return True
        return any(self.file.refers_to(call, ENDS_THE_TEST) for call in _callees(block))


def _callees(block: cst.BaseSuite) -> list[cst.BaseExpression]:
    class _Callees(cst.CSTVisitor):
        def __init__(self) -> None:
            self.found: list[cst.BaseExpression] = []

        def visit_Call(self, node: cst.Call) -> None:
            self.found.append(node.func)

    collector = _Callees()
    block.visit(collector)
    return collector.found


def check(file: TestFile) -> list[Finding]:
    visitor = _Swallowed(file)
    file.module.visit(visitor)
    return visitor.findings
