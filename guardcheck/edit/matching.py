"""Structural matching of a pattern (from `pattern`) against the target module's CST.

Whitespace, comments, line breaks, redundant parentheses, trailing commas and
quote styles are ignored; node types, names, operators and literal values are
compared. Keyword arguments match in any order. A successful match records
what every metavariable and sequence wildcard bound, and which target node
each pattern node stood for (`Pairs`), so `rewrite` can splice only what differs.
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache

import libcst as cst

from guardcheck.edit.pattern import capture_metavar, metavar_name, wildcard_key

# `$NAME` -> the expression it matched; `$$$NAME` (or an anonymous wildcard's key) ->
# the items it matched.
Binding = cst.CSTNode | tuple[cst.CSTNode, ...]
Bindings = dict[str, Binding]
Pairs = dict[int, cst.CSTNode]  # id(pattern node) -> the target node it matched


def anonymous_key(item: cst.CSTNode) -> str:
    """The binding key of an anonymous `...` wildcard: unique per pattern node."""
    return f"...{id(item)}"


def run_key(item: cst.CSTNode) -> str | None:
    """The binding key of a wildcard item, None if it is not one."""
    key = wildcard_key(item)
    if key is None:
        return None
    return key or anonymous_key(item)


@dataclass
class _State:
    bindings: Bindings
    pairs: Pairs
    open: frozenset[int] = frozenset()
    literal: bool = False  # compare two patterns: metavariables and wildcards by name

    def copy(self) -> _State:
        return _State(dict(self.bindings), dict(self.pairs), self.open, self.literal)

    def commit(self, trial: _State) -> None:
        self.bindings.update(trial.bindings)
        self.pairs.update(trial.pairs)


def match(
    pattern: cst.CSTNode,
    target: cst.CSTNode,
    bindings: Bindings,
    pairs: Pairs | None = None,
    open: frozenset[int] = frozenset(),
) -> bool:
    """Does `target` have the shape of `pattern`? Extends `bindings` (and `pairs`) on success."""
    state = _State(dict(bindings), {}, open)
    if not _match(pattern, target, state):
        return False
    bindings.update(state.bindings)
    if pairs is not None:
        pairs.update(state.pairs)
    return True


def match_statements(
    pattern: Sequence[cst.BaseStatement | cst.BaseSmallStatement],
    target: Sequence[cst.BaseStatement | cst.BaseSmallStatement],
    bindings: Bindings,
    pairs: Pairs | None = None,
    open: frozenset[int] = frozenset(),
) -> bool:
    """Match a run of statements, with `...` and `$$$NAME` statements as wildcards."""
    state = _State(dict(bindings), {}, open)
    if not _match_run(units(pattern), units(target), state):
        return False
    bindings.update(state.bindings)
    if pairs is not None:
        pairs.update(state.pairs)
    return True


def equal(a: cst.CSTNode, b: cst.CSTNode) -> bool:
    """Structural equality, ignoring formatting (a pattern without metavariables)."""
    return _match(a, b, _State({}, {}))


def same(a: cst.CSTNode, b: cst.CSTNode) -> bool:
    """Do two pattern nodes say the same thing (same metavariable and wildcard names)?"""
    return _match(a, b, _State({}, {}, literal=True))


# Fields that carry only formatting. Every libcst field whose name starts with
# "whitespace" is formatting too (see compared_fields).
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
# Parts a pattern may leave unwritten, on the nodes `Pattern.open` lists.
_OPEN_FIELDS = {
    cst.FunctionDef: ("decorators",),
    cst.ClassDef: ("decorators",),
    cst.If: ("orelse",),
    cst.For: ("orelse",),
    cst.While: ("orelse",),
    cst.Try: ("orelse", "handlers", "finalbody"),
}


@cache
def compared_fields(node_type: type[cst.CSTNode]) -> tuple[str, ...]:
    return tuple(
        f.name
        for f in dataclasses.fields(node_type)
        if f.name not in _FORMATTING_FIELDS and not f.name.startswith("whitespace")
    )


def structural_children(node: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Children that carry code rather than formatting (cheaper than `node.children`)."""
    for name in compared_fields(type(node)):
        value = getattr(node, name)
        if isinstance(value, cst.CSTNode):
            yield value
        elif isinstance(value, (tuple, list)):
            yield from (item for item in value if isinstance(item, cst.CSTNode))


def is_open(node: cst.CSTNode, name: str, open: frozenset[int]) -> bool:
    """Is `node`'s field `name` left unwritten in the pattern (so it matches anything)?"""
    if id(node) not in open or name not in _OPEN_FIELDS.get(type(node), ()):
        return False
    value = getattr(node, name)
    return value is None or value == ()


def _match(pattern: object, target: object, state: _State) -> bool:
    if isinstance(pattern, cst.CSTNode):
        if not isinstance(target, cst.CSTNode):
            return False
        if not _match_node(pattern, target, state):
            return False
        state.pairs[id(pattern)] = target
        return True
    if isinstance(pattern, (tuple, list)):
        if not isinstance(target, (tuple, list)):
            return False
        if not state.literal and any(run_key(item) is not None for item in pattern):
            return _match_run(list(pattern), list(target), state)
        # No wildcard: no backtracking, so no trial copies.
        return len(pattern) == len(target) and all(
            _match(p, t, state) for p, t in zip(pattern, target, strict=True)
        )
    return pattern == target  # strings, None, sentinels


def _match_node(pattern: cst.CSTNode, target: cst.CSTNode, state: _State) -> bool:
    name = None if state.literal else metavar_name(pattern)
    if name is not None:
        return _bind(name, target, state.bindings)
    name = None if state.literal else capture_metavar(pattern)
    if name is not None and not _named_capture(target):
        # `case $P:` matches any pattern; against a capture (`case x:`, `{"k": x}`) the
        # fields below bind $P to the name, which a guard or body may use as an expression.
        return _bind(name, target, state.bindings, cst.MatchPattern)
    if isinstance(pattern, cst.BaseSuite) and isinstance(target, cst.BaseSuite):
        # `if x: y` and `if x:\n    y` differ only in line breaks.
        return _match(units(pattern.body), units(target.body), state)  # type: ignore[arg-type]
    if type(pattern) is not type(target):
        return False
    if isinstance(pattern, _LITERALS):
        return _literal_value(pattern) == _literal_value(target)
    if isinstance(pattern, cst.Parameters):
        return _match(flat_parameters(pattern), flat_parameters(target), state)  # type: ignore[arg-type]
    if isinstance(pattern, cst.Call) and not state.literal:
        return _match(pattern.func, target.func, state) and _match_arguments(  # type: ignore[attr-defined]
            pattern.args,
            target.args,
            state,  # type: ignore[attr-defined]
        )
    if isinstance(pattern, cst.FormattedString):
        if _fstring_prefix(pattern) != _fstring_prefix(target):  # type: ignore[arg-type]
            return False
        return _match(pattern.parts, target.parts, state)  # type: ignore[attr-defined]
    return all(
        is_open(pattern, name, state.open)
        or _match(getattr(pattern, name), getattr(target, name), state)
        for name in compared_fields(type(pattern))
    )


def _named_capture(node: cst.CSTNode) -> bool:
    return isinstance(node, cst.MatchAs) and node.pattern is None and node.name is not None


def _bind(
    name: str,
    target: cst.CSTNode,
    bindings: Bindings,
    kind: type[cst.CSTNode] = cst.BaseExpression,
) -> bool:
    if not isinstance(target, kind):
        return False
    bound = bindings.get(name)
    if bound is None:
        bindings[name] = target
        return True
    return isinstance(bound, cst.CSTNode) and equal(bound, target)


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


# --- sequences -------------------------------------------------------------------------------


def _match_run(pattern: list[cst.CSTNode], target: list[cst.CSTNode], state: _State) -> bool:
    """Match items in order; a wildcard item takes the shortest run that lets the rest match."""
    if not pattern:
        return not target
    head, rest = pattern[0], pattern[1:]
    key = run_key(head)
    if key is not None:
        fixed = sum(1 for item in rest if run_key(item) is None)
        for take in range(len(target) - fixed + 1):
            trial = state.copy()
            if _bind_run(key, target[:take], trial) and _match_run(rest, target[take:], trial):
                state.commit(trial)
                return True
        return False
    if not target:
        return False
    trial = state.copy()
    if _match(head, target[0], trial) and _match_run(rest, target[1:], trial):
        state.commit(trial)
        return True
    return False


def _bind_run(key: str, items: list[cst.CSTNode], state: _State) -> bool:
    bound = state.bindings.get(key)
    if bound is None:
        state.bindings[key] = tuple(items)
        return True
    # `$$$A` used twice in `find`: the second run must equal the first.
    return (
        isinstance(bound, tuple)
        and len(bound) == len(items)
        and all(equal(a, b) for a, b in zip(bound, items, strict=True))
    )


def _is_keyword(arg: cst.CSTNode) -> bool:
    return isinstance(arg, cst.Arg) and (arg.keyword is not None or arg.star == "**")


def _match_arguments(pattern: Sequence[cst.Arg], target: Sequence[cst.Arg], state: _State) -> bool:
    """Arguments: positional ones in order, keyword ones by name, in any order.

    Keyword order does not change what a call means, so it does not change
    matching; target keywords the pattern does not name go to its wildcards.
    """
    keywords = [arg for arg in pattern if _is_keyword(arg)]
    if not keywords:
        return _match_run(list(pattern), list(target), state)
    trial = state.copy()
    used: set[int] = set()
    for wanted in keywords:
        for arg in target:
            if id(arg) in used or not _is_keyword(arg) or not _same_keyword(wanted, arg):
                continue
            attempt = trial.copy()
            if _match(wanted, arg, attempt):
                trial.commit(attempt)
                used.add(id(arg))
                break
        else:
            return False
    rest_pattern = [arg for arg in pattern if not _is_keyword(arg)]
    rest_target = [arg for arg in target if id(arg) not in used]
    if not _match_run(rest_pattern, rest_target, trial):  # type: ignore[arg-type]
        return False
    state.commit(trial)
    return True


def _same_keyword(a: cst.Arg, b: cst.Arg) -> bool:
    if a.keyword is None or b.keyword is None:
        return a.keyword is None and b.keyword is None and a.star == b.star
    return a.keyword.value == b.keyword.value


def flat_parameters(parameters: cst.Parameters) -> list[cst.CSTNode]:
    """A signature's parameters as one list, in source order (markers `/` and `*` included)."""
    items: list[cst.CSTNode] = list(parameters.posonly_params)
    if isinstance(parameters.posonly_ind, cst.ParamSlash):
        items.append(parameters.posonly_ind)
    items += parameters.params
    if isinstance(parameters.star_arg, (cst.Param, cst.ParamStar)):
        items.append(parameters.star_arg)
    items += parameters.kwonly_params
    if parameters.star_kwarg is not None:
        items.append(parameters.star_kwarg)
    return items


# A "unit" is one small statement or one compound statement, so that
# `a; b` and two lines `a` / `b` compare equal.
Unit = cst.BaseSmallStatement | cst.BaseCompoundStatement


def units(statements: Sequence[cst.CSTNode]) -> list[cst.CSTNode]:
    found: list[cst.CSTNode] = []
    for statement in statements:
        if isinstance(statement, cst.SimpleStatementLine):
            found.extend(statement.body)
        else:
            found.append(statement)
    return found


def unit_bounds(statements: Sequence[cst.BaseStatement]) -> tuple[int, int | None]:
    """How many units a target run may hold to match these statements (None: unbounded)."""
    found = units(statements)
    fixed = sum(1 for unit in found if run_key(unit) is None)
    return fixed, None if fixed < len(found) else fixed


def unit_count(statement: cst.CSTNode) -> int:
    return len(statement.body) if isinstance(statement, cst.SimpleStatementLine) else 1
