"""Finding where `find` matches: the scope searched, every match, and the one to edit.

Failures are EditFailures: an unknown scope (with close names), no match
(stale, with the nearest candidates), several matches without `occurrence`
(ambiguous), or an `occurrence` out of range.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import libcst as cst

from guardcheck.edit.context import Context, EditFailure
from guardcheck.edit.matching import (
    Bindings,
    Pairs,
    match,
    match_statements,
    unit_bounds,
    unit_count,
)
from guardcheck.edit.parsed import ParsedModule, Range
from guardcheck.edit.pattern import TRANSFORM_HINT, Pattern, display
from guardcheck.model import Edit

_NEAREST = 3
_LISTED = 10  # matches listed in an ambiguous/occurrence error

Block = cst.Module | cst.IndentedBlock | cst.SimpleStatementSuite


@dataclass(frozen=True)
class Match:
    """One place `find` matched: an expression or clause, or statements block.body[start:end]."""

    node: cst.CSTNode  # the expression or clause, or the first statement
    bindings: Bindings
    pairs: Pairs = field(default_factory=dict)
    block: Block | None = None
    start: int = 0
    end: int = 0


# --- scope ------------------------------------------------------------------------------------


def resolve_scope(parsed: ParsedModule, edit: Edit) -> tuple[Range, ...]:
    if not edit.scope:
        return (parsed.whole,)
    found = parsed.scopes.get(edit.scope)
    if found:
        return found
    known = sorted(parsed.scopes)
    nearest = difflib.get_close_matches(edit.scope, known, n=5, cutoff=0.5)
    if nearest:
        details = (f"did you mean: {', '.join(nearest)}",)
    elif known:
        shown = ", ".join(known[:10]) + (", ..." if len(known) > 10 else "")
        details = (f"defined there: {shown}",)
    else:
        details = ("the file defines no functions or classes",)
    raise EditFailure(
        "scope",
        f"scope `{edit.scope}` not found in {edit.file}",
        "set `scope` to an existing qualified name (func, Class.method, outer.inner) or drop it",
        details,
    )


# --- matching ---------------------------------------------------------------------------------


def find_matches(context: Context, find: Pattern) -> list[Match]:
    if find.kind == "expression":
        matches = _expression_matches(context, find)
    elif find.kind == "clause":
        matches = _clause_matches(context, find)
    else:
        matches = _statement_matches(context, find)
    positions = context.parsed.positions
    # Source order; an enclosing match before the matches nested in it.
    matches.sort(key=lambda m: (positions[m.node].start.line, positions[m.node].start.column))
    if not matches:
        raise _stale(context, find)
    return matches


def _expression_matches(context: Context, find: Pattern) -> list[Match]:
    found = []
    for node in context.parsed.expressions(context.scopes):
        bindings: Bindings = {}
        pairs: Pairs = {}
        if match(find.expression, node, bindings, pairs, find.open):
            found.append(Match(node, bindings, pairs))
    return found


def _clause_matches(context: Context, find: Pattern) -> list[Match]:
    assert find.clause is not None
    found = []
    for node in _clauses(context, type(find.clause)):
        bindings: Bindings = {}
        pairs: Pairs = {}
        if match(find.clause, node, bindings, pairs, find.open):
            found.append(Match(node, bindings, pairs))
    return found


def _clauses(context: Context, kind: type) -> Iterator[cst.CSTNode]:
    parents = context.parsed.parents
    for start, end in context.scopes:
        for node in context.parsed.nodes[start:end]:
            if type(node) is not kind:
                continue
            if isinstance(node, cst.If):  # only an `elif` is a clause
                parent = parents.get(id(node))
                if not (isinstance(parent, cst.If) and parent.orelse is node):
                    continue
            yield node


def _statement_matches(context: Context, find: Pattern) -> list[Match]:
    found = []
    least, most = unit_bounds(find.statements)
    for block in blocks(context.parsed, context.scopes):
        body: Sequence[cst.CSTNode] = block.body
        counts = [unit_count(statement) for statement in body]
        for start in range(len(body)):
            units = 0
            # The shortest run that matches: a trailing `...` must not swallow the block.
            for end in range(start + 1, len(body) + 1):
                units += counts[end - 1]
                if most is not None and units > most:
                    break
                bindings: Bindings = {}
                pairs: Pairs = {}
                if units >= least and match_statements(
                    find.statements,
                    body[start:end],
                    bindings,
                    pairs,
                    find.open,  # type: ignore[arg-type]
                ):
                    found.append(Match(body[start], bindings, pairs, block, start, end))
                    break
    return found


def blocks(parsed: ParsedModule, ranges: tuple[Range, ...]) -> Iterator[Block]:
    """Every statement list in the ranges, one-line bodies (`if x: y`) included."""
    for start, end in ranges:
        for node in parsed.nodes[start:end]:
            if isinstance(node, (cst.Module, cst.IndentedBlock, cst.SimpleStatementSuite)):
                yield node


# --- choosing ---------------------------------------------------------------------------------


def choose(context: Context, matches: list[Match]) -> Match:
    occurrence = context.edit.occurrence
    if occurrence is None and len(matches) == 1:
        return matches[0]
    listing = tuple(
        f"match {n}: {context.snippet_at(m.node)}" for n, m in enumerate(matches[:_LISTED], start=1)
    )
    if len(matches) > _LISTED:
        listing += (f"... and {len(matches) - _LISTED} more",)
    if occurrence is None:
        lines = ", ".join(str(context.parsed.line_of(m.node)) for m in matches[:_LISTED])
        if len(matches) > _LISTED:
            lines += ", ..."
        raise EditFailure(
            "ambiguous",
            f"`find` matches {len(matches)} places in {context.searched}, at lines {lines}",
            "add `occurrence = N` (1-based, in source order), or narrow `scope` or `find`",
            listing,
        )
    if not 1 <= occurrence <= len(matches):
        noun = "place" if len(matches) == 1 else "places"
        raise EditFailure(
            "occurrence",
            f"occurrence = {occurrence}, but `find` matches {len(matches)} {noun} "
            f"in {context.searched}",
            f"set `occurrence` between 1 and {len(matches)}"
            if len(matches) > 1
            else "drop `occurrence`",
            listing,
        )
    return matches[occurrence - 1]


# --- staleness --------------------------------------------------------------------------------


def _stale(context: Context, find: Pattern) -> EditFailure:
    nearest = _nearest(context, find)
    wanted = _normalized(display(find.text))
    for node in nearest:
        if _normalized(_code(context.parsed, node)) == wanted:
            # The code is there as written, yet it does not match: a form the pattern
            # language cannot say. "Stale" with an identical candidate would mislead.
            raise EditFailure(
                "pattern",
                f"`find` reads like the code at {context.snippet_at(node)}, but guardcheck "
                "cannot match this pattern form structurally",
                f"rewrite `find` with the forms docs/catalogue.md lists, or {TRANSFORM_HINT}",
            )
    return EditFailure(
        "stale",
        f"`find` matches nothing in {context.searched}",
        "update `find` to today's code, or delete the entry if the bug is gone for good",
        tuple(f"nearest: {context.snippet_at(node)}" for node in nearest)
        or ("nearest: nothing of that kind in scope",),
    )


def _normalized(text: str) -> str:
    return "".join(text.split())


def _code(parsed: ParsedModule, node: cst.CSTNode) -> str:
    return parsed.module.code_for_node(node)


def _nearest(context: Context, find: Pattern) -> list[cst.CSTNode]:
    """Nodes in scope most like `find`: same node type first, ranked by textual similarity."""
    candidates: list[cst.CSTNode]
    if find.kind == "expression":
        candidates = list(context.parsed.expressions(context.scopes))
        wanted: type = type(find.expression)
    elif find.kind == "clause":
        assert find.clause is not None
        wanted = type(find.clause)
        candidates = list(_clauses(context, wanted))
    else:
        candidates = [s for block in blocks(context.parsed, context.scopes) for s in block.body]
        wanted = _statement_type(find.statements[0])
    same = [c for c in candidates if _statement_type(c) is wanted or type(c) is wanted]
    pool = same or candidates
    target = " ".join(display(find.text).split())

    def similarity(node: cst.CSTNode) -> float:
        text = " ".join(_code(context.parsed, node).split())
        return difflib.SequenceMatcher(None, target, text).ratio()

    return sorted(pool, key=similarity, reverse=True)[:_NEAREST]


def _statement_type(node: cst.CSTNode) -> type:
    if isinstance(node, cst.SimpleStatementLine) and node.body:
        return type(node.body[0])
    return type(node)
