"""What one function's body shows about checking: a direct assertion, and the calls to follow.

An assertion is an `assert`; `raise AssertionError` (or `self.failureException`);
a call of `pytest.raises`/`warns`/`fail`/`deprecated_call`; a call named
`assert*` (`self.assertEqual`, `mock.assert_called_once_with`,
`assert_frame_equal`); a `self.fail*` call (unittest's `fail`, `failUnless`,
...); or any `raise` in the function's own body, outside nested functions: a
test or helper that raises on a condition is checking something. Running code
loaded at run time (`importlib.import_module`, `exec`, `runpy`) counts too: it
may assert, and it cannot be read here. A nested
function's plain `raise` is usually a stub handed to the code under test
(`def always_fails(...): raise ValueError`), so only its assertions count.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import libcst as cst

from guardcheck.lint.parsed import TestFile

ASSERTING_CALLS = frozenset(
    {"pytest.raises", "pytest.warns", "pytest.fail", "pytest.deprecated_call"}
)
ASSERTION_ERRORS = frozenset({"builtins.AssertionError"})
# Code loaded at run time: lint-tests cannot read it, and it may well assert
# (pyparsing's tests run each example's main(), which asserts its own results).
RUNS_UNSEEN_CODE = frozenset(
    {
        "importlib.import_module",
        "builtins.__import__",
        "builtins.exec",
        "builtins.eval",
        "runpy.run_path",
        "runpy.run_module",
    }
)


@dataclass
class Evidence:
    """A direct assertion, or else the callees to resolve and look into.

    `asserts` is also set by code loaded at run time, which may assert unseen:
    the rule stays silent rather than guess.
    """

    asserts: bool = False
    calls: list[cst.BaseExpression] = field(default_factory=list)


def is_named_assert(callee: cst.BaseExpression) -> bool:
    """`assert_x(...)`, `self.assertEqual(...)`, `mock.assert_called_once_with(...)`."""
    terminal = callee.attr if isinstance(callee, cst.Attribute) else callee
    return isinstance(terminal, cst.Name) and terminal.value.startswith("assert")


def _is_self_fail(callee: cst.BaseExpression) -> bool:
    return (
        isinstance(callee, cst.Attribute)
        and isinstance(callee.value, cst.Name)
        and callee.value.value in ("self", "cls")
        and callee.attr.value.startswith("fail")
    )


class _EvidenceVisitor(cst.CSTVisitor):
    def __init__(self, file: TestFile) -> None:
        self.file = file
        self.evidence = Evidence()
        self._nested = 0  # depth of functions and lambdas inside the one examined

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._nested += 1

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._nested -= 1

    def visit_Lambda(self, node: cst.Lambda) -> None:
        self._nested += 1

    def leave_Lambda(self, original_node: cst.Lambda) -> None:
        self._nested -= 1

    def visit_Assert(self, node: cst.Assert) -> None:
        self.evidence.asserts = True

    def visit_Raise(self, node: cst.Raise) -> None:
        if self._nested == 0 or self._raises_assertion_error(node):
            self.evidence.asserts = True

    def _raises_assertion_error(self, node: cst.Raise) -> bool:
        raised = node.exc
        if isinstance(raised, cst.Call):
            raised = raised.func
        if raised is None:
            return False
        failure_exception = isinstance(raised, cst.Attribute) and (
            raised.attr.value == "failureException"
        )
        return failure_exception or self.file.refers_to(raised, ASSERTION_ERRORS)

    def visit_Call(self, node: cst.Call) -> None:
        callee = node.func
        if (
            is_named_assert(callee)
            or _is_self_fail(callee)
            or self.file.refers_to(callee, ASSERTING_CALLS | RUNS_UNSEEN_CODE)
        ):
            self.evidence.asserts = True
        else:
            self.evidence.calls.append(callee)


def evidence_of(file: TestFile, block: cst.BaseSuite) -> Evidence:
    """What a function's body (or any block) shows."""
    visitor = _EvidenceVisitor(file)
    block.visit(visitor)
    return visitor.evidence
