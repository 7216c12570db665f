"""`source-reading`: tests that read code as text instead of running it.

Such a test passes while the behaviour is broken and fails when a harmless
refactor moves text around (docs/background.md: one asserted that the buggy
comparison was present, and passed on broken code).
"""

from __future__ import annotations

import libcst as cst

from guardcheck.lint.finding import SOURCE_READING, Finding
from guardcheck.lint.parsed import TestFile
from guardcheck.lint.values import GETSOURCE, GETSOURCEFILE, Values

FIX_BEHAVIOUR = "call the code and assert on what it does; extract a pure function if it is buried"
FIX_SPANS = "assert on behaviour; if structure really is the contract, use libcst/ast node spans"


class _SourceReading(cst.CSTVisitor):
    def __init__(self, file: TestFile) -> None:
        self.file = file
        self.values = Values(file)
        self.findings: list[Finding] = []
        # getsource callees whose call reads code the test made itself, or only a
        # line number (not a smell).
        self._reads_own_code: set[cst.CSTNode] = set()

    def _add(self, node: cst.CSTNode, message: str, fix: str = FIX_BEHAVIOUR) -> None:
        self.findings.append(self.file.finding(node, SOURCE_READING, message, fix))

    def visit_Assign(self, node: cst.Assign) -> None:
        self.values.record_assign(node)

    def visit_AnnAssign(self, node: cst.AnnAssign) -> None:
        self.values.record_assign(node)

    # Any reference, not only a call: `map(inspect.getsource, functions)` reads source too.
    def visit_Name(self, node: cst.Name) -> None:
        self._getsource(node)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._getsource(node)

    def _getsource(self, node: cst.Name | cst.Attribute) -> None:
        names = self.file.names(node) & (GETSOURCE | GETSOURCEFILE)
        if names and node not in self._reads_own_code:
            self._add(node, f"reads source code with {min(names)}()")

    def visit_Call(self, node: cst.Call) -> None:
        file = self.file
        # Called, so its argument says whose source it reads (the callee is visited next).
        if file.refers_to(
            node.func, GETSOURCE | GETSOURCEFILE
        ) and not self.values.reads_code_under_test(node):
            self._reads_own_code.add(node.func)
        if self.values.reads_source_file(node):
            self._add(node, "reads a Python source file (__file__ or a .py path) as text")
        elif (
            file.refers_to(node.func, {"ast.parse"})
            and node.args
            and self.values.is_source_text(node.args[0].value)
        ):
            self._add(node, "parses a module's source with ast.parse", FIX_SPANS)

    def visit_Subscript(self, node: cst.Subscript) -> None:
        if self.values.line_number_only(node) and isinstance(node.value, cst.Call):
            self._reads_own_code.add(node.value.func)  # visited after this subscript
        fixed = any(_fixed_offsets(element.slice) for element in node.slice)
        if fixed and self.values.is_source_text(node.value):
            self._add(
                node,
                "slices source text by fixed character offsets; it breaks when the code grows",
                FIX_SPANS,
            )


def _fixed_offsets(index: cst.BaseSlice) -> bool:
    if not isinstance(index, cst.Slice):
        return False
    bounds = [b for b in (index.lower, index.upper) if b is not None]
    return bool(bounds) and all(_integer(b) for b in bounds)


def _integer(node: cst.BaseExpression) -> bool:
    if isinstance(node, cst.UnaryOperation) and isinstance(node.operator, cst.Minus):
        node = node.expression
    return isinstance(node, cst.Integer)


def check(file: TestFile) -> list[Finding]:
    visitor = _SourceReading(file)
    file.module.visit(visitor)
    return visitor.findings
