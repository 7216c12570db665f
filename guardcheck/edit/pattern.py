"""The catalogue's pattern language: parsing `find`/`replace` and structural matching.

A pattern is Python source with two extensions:

* `$NAME` is a metavariable: it matches any single expression, and every use of
  the same name must match structurally equal code;
* `...` is a wildcard when it is the only argument of a call (any argument
  list) or a statement in a block (any run of statements, possibly empty).

Matching is structural over libcst nodes: whitespace, comments, line breaks,
redundant parentheses, trailing commas and quote styles are ignored; node
types, names, operators and literal values are compared. This module works on
CST nodes only; finding places in a file and rewriting it is `engine`'s job.
"""

from __future__ import annotations

import ast
import dataclasses
import io
import textwrap
import tokenize
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Literal

import libcst as cst

# `$NAME` is not Python; before parsing it becomes this reserved identifier.
METAVAR_PREFIX = "__gc_mv_"

Bindings = dict[str, cst.CSTNode]


class PatternError(ValueError):
    """A `find` or `replace` text that is not a usable pattern."""


@dataclass(frozen=True)
class Pattern:
    """A parsed `find` or `replace` text."""

    text: str
    kind: Literal["expression", "statements", "empty"]
    statements: tuple[cst.BaseStatement, ...]  # the whole text as statements (empty for "")
    metavars: frozenset[str]

    @property
    def expression(self) -> cst.BaseExpression:
        """The pattern's expression; only valid when kind == "expression"."""
        line = self.statements[0]
        assert isinstance(line, cst.SimpleStatementLine)
        expr = line.body[0]
        assert isinstance(expr, cst.Expr)
        return expr.value


# --- parsing -------------------------------------------------------------------------------


def parse_pattern(text: str, what: str = "find") -> Pattern:
    """Parse pattern text; `what` names the field in error messages."""
    source = _rewrite_metavars(textwrap.dedent(text).strip("\n"), what)
    if not source.strip():
        return Pattern(text=text, kind="empty", statements=(), metavars=frozenset())
    try:
        module = cst.parse_module(source + "\n")
    except cst.ParserSyntaxError as exc:
        reason = str(exc).splitlines()[0]
        raise PatternError(
            f"`{what}` is not valid Python: one expression, or complete statements ({reason})"
        ) from exc
    statements = tuple(module.body)
    if not statements:
        raise PatternError(f"`{what}` holds only comments")
    return Pattern(
        text=text,
        kind="expression" if _is_lone_expression(statements) else "statements",
        statements=statements,
        metavars=frozenset(_metavars_in(module)),
    )


def _is_lone_expression(statements: Sequence[cst.BaseStatement]) -> bool:
    if len(statements) != 1 or not isinstance(statements[0], cst.SimpleStatementLine):
        return False
    body = statements[0].body
    return len(body) == 1 and isinstance(body[0], cst.Expr)


def _rewrite_metavars(source: str, what: str) -> str:
    """Turn `$NAME` into a reserved identifier, token by token so strings are left alone."""
    if "$" not in source:
        return source
    line_starts = [0]
    for line in source.splitlines(keepends=True):
        line_starts.append(line_starts[-1] + len(line))
    tokens = list(_tokens(source, what))
    pieces: list[str] = []
    cursor = 0
    for index, token in enumerate(tokens):
        if token.type != tokenize.ERRORTOKEN or token.string != "$":
            continue
        following = tokens[index + 1] if index + 1 < len(tokens) else None
        if following is None or following.type != tokenize.NAME or following.start != token.end:
            line = token.start[0]
            raise PatternError(f"`{what}` line {line}: `$` must be followed by a name, like $X")
        offset = line_starts[token.start[0] - 1] + token.start[1]
        pieces.append(source[cursor:offset])
        pieces.append(METAVAR_PREFIX)
        cursor = offset + 1
    pieces.append(source[cursor:])
    return "".join(pieces)


def _tokens(source: str, what: str) -> Iterator[tokenize.TokenInfo]:
    try:
        yield from tokenize.generate_tokens(io.StringIO(source).readline)
    except (tokenize.TokenError, SyntaxError) as exc:
        raise PatternError(f"`{what}` is not valid Python ({exc})") from exc


def metavar_name(node: cst.CSTNode) -> str | None:
    """The user-facing name (without `$`) if `node` is a metavariable."""
    if isinstance(node, cst.Name) and node.value.startswith(METAVAR_PREFIX):
        return node.value[len(METAVAR_PREFIX) :]
    return None


def _metavars_in(node: cst.CSTNode) -> Iterator[str]:
    name = metavar_name(node)
    if name is not None:
        yield name
    for child in node.children:
        yield from _metavars_in(child)


def display(text: str) -> str:
    """Reserved metavariable identifiers back to `$NAME`, for messages."""
    return text.replace(METAVAR_PREFIX, "$")


# --- matching --------------------------------------------------------------------------------

# Fields that carry only formatting. Every libcst field whose name starts with
# "whitespace" is formatting too (see _compared_fields).
_FORMATTING_FIELDS = frozenset(
    {
        "lpar",
        "rpar",
        "leading_lines",
        "lines_after_decorators",
        "header",
        "footer",
        "trailing_whitespace",
        "comma",  # trailing commas; separators are implied by sequence positions
        "semicolon",
        "indent",
        "end",  # FormattedString closing quote
    }
)

_LITERALS = (cst.SimpleString, cst.Integer, cst.Float, cst.Imaginary)


@cache
def _compared_fields(node_type: type[cst.CSTNode]) -> tuple[str, ...]:
    return tuple(
        f.name
        for f in dataclasses.fields(node_type)
        if f.name not in _FORMATTING_FIELDS and not f.name.startswith("whitespace")
    )


def structural_children(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Children that carry code rather than formatting (cheaper than `node.children`)."""
    for field in _compared_fields(type(node)):
        value = getattr(node, field)
        if isinstance(value, cst.CSTNode):
            yield value
        elif isinstance(value, (tuple, list)):
            yield from (item for item in value if isinstance(item, cst.CSTNode))


def match(pattern: cst.CSTNode, target: cst.CSTNode, bindings: Bindings) -> bool:
    """Does `target` have the shape of `pattern`? Extends `bindings` only on success."""
    trial = dict(bindings)
    if not _match(pattern, target, trial):
        return False
    bindings.update(trial)
    return True


def match_statements(
    pattern: Sequence[cst.BaseStatement], target: Sequence[cst.BaseStatement], bindings: Bindings
) -> bool:
    """Match a run of statements, with `...` statements as wildcards."""
    trial = dict(bindings)
    if not _match_units(_units(pattern), _units(target), trial):
        return False
    bindings.update(trial)
    return True


def equal(a: cst.CSTNode, b: cst.CSTNode) -> bool:
    """Structural equality, ignoring formatting (a pattern without metavariables)."""
    return _match(a, b, {})


def _match(pattern: object, target: object, bindings: Bindings) -> bool:
    if isinstance(pattern, cst.CSTNode):
        if not isinstance(target, cst.CSTNode):
            return False
        return _match_node(pattern, target, bindings)
    if isinstance(pattern, (tuple, list)):
        if not isinstance(target, (tuple, list)) or len(pattern) != len(target):
            return False
        return all(_match(p, t, bindings) for p, t in zip(pattern, target, strict=True))
    return pattern == target  # strings, None, sentinels


def _match_node(pattern: cst.CSTNode, target: cst.CSTNode, bindings: Bindings) -> bool:
    name = metavar_name(pattern)
    if name is not None:
        return _bind(name, target, bindings)
    if isinstance(pattern, cst.BaseSuite) and isinstance(target, cst.BaseSuite):
        # `if x: y` and `if x:\n    y` differ only in line breaks.
        return _match_units(_units_of_suite(pattern), _units_of_suite(target), bindings)
    if type(pattern) is not type(target):
        return False
    if isinstance(pattern, _LITERALS):
        return _literal_value(pattern) == _literal_value(target)
    if isinstance(pattern, cst.Call) and _is_any_arguments(pattern.args):
        return _match(pattern.func, target.func, bindings)  # type: ignore[attr-defined]
    if isinstance(pattern, cst.FormattedString):
        if _fstring_prefix(pattern) != _fstring_prefix(target):  # type: ignore[arg-type]
            return False
        return _match(pattern.parts, target.parts, bindings)  # type: ignore[attr-defined]
    return all(
        _match(getattr(pattern, field), getattr(target, field), bindings)
        for field in _compared_fields(type(pattern))
    )


def _bind(name: str, target: cst.CSTNode, bindings: Bindings) -> bool:
    if not isinstance(target, cst.BaseExpression):
        return False
    bound = bindings.get(name)
    if bound is None:
        bindings[name] = target
        return True
    return equal(bound, target)


def _literal_value(node: cst.CSTNode) -> tuple[type, object]:
    # By value, so `'a'` == `"a"`, `1_000` == `1000`, `0XFF` == `0xff`; but `1` != `1.0`.
    text = node.value  # type: ignore[attr-defined]
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return (str, text)
    return (type(value), value)


def _fstring_prefix(node: cst.FormattedString) -> str:
    return node.start.lower().strip("'\"")


def _is_ellipsis(node: cst.CSTNode) -> bool:
    return isinstance(node, cst.Ellipsis)


def _is_any_arguments(args: Sequence[cst.Arg]) -> bool:
    if len(args) != 1:
        return False
    arg = args[0]
    return arg.keyword is None and arg.star == "" and _is_ellipsis(arg.value)


# A "unit" is one small statement or one compound statement, so that
# `a; b` and two lines `a` / `b` compare equal.
Unit = cst.BaseSmallStatement | cst.BaseCompoundStatement


def _units(statements: Sequence[cst.BaseStatement | cst.BaseSmallStatement]) -> list[Unit]:
    units: list[Unit] = []
    for statement in statements:
        if isinstance(statement, cst.SimpleStatementLine):
            units.extend(statement.body)
        else:
            units.append(statement)  # type: ignore[arg-type]
    return units


def _units_of_suite(suite: cst.BaseSuite) -> list[Unit]:
    return _units(suite.body)  # type: ignore[arg-type]


def _is_wildcard(unit: Unit) -> bool:
    return isinstance(unit, cst.Expr) and _is_ellipsis(unit.value) and not unit.value.lpar


def _match_units(pattern: Sequence[Unit], target: Sequence[Unit], bindings: Bindings) -> bool:
    if not pattern:
        return not target
    head, rest = pattern[0], pattern[1:]
    if _is_wildcard(head):
        # Shortest run first, so a trailing `...` does not swallow what follows.
        for skip in range(len(target) + 1):
            trial = dict(bindings)
            if _match_units(rest, target[skip:], trial):
                bindings.update(trial)
                return True
        return False
    if not target:
        return False
    trial = dict(bindings)
    if _match(head, target[0], trial) and _match_units(rest, target[1:], trial):
        bindings.update(trial)
        return True
    return False


def unit_bounds(statements: Sequence[cst.BaseStatement]) -> tuple[int, int | None]:
    """How many units a target run may hold to match these statements (None: unbounded)."""
    units = _units(statements)
    fixed = sum(1 for unit in units if not _is_wildcard(unit))
    return fixed, None if fixed < len(units) else fixed


def unit_count(statement: cst.BaseStatement) -> int:
    return len(statement.body) if isinstance(statement, cst.SimpleStatementLine) else 1


# --- substitution ----------------------------------------------------------------------------


def substitute(node: cst.CSTNodeT, bindings: Bindings) -> cst.CSTNodeT:
    """`node` (from `replace`) with metavariables replaced by the code they matched.

    Matched code keeps its own formatting; it is parenthesised only where the
    new surroundings would otherwise change how it groups (`$X * 2` with X = `a + b`).
    """
    return node.visit(_Substituter(bindings))  # type: ignore[return-value]


class _Substituter(cst.CSTTransformer):
    def __init__(self, bindings: Bindings) -> None:
        super().__init__()
        self.bindings = bindings
        self.inserted: set[int] = set()

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        name = metavar_name(original_node)
        if name is None:
            return updated_node
        bound = self.bindings[name]
        assert isinstance(bound, cst.BaseExpression)
        self.inserted.add(id(bound))
        return bound

    def on_leave(
        self, original_node: cst.CSTNodeT, updated_node: cst.CSTNodeT
    ) -> cst.CSTNodeT | cst.RemovalSentinel | cst.FlattenSentinel[cst.CSTNodeT]:
        result = super().on_leave(original_node, updated_node)
        if isinstance(result, cst.CSTNode):
            return self._protect_children(result)  # type: ignore[return-value]
        return result

    def _protect_children(self, parent: cst.CSTNode) -> cst.CSTNode:
        changes: dict[str, cst.CSTNode] = {}
        for field, child in operand_slots(parent):
            if id(child) in self.inserted and needs_parens(child, parent, field):
                changes[field] = parenthesize(child)
        return parent.with_changes(**changes) if changes else parent


# Python operator precedence, loosest first; anything not listed binds as an atom.
_ATOM = 16
_BINARY_PRECEDENCE: dict[type[cst.CSTNode], int] = {
    cst.BitOr: 7,
    cst.BitXor: 8,
    cst.BitAnd: 9,
    cst.LeftShift: 10,
    cst.RightShift: 10,
    cst.Add: 11,
    cst.Subtract: 11,
    cst.Multiply: 12,
    cst.Divide: 12,
    cst.FloorDivide: 12,
    cst.Modulo: 12,
    cst.MatrixMultiply: 12,
    cst.Power: 14,
}


def precedence(node: cst.CSTNode) -> int:
    if isinstance(node, cst.BaseExpression) and node.lpar:
        return _ATOM
    if isinstance(node, (cst.NamedExpr, cst.Yield)):
        return 0
    if isinstance(node, cst.Lambda):
        return 1
    if isinstance(node, cst.IfExp):
        return 2
    if isinstance(node, cst.BooleanOperation):
        return 3 if isinstance(node.operator, cst.Or) else 4
    if isinstance(node, cst.UnaryOperation):
        return 5 if isinstance(node.operator, cst.Not) else 13
    if isinstance(node, cst.Comparison):
        return 6
    if isinstance(node, cst.BinaryOperation):
        return _BINARY_PRECEDENCE[type(node.operator)]
    if isinstance(node, cst.Await):
        return 15
    return _ATOM


def operand_slots(parent: cst.CSTNode) -> Iterator[tuple[str, cst.CSTNode]]:
    """The (field, child) pairs of `parent` whose grouping depends on precedence."""
    names: tuple[str, ...] = ()
    if isinstance(parent, (cst.BinaryOperation, cst.BooleanOperation)):
        names = ("left", "right")
    elif isinstance(parent, cst.Comparison):
        names = ("left",)
    elif isinstance(parent, cst.ComparisonTarget):
        names = ("comparator",)
    elif isinstance(parent, (cst.UnaryOperation, cst.Await)):
        names = ("expression",)
    elif isinstance(parent, (cst.Attribute, cst.Subscript, cst.StarredElement)):
        names = ("value",)
    elif isinstance(parent, cst.Call):
        names = ("func",)
    elif isinstance(parent, cst.IfExp):
        names = ("test", "body", "orelse")
    for name in names:
        yield name, getattr(parent, name)


def needs_parens(child: cst.CSTNode, parent: cst.CSTNode, field: str) -> bool:
    """Would `child` regroup (or fail to parse) in `parent`'s `field` without parentheses?"""
    if not isinstance(child, cst.BaseExpression) or child.lpar:
        return False
    mine = precedence(child)
    if isinstance(parent, (cst.BinaryOperation, cst.BooleanOperation)):
        theirs = precedence(parent.with_changes(lpar=(), rpar=()))
        right_assoc = isinstance(parent, cst.BinaryOperation) and isinstance(
            parent.operator, cst.Power
        )
        same_level_ok = (field == "left") != right_assoc
        return mine < theirs or (mine == theirs and not same_level_ok)
    if isinstance(parent, (cst.Comparison, cst.ComparisonTarget)):
        return mine <= 6
    if isinstance(parent, cst.UnaryOperation):
        return mine < (5 if isinstance(parent.operator, cst.Not) else 13)
    if isinstance(parent, cst.StarredElement):
        return mine < 7
    if isinstance(parent, cst.IfExp):
        return mine <= 2 if field != "orelse" else mine < 1
    if isinstance(parent, (cst.Attribute, cst.Subscript, cst.Call, cst.Await)):
        return mine < _ATOM
    return False


def parenthesize(node: cst.CSTNodeT) -> cst.CSTNodeT:
    return node.with_changes(lpar=(cst.LeftParen(),), rpar=(cst.RightParen(),))
