"""`skip-without-reason`: tests switched off with no reason, or an empty one.

A skip or xfail nobody can re-evaluate is silently lost coverage. Checked:
pytest's `mark.skip`/`skipif`/`xfail` (as a decorator, in `pytest.param(marks=...)`,
in `pytestmark`, anywhere), the imperative `pytest.skip()`/`pytest.xfail()`,
unittest's `skip`/`skipIf`/`skipUnless` and `self.skipTest()`. A reason that is
an empty or blank string literal counts as none; a string condition
(`skipif("mod is None")`) is one, since pytest reports it as the reason.
"""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from guardcheck.lint.finding import SKIP_WITHOUT_REASON, Finding
from guardcheck.lint.parsed import TestFile


@dataclass(frozen=True)
class SkipApi:
    """Where one skipping API takes its reason, and how to write one."""

    shown: str  # as messages name it
    position: int | None  # the reason's positional index; None: keyword only
    keywords: tuple[str, ...]
    bare_skips: bool  # referenced without a call, it still switches a test off
    example: str  # the fix hint


_MARK = ("reason",)
SKIP_APIS: dict[str, SkipApi] = {
    "pytest.mark.skip": SkipApi("pytest.mark.skip", 0, _MARK, True, 'reason="..."'),
    "pytest.mark.skipif": SkipApi(
        "pytest.mark.skipif", None, _MARK, True, 'condition, reason="..."'
    ),
    "pytest.mark.xfail": SkipApi("pytest.mark.xfail", None, _MARK, True, 'reason="..."'),
    "pytest.skip": SkipApi("pytest.skip", 0, ("reason", "msg"), False, '"..."'),
    "pytest.xfail": SkipApi("pytest.xfail", 0, ("reason",), False, '"..."'),
    "unittest.skip": SkipApi("unittest.skip", 0, _MARK, True, '"..."'),
    "unittest.skipIf": SkipApi("unittest.skipIf", 1, _MARK, False, 'condition, "..."'),
    "unittest.skipUnless": SkipApi("unittest.skipUnless", 1, _MARK, False, 'condition, "..."'),
}
SKIP_TEST = SkipApi("self.skipTest", 0, _MARK, False, '"..."')


def _reason(call: cst.Call, api: SkipApi) -> cst.Arg | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value in api.keywords:
            return arg
    positional = [a for a in call.args if a.keyword is None and not a.star]
    if api.position is not None and len(positional) > api.position:
        return positional[api.position]
    return None


def _condition_shown(call: cst.Call, api: SkipApi) -> bool:
    """skipif("sys.platform == 'win32'"): pytest reports a string condition as the reason."""
    positional = [a for a in call.args if a.keyword is None and not a.star]
    return (
        api.shown in ("pytest.mark.skipif", "pytest.mark.xfail")
        and bool(positional)
        and isinstance(positional[0].value, cst.SimpleString | cst.ConcatenatedString)
    )


def _blank(expression: cst.BaseExpression) -> bool:
    if isinstance(expression, cst.SimpleString | cst.ConcatenatedString):
        value = expression.evaluated_value
        return value is not None and not value.strip()
    return False


def _is_skip_test(callee: cst.BaseExpression) -> bool:
    return (
        isinstance(callee, cst.Attribute)
        and isinstance(callee.value, cst.Name)
        and callee.value.value == "self"
        and callee.attr.value == "skipTest"
    )


class _Skips(cst.CSTVisitor):
    def __init__(self, file: TestFile) -> None:
        self.file = file
        self.findings: list[Finding] = []
        self._called: set[cst.CSTNode] = set()  # callees judged with their arguments

    def _api(self, node: cst.CSTNode) -> SkipApi | None:
        return next((SKIP_APIS[n] for n in sorted(self.file.names(node)) if n in SKIP_APIS), None)

    def visit_Call(self, node: cst.Call) -> None:
        api = SKIP_TEST if _is_skip_test(node.func) else self._api(node.func)
        if api is None:
            return
        # Seen here with its arguments; visit_Attribute must not report it again bare.
        self._called.add(node.func)
        reason = _reason(node, api)
        if reason is None and api is not SKIP_TEST and not _condition_shown(node, api):
            self._report(node.func, api, "without a reason")
        elif reason is not None and _blank(reason.value):
            self._report(node.func, api, "with an empty reason")

    def visit_Attribute(self, node: cst.Attribute) -> None:
        self._bare(node)

    def visit_Name(self, node: cst.Name) -> None:
        self._bare(node)  # `from pytest.mark import skip` (rare, but an alias all the same)

    def _bare(self, node: cst.Attribute | cst.Name) -> None:
        api = self._api(node)
        if api is not None and api.bare_skips and node not in self._called:
            self._report(node, api, "without a reason")

    def _report(self, node: cst.CSTNode, api: SkipApi, what: str) -> None:
        self.findings.append(
            self.file.finding(
                node,
                SKIP_WITHOUT_REASON,
                f"{api.shown} {what}",
                f"say why and when it can go: {api.shown}({api.example})",
            )
        )


def check(file: TestFile) -> list[Finding]:
    visitor = _Skips(file)
    file.module.visit(visitor)
    return visitor.findings
