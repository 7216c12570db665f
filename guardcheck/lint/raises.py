"""`broad-raises`: `pytest.raises(Exception)` that proves nothing about the error.

It passes on a NameError or a typo as well as on the intended error, unless
`match=` pins the message or the test checks the caught exception afterwards
(`with pytest.raises(Exception) as caught:` and then `caught.value.args` in an
assertion, or `caught.match(...)`).
"""

from __future__ import annotations

import libcst as cst

from guardcheck.lint.evidence import is_named_assert
from guardcheck.lint.finding import BROAD_RAISES, Finding
from guardcheck.lint.parsed import TestFile
from guardcheck.lint.values import names_in

BROAD_EXCEPTIONS = frozenset({"builtins.Exception", "builtins.BaseException"})
# ExceptionInfo methods that assert by themselves.
CHECKING_METHODS = frozenset({"match", "errisinstance"})


def _keyword(call: cst.Call, name: str) -> cst.Arg | None:
    return next((a for a in call.args if a.keyword is not None and a.keyword.value == name), None)


class _CheckedNames(cst.CSTVisitor):
    """Names used inside an assertion (`assert`, an `assert*` call) or as the receiver of
    `.match(...)`, and the names their assigned values were computed from
    (`tb = format_exception(caught.value)`, then `assert pattern in tb`): an
    exception caught under such a name is checked."""

    def __init__(self) -> None:
        self.names: set[str] = set()
        self._inside = 0
        self._computed_from: dict[str, set[str]] = {}  # assigned name -> names in its value

    def visit_Assign(self, node: cst.Assign) -> None:
        sources = names_in(node.value)
        for target in node.targets:
            for name in names_in(target.target):
                self._computed_from.setdefault(name, set()).update(sources)

    def checked(self) -> set[str]:
        checked = set(self.names)
        pending = list(checked)
        while pending:
            for source in self._computed_from.get(pending.pop(), ()):
                if source not in checked:
                    checked.add(source)
                    pending.append(source)
        return checked

    def visit_Assert(self, node: cst.Assert) -> None:
        self._inside += 1

    def leave_Assert(self, original_node: cst.Assert) -> None:
        self._inside -= 1

    def visit_Call(self, node: cst.Call) -> None:
        callee = node.func
        if (
            isinstance(callee, cst.Attribute)
            and callee.attr.value in CHECKING_METHODS
            and isinstance(callee.value, cst.Name)
        ):
            self.names.add(callee.value.value)
        if is_named_assert(callee):
            self._inside += 1

    def leave_Call(self, original_node: cst.Call) -> None:
        if is_named_assert(original_node.func):
            self._inside -= 1

    def visit_Name(self, node: cst.Name) -> None:
        if self._inside:
            self.names.add(node.value)


def _checked_names(scope: cst.CSTNode) -> set[str]:
    collector = _CheckedNames()
    scope.visit(collector)
    return collector.checked()


class _BroadRaises(cst.CSTVisitor):
    def __init__(self, file: TestFile) -> None:
        self.file = file
        self.findings: list[Finding] = []
        self._functions: list[cst.CSTNode] = [file.module]
        self._checked: dict[int, set[str]] = {}  # per function, computed when first needed
        self._caught_as: dict[cst.CSTNode, str] = {}  # raises call -> the name it is kept under

    def visit_FunctionDef(self, node: cst.FunctionDef) -> None:
        self._functions.append(node)

    def leave_FunctionDef(self, original_node: cst.FunctionDef) -> None:
        self._functions.pop()

    def visit_WithItem(self, node: cst.WithItem) -> None:
        if node.asname is not None and isinstance(node.asname.name, cst.Name):
            self._caught_as[node.item] = node.asname.name.value

    def visit_Assign(self, node: cst.Assign) -> None:
        [*_, target] = node.targets
        if isinstance(target.target, cst.Name):
            self._caught_as[node.value] = target.target.value  # caught = pytest.raises(E, f)

    def visit_Call(self, node: cst.Call) -> None:
        if not self.file.refers_to(node.func, {"pytest.raises"}):
            return
        broad = self._broad_name(node)
        if broad is None or _keyword(node, "match") is not None or self._checked_after(node):
            return
        self.findings.append(
            self.file.finding(
                node,
                BROAD_RAISES,
                f"pytest.raises({broad}) without match= passes on any error, typos included",
                "expect the specific exception type, or add match= for its message",
            )
        )

    def _broad_name(self, call: cst.Call) -> str | None:
        positional = [a for a in call.args if a.keyword is None and not a.star]
        expected = _keyword(call, "expected_exception") or next(iter(positional), None)
        if expected is None:
            return None
        value = expected.value
        elements = [e.value for e in value.elements] if isinstance(value, cst.Tuple) else [value]
        broad = [e for e in elements if self.file.refers_to(e, BROAD_EXCEPTIONS)]
        if not broad:
            return None
        return min(self.file.names(broad[0]) & BROAD_EXCEPTIONS).removeprefix("builtins.")

    def _checked_after(self, call: cst.Call) -> bool:
        name = self._caught_as.get(call)
        if name is None:
            return False
        function = self._functions[-1]
        if id(function) not in self._checked:
            self._checked[id(function)] = _checked_names(function)
        return name in self._checked[id(function)]


def check(file: TestFile) -> list[Finding]:
    visitor = _BroadRaises(file)
    file.module.visit(visitor)
    return visitor.findings
