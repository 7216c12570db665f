"""The catalogue's pattern language: parsing `find`/`replace` texts into CST patterns.

A pattern is Python source with these extensions:

* `$NAME` is a metavariable: it matches any single expression, and every use of
  the same name must match structurally equal code;
* `$$$NAME` is a sequence wildcard: zero or more arguments, parameters,
  statements, decorators or collection elements; in `replace` it stands for
  exactly the code it matched;
* `...` in one of those places is an anonymous sequence wildcard (`find` only);
* a pattern whose last line is a block header (`def f(x=1):`, `if $C:`,
  `except KeyError:`) has an implicit body: in `find` any body, in `replace`
  the body it matched, so a header can change while its body is kept;
* a pattern may be one clause of a compound statement: `elif ...:`,
  `else:`, `except ...:`, `finally:`, or a `match` statement's `case ...:`
  (its guard included); in a case pattern, `$NAME` alone stands for any
  pattern, as a capture (`{"after": $D}`) for the name it binds, and
  `$$$NAME` for items of a sequence pattern.

Matching is `matching`'s job, rewriting `rewrite`'s; this module only parses.
"""

from __future__ import annotations

import io
import re
import textwrap
import tokenize
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property
from keyword import iskeyword
from typing import Literal

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

# `$NAME` and `$$$NAME` are not Python; before parsing they become reserved identifiers.
METAVAR_PREFIX = "__gc_mv_"
SEQUENCE_PREFIX = "__gc_seq_"
# A `$$$NAME` parameter after one with a default gets this default, or it would not parse.
_SEQUENCE_DEFAULT = SEQUENCE_PREFIX
# The hidden name of a header-only pattern's body.
HEADER_BODY = "__body"
# The wrapper a lone clause is parsed in; the clause is taken back out of it. A `case`
# sits one level inside its `match`, so it is indented into it.
_CLAUSE_WRAPPERS = {
    "except": "try:\n    pass\n",
    "finally": "try:\n    pass\n",
    "elif": f"if {METAVAR_PREFIX}clause:\n    pass\n",
    "else": f"if {METAVAR_PREFIX}clause:\n    pass\n",
    "case": f"match {METAVAR_PREFIX}clause:\n",
}
_INDENTED_CLAUSES = frozenset({"case"})

TRANSFORM_HINT = "write a `transform` (a libcst.CSTTransformer, see docs/catalogue.md) instead"


class PatternError(ValueError):
    """A `find` or `replace` text that is not a usable pattern."""

    def __init__(self, message: str, fix: str = "write `find`/`replace` as Python source") -> None:
        super().__init__(message)
        self.fix = fix


Kind = Literal["expression", "statements", "clause", "empty"]


@dataclass(frozen=True)
class Pattern:
    """A parsed `find` or `replace` text."""

    text: str
    kind: Kind
    statements: tuple[cst.BaseStatement, ...]  # the whole text as statements (empty for "")
    metavars: frozenset[str]  # `$NAME`s
    sequences: frozenset[str]  # `$$$NAME`s (and HEADER_BODY for a header-only pattern)
    ellipses: int  # bare `...` wildcards
    header_only: bool  # the text ends with a block header; its body is implicit
    module: cst.Module | None = None  # what was parsed (for positions of replace's nodes)
    clause: cst.CSTNode | None = None  # kind == "clause": the clause node (MatchCase for `case`)
    open: frozenset[int] = frozenset()  # ids of nodes whose unwritten parts match anything

    @property
    def expression(self) -> cst.BaseExpression:
        """The pattern's expression; only valid when kind == "expression"."""
        line = self.statements[0]
        assert isinstance(line, cst.SimpleStatementLine)
        expr = line.body[0]
        assert isinstance(expr, cst.Expr)
        return expr.value

    @property
    def top(self) -> tuple[cst.CSTNode, ...]:
        """The nodes a match corresponds to, one by one."""
        if self.kind == "expression":
            return (self.expression,)
        if self.kind == "clause":
            assert self.clause is not None
            return (self.clause,)
        return self.statements

    @property
    def has_wildcards(self) -> bool:
        return bool(self.ellipses or self.sequences - {HEADER_BODY})

    @cached_property
    def positions(self) -> dict[cst.CSTNode, CodeRange]:
        if self.module is None:
            return {}
        wrapper = MetadataWrapper(self.module, unsafe_skip_copy=True)
        return dict(wrapper.resolve(PositionProvider))


# --- parsing -------------------------------------------------------------------------------


def parse_pattern(text: str, what: str = "find") -> Pattern:
    """Parse pattern text; `what` names the field in error messages."""
    source = textwrap.dedent(text).strip("\n")
    if not source.strip():
        return Pattern(text, "empty", (), frozenset(), frozenset(), 0, header_only=False)
    tokens = list(_tokens(source, what))
    keyword = _first_keyword(tokens)
    header_only = _ends_with_header(tokens)
    if header_only:
        last = source.rstrip().splitlines()[-1]
        indent = last[: len(last) - len(last.lstrip())]
        source = f"{source}\n{indent}    $$${HEADER_BODY}"
        tokens = list(_tokens(source, what))
    wrapper = _CLAUSE_WRAPPERS.get(keyword, "")
    try:
        module = _parse(source, tokens, wrapper, what, indented=keyword in _INDENTED_CLAUSES)
    except PatternError:
        if keyword not in _INDENTED_CLAUSES:
            raise
        # `case` is a soft keyword: `case = 1` and `case(x)` are code, not a clause.
        try:
            module = _parse(source, tokens, "", what)
        except PatternError:
            raise PatternError(
                f"`{what}` starts with `case` but is not one `case` clause of a `match` "
                "(`case PATTERN:` or `case PATTERN if GUARD:`, optionally with its body)"
            ) from None
        wrapper = ""
    statements = tuple(module.body)
    if not statements:
        raise PatternError(f"`{what}` holds only comments")
    clause = _unwrap_clause(keyword, statements, what) if wrapper else None
    kind: Kind = (
        "clause"
        if clause is not None
        else "expression"
        if _is_lone_expression(statements)
        else "statements"
    )
    scan = _Scan()
    scan.visit(clause if clause is not None else module, None)
    if scan.misplaced:
        raise PatternError(
            f"`{what}` puts {scan.misplaced} where guardcheck can only match an expression "
            "(metavariables stand for expressions, not for names of functions, attributes, "
            "keywords or imports)",
            f"write that name literally, or {TRANSFORM_HINT}",
        )
    return Pattern(
        text=text,
        kind=kind,
        statements=(clause,) if clause is not None else statements,  # type: ignore[arg-type]
        metavars=frozenset(scan.metavars),
        sequences=frozenset(scan.sequences),
        ellipses=scan.ellipses,
        header_only=header_only,
        module=module,
        clause=clause,
        open=frozenset(_open_nodes(clause if clause is not None else module, header_only)),
    )


def _parse(
    source: str,
    tokens: list[tokenize.TokenInfo],
    wrapper: str,
    what: str,
    *,
    indented: bool = False,
) -> cst.Module:
    """Parse the rewritten text; a dict's `$$$NAME` / `...` need a second spelling.

    `indented`: the text goes one level into `wrapper` (a `case` into its `match`).
    """
    first_error: cst.ParserSyntaxError | None = None
    for in_dicts in (False, True):
        rewritten = _rewrite_names(source, tokens, what, in_dicts=in_dicts)
        if indented:
            rewritten = textwrap.indent(rewritten, "    ")
        try:
            return cst.parse_module(wrapper + rewritten + "\n")
        except cst.ParserSyntaxError as exc:
            first_error = first_error or exc
    assert first_error is not None
    reason = str(first_error).splitlines()[0]
    raise PatternError(
        f"`{what}` is not valid Python: one expression, complete statements, a block header "
        f"or one clause (`elif`, `else`, `except`, `finally`, `case`) ({reason})"
    ) from first_error


def _tokens(source: str, what: str) -> Iterator[tokenize.TokenInfo]:
    try:
        yield from tokenize.generate_tokens(io.StringIO(source).readline)
    except (tokenize.TokenError, SyntaxError) as exc:
        raise PatternError(f"`{what}` is not valid Python ({exc})") from exc


_LAYOUT = frozenset(
    {tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT}
)


def _significant(tokens: Sequence[tokenize.TokenInfo]) -> list[tokenize.TokenInfo]:
    return [
        t
        for t in tokens
        if t.type not in _LAYOUT
        and t.type != tokenize.ENDMARKER
        and not (t.type == tokenize.ERRORTOKEN and t.string.isspace())
    ]


def _first_keyword(tokens: Sequence[tokenize.TokenInfo]) -> str:
    significant = _significant(tokens)
    return significant[0].string if significant and significant[0].type == tokenize.NAME else ""


def _ends_with_header(tokens: Sequence[tokenize.TokenInfo]) -> bool:
    significant = _significant(tokens)
    return bool(significant) and significant[-1].string == ":"


def _rewrite_names(
    source: str, tokens: list[tokenize.TokenInfo], what: str, *, in_dicts: bool
) -> str:
    """`$NAME` and `$$$NAME` as reserved identifiers, token by token (strings are left alone).

    In a `def`'s parameters after a default, `$$$NAME` gets a placeholder default
    (`def f(a=1, $$$REST)` must parse). With `in_dicts`, a `$$$NAME` or `...`
    that is a whole item of a `{...}` display becomes `**placeholder`, which a
    dict display accepts where a bare name is a syntax error.
    """
    line_starts = [0]
    for line in source.splitlines(keepends=True):
        line_starts.append(line_starts[-1] + len(line))

    def offset(position: tuple[int, int]) -> int:
        return line_starts[position[0] - 1] + position[1]

    significant = _significant(tokens)
    edits: list[tuple[int, int, str]] = []  # (start, end, text)
    brackets: list[str] = []  # "(", "[", "{" or "params"
    defaulted: list[bool] = []  # per bracket: a parameter default was seen (params only)
    index = 0
    while index < len(significant):
        token = significant[index]
        before = significant[index - 1].string if index else ""
        if token.string == "$":
            dollars = 1
            while (
                index + dollars < len(significant)
                and significant[index + dollars].string == "$"
                and significant[index + dollars].start == significant[index + dollars - 1].end
            ):
                dollars += 1
            name_token = (
                significant[index + dollars] if index + dollars < len(significant) else None
            )
            if (
                dollars not in (1, 3)
                or name_token is None
                or name_token.type != tokenize.NAME
                or name_token.start != significant[index + dollars - 1].end
            ):
                raise PatternError(
                    f"`{what}` line {token.start[0]}: `$` must be followed by a name, "
                    "like $X, or `$$$` by a name, like $$$ARGS"
                )
            after = (
                significant[index + dollars + 1].string
                if index + dollars + 1 < len(significant)
                else ""
            )
            start, end = offset(token.start), offset(name_token.end)
            if dollars == 1:
                edits.append((start, end, METAVAR_PREFIX + name_token.string))
            else:
                text = SEQUENCE_PREFIX + name_token.string
                if brackets and brackets[-1] == "params" and defaulted[-1]:
                    text += "=" + _SEQUENCE_DEFAULT
                if in_dicts and _dict_item(brackets, before, after):
                    text = "**" + text
                elif in_dicts and _late_argument(brackets, defaulted, before, after):
                    text = "*" + text
                edits.append((start, end, text))
            index += dollars + 1
            continue
        if token.string == "..." and in_dicts:
            after = significant[index + 1].string if index + 1 < len(significant) else ""
            if _dict_item(brackets, before, after):
                edits.append((offset(token.start), offset(token.end), "**" + SEQUENCE_PREFIX))
            elif _late_argument(brackets, defaulted, before, after):
                edits.append((offset(token.start), offset(token.end), "*" + SEQUENCE_PREFIX))
        if token.string in ("(", "[", "{"):
            is_params = (
                token.string == "("
                and index >= 2
                and significant[index - 2].string == "def"
                and significant[index - 1].type == tokenize.NAME
            )
            is_call = token.string == "(" and (
                before in (")", "]")
                or (significant[index - 1].type == tokenize.NAME and not iskeyword(before))
                if index
                else False
            )
            brackets.append("params" if is_params else "call" if is_call else token.string)
            defaulted.append(False)
        elif token.string in (")", "]", "}") and brackets:
            brackets.pop()
            defaulted.pop()
        elif brackets and brackets[-1] in ("params", "call"):
            if token.string == "=":
                defaulted[-1] = True
            elif token.string in ("*", "**"):
                defaulted[-1] = False
        index += 1
    pieces, cursor = [], 0
    for start, end, text in edits:
        pieces += [source[cursor:start], text]
        cursor = end
    pieces.append(source[cursor:])
    return "".join(pieces)


def _late_argument(
    brackets: Sequence[str], defaulted: Sequence[bool], before: str, after: str
) -> bool:
    """A wildcard argument after a keyword one: only `*x` may follow `k=v` in Python."""
    return (
        bool(brackets)
        and brackets[-1] == "call"
        and defaulted[-1]
        and before == ","
        and after in ",)"
    )


def _dict_item(brackets: Sequence[str], before: str, after: str) -> bool:
    return bool(brackets) and brackets[-1] == "{" and before in "{," and after in ",}"


def _unwrap_clause(keyword: str, statements: Sequence[cst.BaseStatement], what: str) -> cst.CSTNode:
    wrapper = statements[0]
    clause: cst.CSTNode | None = None
    if len(statements) == 1 and isinstance(wrapper, cst.Try):
        if keyword == "except" and len(wrapper.handlers) == 1 and not wrapper.finalbody:
            clause = wrapper.handlers[0] if wrapper.orelse is None else None
        elif keyword == "finally" and not wrapper.handlers:
            clause = wrapper.finalbody
    elif len(statements) == 1 and isinstance(wrapper, cst.Match):
        clause = wrapper.cases[0] if keyword == "case" and len(wrapper.cases) == 1 else None
    elif len(statements) == 1 and isinstance(wrapper, cst.If):
        clause = wrapper.orelse
        if keyword == "elif" and isinstance(clause, cst.If) and clause.orelse is not None:
            clause = None
    if clause is None:
        raise PatternError(
            f"`{what}` starts with `{keyword}`: write exactly one `{keyword}` clause "
            "(its header, and optionally its body)"
        )
    return clause


def _is_lone_expression(statements: Sequence[cst.BaseStatement]) -> bool:
    if len(statements) != 1 or not isinstance(statements[0], cst.SimpleStatementLine):
        return False
    body = statements[0].body
    return len(body) == 1 and isinstance(body[0], cst.Expr)


# --- names -----------------------------------------------------------------------------------


def metavar_name(node: cst.CSTNode) -> str | None:
    """The user-facing name (without `$`) if `node` is a metavariable."""
    if isinstance(node, cst.Name) and node.value.startswith(METAVAR_PREFIX):
        return node.value[len(METAVAR_PREFIX) :]
    return None


def capture_metavar(node: cst.CSTNode) -> str | None:
    """The name (without `$`) if `node` is a case pattern that is a lone `$NAME`.

    Python reads `case $P:` as a capture pattern; it stands for any pattern.
    """
    if isinstance(node, cst.MatchAs) and node.pattern is None and node.name is not None:
        return metavar_name(node.name)
    return None


def _sequence_name(node: cst.CSTNode | None) -> str | None:
    if isinstance(node, cst.Name) and node.value.startswith(SEQUENCE_PREFIX):
        return node.value[len(SEQUENCE_PREFIX) :]
    return None


def _bare_ellipsis(node: cst.CSTNode) -> bool:
    return isinstance(node, cst.Ellipsis) and not node.lpar


def wildcard_key(item: cst.CSTNode) -> str | None:
    """The binding key if `item` is a sequence wildcard: its name, or "" when anonymous.

    Items are arguments, parameters, elements, decorators and statement units.
    """
    value: cst.CSTNode | None = None
    if isinstance(item, cst.Arg):
        if item.keyword is None and item.star == "":
            value = item.value
        elif item.keyword is None and item.star == "*":  # spelled `*name` after keywords
            return _sequence_name(item.value)
    elif isinstance(item, cst.Param):
        name = _sequence_name(item.name)
        plain = item.annotation is None and item.star in ("", cst.MaybeSentinel.DEFAULT)
        placeholder = item.default is None or _sequence_name(item.default) == ""
        return name if name is not None and plain and placeholder else None
    elif isinstance(item, (cst.Element, cst.Expr)) and not isinstance(item, cst.StarredElement):
        value = item.value
    elif isinstance(item, cst.StarredDictElement):
        return _sequence_name(item.value)
    elif isinstance(item, cst.Decorator):
        value = item.decorator
    elif isinstance(item, cst.MatchSequenceElement):  # `case [x, $$$REST]:`
        pattern = item.value
        if isinstance(pattern, cst.MatchAs) and pattern.pattern is None:
            return _sequence_name(pattern.name)
        return None
    if value is None:
        return None
    if _bare_ellipsis(value):
        return ""
    return _sequence_name(value)


def display(text: str) -> str:
    """Reserved identifiers back to `$NAME` / `$$$NAME`, for messages."""
    text = text.replace(f"={_SEQUENCE_DEFAULT}", "")
    text = re.sub(rf"\*{{1,2}}{SEQUENCE_PREFIX}(?!\w)", "...", text)
    text = re.sub(rf"\*{{1,2}}{SEQUENCE_PREFIX}", "$$$", text)
    return text.replace(SEQUENCE_PREFIX, "$$$").replace(METAVAR_PREFIX, "$")


class _Scan:
    """Names, wildcards and misplaced metavariables in a parsed pattern."""

    def __init__(self) -> None:
        self.metavars: set[str] = set()
        self.sequences: set[str] = set()
        self.ellipses = 0
        self.misplaced = ""

    def visit(self, node: cst.CSTNode, parent: cst.CSTNode | None) -> None:
        key = wildcard_key(node)
        if key == "":
            self.ellipses += 1
        elif key is not None:
            self.sequences.add(key)
        elif isinstance(node, cst.Ellipsis) and not _in_subscript(parent):
            self.ellipses += 1  # a `...` out of a wildcard's place: replace must not hold one
        name = metavar_name(node)
        if name is not None and name != "clause":
            self.metavars.add(name)
            if parent is not None and _names_a_non_expression(parent, node):
                self.misplaced = self.misplaced or f"${name}"
        for child in node.children:
            self.visit(child, node)


def _in_subscript(parent: cst.CSTNode | None) -> bool:
    return isinstance(parent, (cst.Index, cst.SubscriptElement))


def _names_a_non_expression(parent: cst.CSTNode, child: cst.CSTNode) -> bool:
    if isinstance(parent, cst.Attribute):
        return parent.attr is child
    if isinstance(parent, (cst.FunctionDef, cst.ClassDef, cst.Param)):
        return parent.name is child
    if isinstance(parent, cst.Arg):
        return parent.keyword is child
    return isinstance(parent, (cst.ImportAlias, cst.AsName, cst.NameItem))


def _open_nodes(root: cst.CSTNode, header_only: bool) -> Iterator[int]:
    """Nodes whose unwritten decorators (any def or class) or else-branch match anything.

    `def f(x=1):` must find f even when it is decorated, and a header-only
    `if $C:` finds the `if` whether or not it has an `else`.
    """
    if isinstance(root, (cst.FunctionDef, cst.ClassDef)) and not root.decorators:
        yield id(root)
    if header_only and _has_implicit_body(root):
        yield id(root)
    for child in root.children:
        yield from _open_nodes(child, header_only)


def _has_implicit_body(node: cst.CSTNode) -> bool:
    body = getattr(node, "body", None)
    if not isinstance(body, cst.IndentedBlock) or len(body.body) != 1:
        return False
    line = body.body[0]
    return (
        isinstance(line, cst.SimpleStatementLine)
        and len(line.body) == 1
        and wildcard_key(line.body[0]) == HEADER_BODY
    )
