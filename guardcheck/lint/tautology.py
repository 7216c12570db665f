"""`tautology`: assertions whose value cannot depend on the code under test.

Only three shapes qualify: a literal (`assert True`, `assert "x"`, a tuple,
`1 == 1`, `not ""`), `x is x` on the same name, and `x == x` (or `<=`, `>=`)
where `x` is a builtin scalar (a name bound only to scalar literals or
`len(...)`). `b == b` on any other value is a real check: `__eq__` may be the
behaviour under test, and pytest fails it when `__eq__` is wrong.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable
from typing import Any

import libcst as cst

from guardcheck.lint.finding import TAUTOLOGY, Finding
from guardcheck.lint.parsed import TestFile
from guardcheck.lint.values import Values

# x OP x holds for every builtin scalar; `!=` and `<` would make the assertion always *fail*.
REFLEXIVE = (cst.Equal, cst.LessThanEqual, cst.GreaterThanEqual)
# How literal operands compare; `is` is left out: identity of equal literals is an
# implementation detail (string interning), not something the source decides.
LITERAL_OPERATORS: dict[type[cst.BaseCompOp], Callable[[Any, Any], Any]] = {
    cst.Equal: operator.eq,
    cst.NotEqual: operator.ne,
    cst.LessThan: operator.lt,
    cst.LessThanEqual: operator.le,
    cst.GreaterThan: operator.gt,
    cst.GreaterThanEqual: operator.ge,
    cst.In: lambda a, b: a in b,
    cst.NotIn: lambda a, b: a not in b,
}
SCALARS = (int, float, complex, str, bytes, type(None))  # bool is an int
_CODE = cst.Module([])
_NOT_LITERAL = object()


def literal_value(node: cst.BaseExpression) -> object:
    """The value of a literal expression (`3`, `-1.5`, `"a" "b"`, `(1, [2])`, `not ""`),
    else _NOT_LITERAL."""
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Not):
        inner = literal_value(node.expression)
        return _NOT_LITERAL if inner is _NOT_LITERAL else not inner
    try:
        # Parenthesised so a multi-line operand still parses.
        return ast.literal_eval(f"({_CODE.code_for_node(node)})")
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return _NOT_LITERAL


def _truthy_literal(node: cst.BaseExpression) -> bool:
    value = literal_value(node)
    return value is not _NOT_LITERAL and bool(value)


def _describe(value: object) -> str:
    if value is True or value is Ellipsis:
        return repr(value)
    if isinstance(value, str | bytes):
        return "a non-empty string"
    if isinstance(value, int | float | complex):
        return "a non-zero number"
    return f"a non-empty {type(value).__name__}"


def _is_scalar(value: object) -> bool:
    # NaN is the one scalar that is not equal to itself.
    return isinstance(value, SCALARS) and not (isinstance(value, float) and math.isnan(value))


class _Tautologies(cst.CSTVisitor):
    def __init__(self, file: TestFile) -> None:
        self.file = file
        self.values = Values(file)
        self.findings: list[Finding] = []

    def visit_Assign(self, node: cst.Assign) -> None:
        self.values.record_assign(node)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self.values.record_assign(node)

    def visit_Assert(self, node: cst.Assert) -> None:
        test = node.test
        if isinstance(test, cst.Tuple) and test.elements:
            message = "asserts a tuple, which is always true (a message in parentheses?)"
            fix = "write `assert condition, message` without the parentheses"
        elif isinstance(test, cst.Comparison) and self._literal_comparison_holds(test):
            message = "compares literals, which always holds"
            fix = "compare the actual result with an independently known expected value"
        elif _truthy_literal(test):
            message = f"asserts {_describe(literal_value(test))}, which is always true"
            fix = "assert on a value the code under test produced"
        elif isinstance(test, cst.Comparison) and self._compares_with_itself(test):
            message = "compares a value with itself, which always holds"
            fix = "compare the actual result with an independently known expected value"
        else:
            return
        self.findings.append(self.file.finding(node, TAUTOLOGY, message, fix))

    def _literal_comparison_holds(self, test: cst.Comparison) -> bool:
        left = literal_value(test.left)
        for target in test.comparisons:
            right = literal_value(target.comparator)
            compare = LITERAL_OPERATORS.get(type(target.operator))
            if left is _NOT_LITERAL or right is _NOT_LITERAL or compare is None:
                return False
            try:
                if not compare(left, right):
                    return False
            except TypeError:  # 1 < "a": an error, not a tautology
                return False
            left = right
        return True

    def _compares_with_itself(self, test: cst.Comparison) -> bool:
        left = test.left
        for target in test.comparisons:
            right = target.comparator
            same_name = (
                isinstance(left, cst.Name)
                and isinstance(right, cst.Name)
                and left.value == right.value
            )
            if same_name and isinstance(left, cst.Name):
                if isinstance(target.operator, cst.Is):
                    return True
                if isinstance(target.operator, REFLEXIVE) and self._scalar_name(left):
                    return True
            left = right
        return False

    def _scalar_name(self, name: cst.Name) -> bool:
        values = self.values.only_values(name)
        return values is not None and all(self._scalar(value) for value in values)

    def _scalar(self, value: cst.BaseExpression) -> bool:
        if isinstance(value, cst.Call):
            return self.file.refers_to(value.func, {"builtins.len"})
        return _is_scalar(literal_value(value))


def check(file: TestFile) -> list[Finding]:
    visitor = _Tautologies(file)
    file.module.visit(visitor)
    return visitor.findings
