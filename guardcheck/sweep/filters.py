"""Which sweep mutants not to run, each reason a small named filter (PIT's interceptors).

A filter looks at a `Candidate` (one mutmut mutant with where it sits) and says
whether it skips it; the sweep counts skipped mutants per filter name, so a
summary can say "37 skipped: arid:logging". Arid rules are the part that
needs the syntax tree: each names the subtrees whose mutants cannot matter
(log calls, docstrings, ...), and the generator records on every candidate
which rules' subtrees contain it.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

import libcst as cst

from guardcheck.splices import Splice


@dataclass(frozen=True)
class Candidate:
    """One of mutmut's mutants before filtering: what a filter may look at."""

    id: str
    path: str  # posix, relative to the project root
    module: str  # dotted module name: "pkg.mod"
    scope: str  # qualified name of the enclosing function/class inside the module
    operator: str  # mutmut's operator function name
    splice: Splice
    line: int  # where the replaced code starts and ends (1-based, end exclusive)
    column: int
    end_line: int
    end_column: int
    lines: frozenset[int]  # original lines the splice rewrites
    original: str  # the replaced code and its replacement, as written
    replacement: str
    pragma: bool  # mutmut's `# pragma: no mutate` handling drops it
    arid: frozenset[str]  # names of the arid rules whose subtrees contain the change

    @property
    def qualname(self) -> str:
        return f"{self.module}.{self.scope}" if self.scope else self.module


class Filter(Protocol):
    """Skips some candidates; `name` is the key the skipped ones are counted under."""

    @property
    def name(self) -> str: ...

    def skips(self, candidate: Candidate) -> bool: ...


@dataclass(frozen=True)
class PragmaFilter:
    """mutmut's convention: `# pragma: no mutate` (and its `block`/`start`/`end` forms)."""

    name: str = "pragma"

    def skips(self, candidate: Candidate) -> bool:
        return candidate.pragma


@dataclass(frozen=True)
class ExcludeFilter:
    """Globs over paths (`pkg/legacy/*.py`) and qualified names (`pkg.mod.Class.method`).

    A pattern with a `/` or ending in `.py` is a path glob; any other is matched
    against the module and each enclosing scope (`pkg.mod`, `pkg.mod.Class`,
    `pkg.mod.Class.method`), so naming a class excludes its methods. As in
    fnmatch, `*` also matches `/` and `.`: `*.__repr__` is every `__repr__`.
    """

    patterns: tuple[str, ...]
    name: str = "exclude"

    def skips(self, candidate: Candidate) -> bool:
        names = list(_qualified_prefixes(candidate))
        for pattern in self.patterns:
            if _is_path_pattern(pattern):
                if fnmatch.fnmatchcase(candidate.path, pattern):
                    return True
            elif any(fnmatch.fnmatchcase(name, pattern) for name in names):
                return True
        return False


def _is_path_pattern(pattern: str) -> bool:
    return "/" in pattern or pattern.endswith(".py")


def _qualified_prefixes(candidate: Candidate) -> Iterator[str]:
    name = candidate.module
    yield name
    for part in candidate.scope.split(".") if candidate.scope else ():
        name = f"{name}.{part}"
        yield name


@dataclass(frozen=True)
class ChangedLinesFilter:
    """`since`: only mutants that rewrite a changed line (a file not in `lines` is unchanged)."""

    lines: Mapping[str, frozenset[int] | set[int]]
    name: str = "since"

    def skips(self, candidate: Candidate) -> bool:
        changed = self.lines.get(candidate.path)
        return not changed or candidate.lines.isdisjoint(changed)


# --- arid code ------------------------------------------------------------------------------


class AridRule(Protocol):
    """Code whose mutants cannot matter to a test suite, found in the syntax tree."""

    @property
    def name(self) -> str: ...

    def roots(self, node: cst.CSTNode) -> Iterable[cst.CSTNode]:
        """`node` itself or parts of it under which every mutant is arid."""
        ...


@dataclass(frozen=True)
class AridFilter:
    """Skips candidates inside one arid rule's subtrees (the generator marked them)."""

    rule: str

    @property
    def name(self) -> str:
        return f"arid:{self.rule}"

    def skips(self, candidate: Candidate) -> bool:
        return self.rule in candidate.arid


_LOG_METHODS = frozenset(
    {"debug", "info", "warning", "warn", "error", "exception", "critical", "fatal", "log"}
)


def _receiver_name(node: cst.BaseExpression) -> str | None:
    """`logger` for `logger`, `self._logger` and `LOGGER`: the last name, bare and lower-case."""
    if isinstance(node, cst.Name):
        return node.value.lstrip("_").lower()
    if isinstance(node, cst.Attribute):
        return node.attr.value.lstrip("_").lower()
    return None


def is_logging_call(node: cst.CSTNode) -> bool:
    """`logging.anything(...)`, or `.debug/.info/...` called on something named logger or log."""
    if not isinstance(node, cst.Call) or not isinstance(node.func, cst.Attribute):
        return False
    receiver = node.func.value
    if isinstance(receiver, cst.Name) and receiver.value == "logging":
        return True
    if node.func.attr.value not in _LOG_METHODS:
        return False  # `log.append(x)` on a list called log is not logging
    if isinstance(receiver, cst.Call):  # logging.getLogger(__name__).info(...)
        return is_logging_call(receiver)
    return _receiver_name(receiver) in ("logger", "log")


@dataclass(frozen=True)
class LoggingRule:
    """Log calls: what they print is not what the code does."""

    name: str = "logging"

    def roots(self, node: cst.CSTNode) -> Iterable[cst.CSTNode]:
        return (node,) if is_logging_call(node) else ()


def _first_statement(node: cst.CSTNode) -> cst.CSTNode | None:
    if isinstance(node, cst.Module):
        body: Sequence[cst.CSTNode] = node.body
    elif isinstance(node, (cst.FunctionDef, cst.ClassDef)):
        body = node.body.body
    else:
        return None
    if not body:
        return None
    first = body[0]
    if isinstance(first, cst.SimpleStatementLine) and first.body:
        return first.body[0]
    return first


@dataclass(frozen=True)
class DocstringRule:
    """Docstrings (mutmut already spares triple-quoted ones; this catches the rest)."""

    name: str = "docstring"

    def roots(self, node: cst.CSTNode) -> Iterable[cst.CSTNode]:
        first = _first_statement(node)
        if isinstance(first, cst.Expr) and isinstance(
            first.value, (cst.SimpleString, cst.ConcatenatedString)
        ):
            return (first.value,)
        return ()


@dataclass(frozen=True)
class ReprRule:
    """`__repr__` bodies: debugging output that tests rarely pin."""

    name: str = "repr"

    def roots(self, node: cst.CSTNode) -> Iterable[cst.CSTNode]:
        if isinstance(node, cst.FunctionDef) and node.name.value == "__repr__":
            return (node.body,)
        return ()


def _named(node: cst.BaseExpression, name: str) -> bool:
    return (isinstance(node, cst.Name) and node.value == name) or (
        isinstance(node, cst.Attribute) and node.attr.value == name
    )


@dataclass(frozen=True)
class TypeAnnotationRule:
    """Types that do nothing at run time: annotations, `cast`'s type, `if TYPE_CHECKING:`.

    mutmut never mutates inside annotations itself; `cast("T", x)` and
    TYPE_CHECKING blocks are where its mutants would be equivalent.
    """

    name: str = "type-annotation"

    def roots(self, node: cst.CSTNode) -> Iterable[cst.CSTNode]:
        if isinstance(node, cst.Annotation):
            return (node,)
        if isinstance(node, cst.Call) and _named(node.func, "cast") and node.args:
            return (node.args[0],)
        if isinstance(node, cst.If) and _named(node.test, "TYPE_CHECKING"):
            return (node.test, node.body)  # not `else`: that branch runs
        return ()


@dataclass(frozen=True)
class AssertMessageRule:
    """The message of `assert x, msg`: only read once the assertion has already failed."""

    name: str = "assert-message"

    def roots(self, node: cst.CSTNode) -> Iterable[cst.CSTNode]:
        if isinstance(node, cst.Assert) and node.msg is not None:
            return (node.msg,)
        return ()


ARID_RULES: tuple[AridRule, ...] = (
    LoggingRule(),
    DocstringRule(),
    ReprRule(),
    TypeAnnotationRule(),
    AssertMessageRule(),
)


def arid_rules_except(disabled: Iterable[str]) -> tuple[AridRule, ...]:
    """The default arid rules without the named ones; an unknown name is a ValueError."""
    names = set(disabled)
    known = {rule.name for rule in ARID_RULES}
    unknown = sorted(names - known)
    if unknown:
        raise ValueError(
            f"unknown arid rule(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}"
        )
    return tuple(rule for rule in ARID_RULES if rule.name not in names)


def first_skipping(filters: Sequence[Filter], candidate: Candidate) -> str | None:
    """The name of the first filter that skips the candidate (each skip is counted once)."""
    for rule in filters:
        if rule.skips(candidate):
            return rule.name
    return None
