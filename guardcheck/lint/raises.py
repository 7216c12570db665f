"""`broad-raises` and `skip-without-reason`: pytest APIs used so that they prove nothing.

`pytest.raises(Exception)` passes on a NameError or a typo as well as on the
intended error; a skip or xfail without a reason is switched-off coverage that
nobody can re-evaluate.
"""

from __future__ import annotations

import libcst as cst

from guardcheck.lint.finding import BROAD_RAISES, SKIP_WITHOUT_REASON, Finding
from guardcheck.lint.parsed import TestFile

BROAD_EXCEPTIONS = frozenset({"builtins.Exception", "builtins.BaseException"})
MARKS = {f"pytest.mark.{name}": name for name in ("skip", "skipif", "xfail")}
_ARGS = {"skip": "", "skipif": "condition, ", "xfail": ""}  # for the fix hint


def _keyword(call: cst.Call, name: str) -> cst.Arg | None:
    return next((a for a in call.args if a.keyword is not None and a.keyword.value == name), None)


def _positional(call: cst.Call) -> list[cst.Arg]:
    return [a for a in call.args if a.keyword is None and not a.star]


def has_reason(mark: str, call: cst.Call | None) -> bool:
    """skip: reason= or a positional reason; skipif and xfail: only reason= (their
    positional arguments are conditions)."""
    if call is None:
        return False
    if _keyword(call, "reason") is not None:
        return True
    return mark == "skip" and bool(_positional(call))


class _PytestApi(cst.CSTVisitor):
    def __init__(self, file: TestFile) -> None:
        self.file = file
        self.findings: list[Finding] = []
        self._called_marks: set[cst.CSTNode] = set()

    def _mark(self, node: cst.CSTNode) -> str | None:
        return next((MARKS[n] for n in self.file.names(node) if n in MARKS), None)

    def visit_Call(self, node: cst.Call) -> None:
        mark = self._mark(node.func)
        if mark is not None:
            # Seen here with its arguments; visit_Attribute must not report it again bare.
            self._called_marks.add(node.func)
            self._check_mark(node, mark, node)
        elif self.file.refers_to(node.func, {"pytest.raises"}):
            self._check_raises(node)

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._bare_mark(node)

    def visit_Name(self, node: cst.Name) -> None:
        self._bare_mark(node)  # `from pytest.mark import skip` (rare, but an alias all the same)

    def _bare_mark(self, node: cst.Attribute | cst.Name) -> None:
        mark = self._mark(node)
        if mark is not None and node not in self._called_marks:
            self._check_mark(node, mark, None)

    def _check_mark(self, node: cst.CSTNode, mark: str, call: cst.Call | None) -> None:
        if has_reason(mark, call):
            return
        self.findings.append(
            self.file.finding(
                node,
                SKIP_WITHOUT_REASON,
                f"pytest.mark.{mark} without a reason",
                f'say why and when it can go: pytest.mark.{mark}({_ARGS[mark]}reason="...")',
            )
        )

    def _check_raises(self, call: cst.Call) -> None:
        expected = _keyword(call, "expected_exception") or next(iter(_positional(call)), None)
        if expected is None or _keyword(call, "match") is not None:
            return
        value = expected.value
        elements = [e.value for e in value.elements] if isinstance(value, cst.Tuple) else [value]
        broad = [e for e in elements if self.file.refers_to(e, BROAD_EXCEPTIONS)]
        if broad:
            name = min(self.file.names(broad[0]) & BROAD_EXCEPTIONS).removeprefix("builtins.")
            self.findings.append(
                self.file.finding(
                    call,
                    BROAD_RAISES,
                    f"pytest.raises({name}) without match= passes on any error, typos included",
                    "expect the specific exception type, or add match= for its message",
                )
            )


def check(file: TestFile) -> list[Finding]:
    visitor = _PytestApi(file)
    file.module.visit(visitor)
    return visitor.findings
