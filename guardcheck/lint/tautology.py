"""`tautology`: assertions that cannot fail, whatever the code under test does."""

from __future__ import annotations

import ast

import libcst as cst

from guardcheck.lint.finding import TAUTOLOGY, Finding
from guardcheck.lint.parsed import TestFile

# x OP x holds for every ordinary x; `!=` and `<` would make the assertion always *fail*.
REFLEXIVE = (cst.Equal, cst.Is, cst.LessThanEqual, cst.GreaterThanEqual)
_CODE = cst.Module([])


def always_true_literal(node: cst.BaseExpression) -> str | None:
    """What kind of always-true literal `node` is, or None."""
    if isinstance(node, cst.Name) and node.value == "True":
        return "True"
    if isinstance(node, cst.SimpleString | cst.ConcatenatedString):
        return "a non-empty string" if node.evaluated_value else None
    if isinstance(node, cst.Integer | cst.Float | cst.Imaginary):
        return "a non-zero number" if ast.literal_eval(node.value) else None
    if isinstance(node, cst.Tuple | cst.List | cst.Set):
        return f"a non-empty {type(node).__name__.lower()}" if node.elements else None
    if isinstance(node, cst.Dict):
        return "a non-empty dict" if node.elements else None
    return None


def _normalised(node: cst.BaseExpression) -> str:
    # The stdlib AST forgets formatting and parentheses, which is what "the same
    # expression" means here; parenthesised so a multi-line operand still parses.
    return ast.dump(ast.parse(f"({_CODE.code_for_node(node)})", mode="eval"))


def _calls_something(node: cst.BaseExpression) -> bool:
    # `f() == f()` checks that f is deterministic: a real test, not a tautology.
    class _Finder(cst.CSTVisitor):
        found = False

        def visit_Call(self, node: cst.Call) -> None:
            self.found = True

        def visit_Await(self, node: cst.Await) -> None:
            self.found = True

    finder = _Finder()
    node.visit(finder)
    return finder.found


def reflexive_pair(test: cst.BaseExpression) -> bool:
    if not isinstance(test, cst.Comparison) or _calls_something(test):
        return False
    left = test.left
    for target in test.comparisons:
        if isinstance(target.operator, REFLEXIVE) and _normalised(left) == _normalised(
            target.comparator
        ):
            return True
        left = target.comparator
    return False


class _Tautologies(cst.CSTVisitor):
    def __init__(self, file: TestFile) -> None:
        self.file = file
        self.findings: list[Finding] = []

    def visit_Assert(self, node: cst.Assert) -> None:
        literal = always_true_literal(node.test)
        if isinstance(node.test, cst.Tuple) and node.test.elements:
            message = "asserts a tuple, which is always true (a message in parentheses?)"
            fix = "write `assert condition, message` without the parentheses"
        elif literal is not None:
            message = f"asserts {literal}, which is always true"
            fix = "assert on a value the code under test produced"
        elif reflexive_pair(node.test):
            message = "compares an expression with itself, which always holds"
            fix = "compare the actual result with an independently known expected value"
        else:
            return
        self.findings.append(self.file.finding(node, TAUTOLOGY, message, fix))


def check(file: TestFile) -> list[Finding]:
    visitor = _Tautologies(file)
    file.module.visit(visitor)
    return visitor.findings
