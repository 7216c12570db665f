"""Building replacement code: `replace` with its metavariables and wildcards filled in.

What a metavariable or wildcard matched goes in as the original nodes, so
libcst renders it exactly as it was written (comments and line breaks inside
it included). Bound code is parenthesised only where its new surroundings would
otherwise change how it groups (`$X * 2` with X = `a + b`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import libcst as cst

from guardcheck.edit.context import EditFailure
from guardcheck.edit.matching import Bindings, flat_parameters, run_key
from guardcheck.edit.pattern import capture_metavar, metavar_name

# Turns a run of bound statement units back into whole statements for a block.
Restatement = Callable[[Sequence[cst.CSTNode]], list[cst.BaseStatement]]


def substitute(
    node: cst.CSTNodeT, bindings: Bindings, restate: Restatement | None = None
) -> cst.CSTNodeT:
    """`node` (from `replace`) with metavariables and wildcards replaced by what they matched."""
    substituter = _Substituter(bindings, restate or _wrap_units)
    result = node.visit(substituter)
    if substituter.unplaced:
        name = sorted(substituter.unplaced)[0]
        raise EditFailure(
            "pattern",
            f"`replace` uses ${name} as an expression, but in `find` it matched a case "
            "pattern, which is no expression",
            f"use ${name} only as a case pattern in `replace`, or bind the expression "
            "with another metavariable",
        )
    return result  # type: ignore[return-value]


def _wrap_units(found: Sequence[cst.CSTNode]) -> list[cst.BaseStatement]:
    return [
        unit if isinstance(unit, cst.BaseCompoundStatement) else cst.SimpleStatementLine([unit])  # type: ignore[list-item]
        for unit in found
    ]


class _Substituter(cst.CSTTransformer):
    def __init__(self, bindings: Bindings, restate: Restatement) -> None:
        super().__init__()
        self.bindings = bindings
        self.restate = restate
        self.inserted: set[int] = set()
        self.unplaced: set[str] = set()  # pattern-bound `$P`s not (yet) put in a case pattern

    def _run(self, original: cst.CSTNode) -> tuple[cst.CSTNode, ...] | None:
        key = run_key(original)
        if key is None:
            return None
        bound = self.bindings.get(key, ())
        assert isinstance(bound, tuple)
        return bound

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.BaseExpression:
        name = metavar_name(original_node)
        if name is None:
            return updated_node
        bound = self.bindings[name]
        if isinstance(bound, cst.MatchPattern):
            self.unplaced.add(name)  # `case $P:` bound a pattern: leave_MatchAs puts it in
            return updated_node
        assert isinstance(bound, cst.BaseExpression)
        self.inserted.add(id(bound))
        return bound

    def leave_MatchAs(
        self, original_node: cst.MatchAs, updated_node: cst.MatchAs
    ) -> cst.MatchPattern:
        name = capture_metavar(original_node)
        bound = self.bindings.get(name) if name is not None else None
        if not isinstance(bound, cst.MatchPattern):
            return updated_node
        self.unplaced.discard(name)  # type: ignore[arg-type]
        return bound

    def on_leave(
        self, original_node: cst.CSTNodeT, updated_node: cst.CSTNodeT
    ) -> cst.CSTNodeT | cst.RemovalSentinel | cst.FlattenSentinel[cst.CSTNodeT]:
        if not isinstance(original_node, cst.SimpleStatementLine):
            run = self._run(original_node)
            if run is not None:
                return cst.FlattenSentinel(run)  # type: ignore[arg-type]
        result = super().on_leave(original_node, updated_node)
        if isinstance(result, cst.SimpleStatementLine):
            return self._statement_runs(original_node, result)  # type: ignore[return-value]
        if isinstance(result, cst.Parameters):
            return _regrouped(result)  # type: ignore[return-value]
        if isinstance(result, cst.CSTNode):
            return self._protect_children(_without_stray_comma(result))  # type: ignore[return-value]
        return result

    def _statement_runs(
        self, original: cst.CSTNode, line: cst.SimpleStatementLine
    ) -> cst.BaseStatement | cst.FlattenSentinel[cst.BaseStatement] | cst.RemovalSentinel:
        """A `$$$BODY` statement becomes the statements it matched."""
        assert isinstance(original, cst.SimpleStatementLine)
        if len(original.body) != 1:
            return line
        run = self._run(original.body[0])
        if run is None:
            return line
        if not run:
            return cst.RemoveFromParent()
        return cst.FlattenSentinel(self.restate(run))

    def _protect_children(self, parent: cst.CSTNode) -> cst.CSTNode:
        changes: dict[str, cst.CSTNode] = {}
        for field, child in operand_slots(parent):
            if id(child) in self.inserted and needs_parens(child, parent, field):
                changes[field] = parenthesize(child)
        return parent.with_changes(**changes) if changes else parent


def _regrouped(parameters: cst.Parameters) -> cst.Parameters:
    """Parameters a `$$$NAME` brought in, sorted back into libcst's fields by kind."""
    posonly: list[cst.Param] = []
    slash: cst.ParamSlash | cst.MaybeSentinel = cst.MaybeSentinel.DEFAULT
    params: list[cst.Param] = []
    star: cst.Param | cst.ParamStar | cst.MaybeSentinel = cst.MaybeSentinel.DEFAULT
    kwonly: list[cst.Param] = []
    star_kwarg: cst.Param | None = None
    for item in flat_parameters(parameters):
        if isinstance(item, cst.ParamSlash):
            posonly, params, slash = params, [], item
        elif isinstance(item, cst.ParamStar) or (isinstance(item, cst.Param) and item.star == "*"):
            star = item  # type: ignore[assignment]
        elif isinstance(item, cst.Param) and item.star == "**":
            star_kwarg = item
        elif isinstance(star, cst.MaybeSentinel):
            params.append(item)  # type: ignore[arg-type]
        else:
            kwonly.append(item)  # type: ignore[arg-type]
    return parameters.with_changes(
        posonly_params=posonly,
        posonly_ind=slash,
        params=params,
        star_arg=star,
        kwonly_params=kwonly,
        star_kwarg=star_kwarg,
    )


def _without_stray_comma(node: cst.CSTNode) -> cst.CSTNode:
    """A bound item that was followed by a comma, now last: let libcst decide its comma."""
    for field in ("args", "elements"):
        items = getattr(node, field, None)
        if (
            isinstance(items, tuple)
            and items
            and isinstance(items[-1], (cst.Arg, cst.BaseElement, cst.BaseDictElement))
        ):
            last = items[-1]
            if isinstance(last.comma, cst.Comma) and not _comment_in(last.comma):
                return node.with_changes(
                    **{field: (*items[:-1], last.with_changes(comma=cst.MaybeSentinel.DEFAULT))}
                )
    return node


def _comment_in(comma: cst.Comma) -> bool:
    return "#" in cst.Module(body=[]).code_for_node(comma)


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
