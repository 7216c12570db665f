"""The smallest splices that turn a match of `find` into `replace`.

`find` matched the target node by node (`matching.Pairs`), so wherever
`replace` has the same code as `find`, the target's own text is kept: only the
sub-nodes where `replace` differs are rewritten, each from its own span. A
metavariable or wildcard that stays where it was is not touched at all (its
comments, line breaks and parentheses stay byte for byte); one that moves is
re-emitted from the original nodes, which libcst renders as they were written.
Where `replace` differs in shape (a node of another type, a changed number of
items that cannot be added or removed in place), the smallest enclosing node
is rendered whole instead.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import libcst as cst
from libcst._nodes.internal import CodegenState

from guardcheck.edit.matching import (
    Bindings,
    Pairs,
    compared_fields,
    flat_parameters,
    is_open,
    run_key,
    same,
    units,
)
from guardcheck.edit.parsed import ParsedModule
from guardcheck.edit.pattern import Pattern, capture_metavar, metavar_name
from guardcheck.edit.substitute import needs_parens, parenthesize, substitute
from guardcheck.splices import Splice

_OPERATORS = (cst.BaseBinaryOp, cst.BaseBooleanOp, cst.BaseCompOp, cst.BaseUnaryOp, cst.BaseAugOp)
_STATEMENTS = (
    cst.BaseCompoundStatement,
    cst.BaseSmallStatement,
    cst.ExceptHandler,
    cst.Else,
    cst.Finally,
    cst.MatchCase,
)
_LITERALS = (cst.SimpleString, cst.Integer, cst.Float, cst.Imaginary, cst.FormattedString)


class Reshape(Exception):
    """`replace` cannot be spliced item by item here: the caller renders the match whole."""


@dataclass(frozen=True)
class Rewriter:
    parsed: ParsedModule
    find: Pattern
    replace: Pattern
    bindings: Bindings
    pairs: Pairs

    # --- nodes ---------------------------------------------------------------------------

    def diff(self, f: cst.CSTNode, r: cst.CSTNode, t: cst.CSTNode) -> list[Splice]:
        """Splices turning target `t` (matched by `f`) into `r`."""
        if same(f, r):
            return []
        if (
            metavar_name(f) is not None
            or metavar_name(r) is not None
            or capture_metavar(f) is not None
            or capture_metavar(r) is not None
            or type(f) is not type(r)
            or isinstance(f, _LITERALS)
            or type(t) is not type(f)
        ):
            return self.replace_node(t, r)
        if isinstance(f, cst.BaseSuite):
            return self._diff_fields(f, r, t)  # a suite is never rendered alone: its owner is
        try:
            return self._diff_fields(f, r, t)
        except Reshape:
            return self.replace_node(t, r)

    def _diff_fields(self, f: cst.CSTNode, r: cst.CSTNode, t: cst.CSTNode) -> list[Splice]:
        if isinstance(f, cst.Parameters):
            return self.items(
                flat_parameters(f),
                flat_parameters(r),
                flat_parameters(t),  # type: ignore[arg-type]
            )
        if isinstance(f, cst.BaseSuite):
            return self.statements(units(f.body), units(r.body))  # type: ignore[attr-defined]
        splices: list[Splice] = []
        for name in compared_fields(type(f)):
            fv, rv, tv = getattr(f, name), getattr(r, name), getattr(t, name)
            f_open, r_open = is_open(f, name, self.find.open), is_open(r, name, self.replace.open)
            if f_open and r_open:
                continue
            if name == "decorators" and f_open:
                splices += self._add_decorators(rv, t)
            elif name == "decorators":
                # Decorators `find` names and `replace` leaves out are removed, not kept.
                splices += self.lines(list(fv), list(rv), list(tv))
            elif f_open or r_open:
                raise Reshape  # `replace` writes out what `find` left open, or vice versa
            elif name == "guard" and isinstance(t, cst.MatchCase) and (fv is None) != (rv is None):
                splices += self._guard(t, rv)
            elif isinstance(fv, cst.CSTNode) and isinstance(rv, cst.CSTNode):
                matched = self.pairs.get(id(fv))
                if matched is None:
                    raise Reshape
                splices += self.diff(fv, rv, matched)
            elif isinstance(fv, tuple) and isinstance(rv, tuple):
                splices += self.items(list(fv), list(rv), list(tv))
            elif not same_value(fv, rv):
                raise Reshape
        return splices

    def _guard(self, t: cst.MatchCase, guard: cst.BaseExpression | None) -> list[Splice]:
        """A case's guard added or removed; the header's pattern, comment and body stay.

        Between the pattern and the colon there are only parentheses (positions leave
        them out), white space, and the guard: ` if GUARD`.
        """
        source = self.parsed.source
        pattern_end = self.extent(t.pattern)[1]
        if guard is None:
            assert t.guard is not None
            guard_start, guard_end = self.extent(t.guard)
            keyword = source.rfind("if", pattern_end, guard_start)
            start = pattern_end + len(source[pattern_end:keyword].rstrip())
            return [Splice(start, source.index(":", guard_end), "")]
        colon = source.index(":", pattern_end)
        code = self.parsed.module.code_for_node(substitute(guard, self.bindings, self.restate))
        return [Splice(colon, colon, f" if {code}")]

    def replace_node(self, t: cst.CSTNode, r: cst.CSTNode) -> list[Splice]:
        """`t`'s own span rewritten as `r`, bound code filled in."""
        new = substitute(r, self.bindings, self.restate)
        if isinstance(t, cst.BaseExpression) and isinstance(new, cst.BaseExpression):
            # The target's parentheses lie outside its span and stay: do not add a second pair;
            # without any, the new code may need some to group as it did in `replace`.
            if t.lpar:
                new = new.with_changes(lpar=(), rpar=())
            else:
                parent = self.parsed.parents.get(id(t))
                if parent is not None and needs_parens(new, parent, field_of(parent, t)):
                    new = parenthesize(new)
        elif isinstance(t, cst.MatchPattern) and isinstance(new, cst.MatchPattern) and t.lpar:
            new = new.with_changes(lpar=(), rpar=())  # a case pattern's parentheses, likewise
        if isinstance(t, _OPERATORS):
            # An operator's span is its token; the spaces around it stay as they are.
            new = new.with_changes(
                **{
                    name: cst.SimpleWhitespace("")
                    for name in ("whitespace_before", "whitespace_after")
                    if hasattr(new, name)
                }
            )
        start, end = self.extent(t)
        decorated = isinstance(t, (cst.FunctionDef, cst.ClassDef)) and t.decorators
        if decorated and not is_open(r, "decorators", self.replace.open):
            start = self.extent(t.decorators[0])[0]  # `replace` says which decorators stay
        # A `case` is indented one level into its `match`, unlike other clauses.
        owner = t if isinstance(t, cst.MatchCase) else self.parsed.statement_of(t)
        indent = self.parsed.indent_of(owner)
        text = render(self.parsed.module, [new], indent)
        if isinstance(t, _STATEMENTS):
            text = text.strip("\r\n")
            text = text[len(indent) :] if text.startswith(indent) else text
            parent = self.parsed.parents.get(id(t))
            if isinstance(parent, cst.If) and parent.orelse is t and text.startswith("if"):
                text = "el" + text  # an `elif` renders as `if` on its own
        return [Splice(start, end, text)]

    # --- sequences of comma-separated items ------------------------------------------------

    def segment(self, f_item: cst.CSTNode) -> tuple[cst.CSTNode, ...]:
        """The target items one pattern item matched."""
        key = run_key(f_item)
        if key is not None:
            bound = self.bindings.get(key, ())
            assert isinstance(bound, tuple)
            return bound
        matched = self.pairs.get(id(f_item))
        if matched is None:
            raise Reshape
        return (matched,)

    def items(
        self, f: list[cst.CSTNode], r: list[cst.CSTNode], t: list[cst.CSTNode]
    ) -> list[Splice]:
        """Arguments, parameters or elements: changed ones in place, others added or removed."""
        if len(f) == len(r):
            return self._pairwise(f, r)
        kept = self._kept(f, r)
        splices: list[Splice] = []
        for fi, item in enumerate(f):
            if fi not in kept.values():
                splices += self._delete_items(self.segment(item), t)
        for ri, item in enumerate(r):
            if ri in kept:
                continue
            splices.append(self._insert_item(item, ri, kept, f, t))
        return splices

    def _pairwise(
        self,
        f: Sequence[cst.CSTNode],
        r: Sequence[cst.CSTNode],
        replace_run: Callable[[Sequence[cst.CSTNode], cst.CSTNode], list[Splice]] | None = None,
    ) -> list[Splice]:
        """Item i of `find` becomes item i of `replace`; a wildcard's run as a whole."""
        splices: list[Splice] = []
        for fi, ri in zip(f, r, strict=True):
            if run_key(fi) is None and run_key(ri) is None:
                [ti] = self.segment(fi)
                splices += self.diff(fi, ri, ti)
            elif not same(fi, ri):
                splices += (replace_run or self._replace_run)(self.segment(fi), ri)
        return splices

    def _kept(self, f: Sequence[cst.CSTNode], r: Sequence[cst.CSTNode]) -> dict[int, int]:
        """replace index -> find index of the items `replace` keeps unchanged, in order."""
        kept: dict[int, int] = {}
        fi = 0
        for ri, item in enumerate(r):
            for probe in range(fi, len(f)):
                if same(f[probe], item):
                    kept[ri] = probe
                    fi = probe + 1
                    break
        return kept

    def _replace_run(self, run: Sequence[cst.CSTNode], r: cst.CSTNode) -> list[Splice]:
        if not run:
            raise Reshape
        start, end = self.extent(run[0])[0], self.extent(run[-1])[1]
        return [Splice(start, end, self.item_text(r))]

    def _delete_items(self, run: Sequence[cst.CSTNode], t: list[cst.CSTNode]) -> list[Splice]:
        if not run:
            return []
        first, last = _index(t, run[0]), _index(t, run[-1])
        if last + 1 < len(t):
            return [Splice(self.extent(t[first])[0], self.extent(t[last + 1])[0], "")]
        if first > 0:
            return [Splice(self.extent(t[first - 1])[1], self.extent(t[last])[1], "")]
        raise Reshape  # every item goes: let the enclosing node be rendered

    def _insert_item(
        self,
        item: cst.CSTNode,
        ri: int,
        kept: dict[int, int],
        f: Sequence[cst.CSTNode],
        t: Sequence[cst.CSTNode],
    ) -> Splice:
        text = self.item_text(item)
        after = [kept[k] for k in kept if k > ri]
        before = [kept[k] for k in kept if k < ri]
        for fi in after[:1]:
            anchor = self.segment(f[fi])
            if anchor:
                at = self.extent(anchor[0])[0]
                return Splice(at, at, text + ", ")
        for fi in before[-1:]:
            anchor = self.segment(f[fi])
            if anchor:
                at = self.extent(anchor[-1])[1]
                return Splice(at, at, ", " + text)
        raise Reshape

    def item_text(self, r: cst.CSTNode) -> str:
        """The text of one item of `replace`: a wildcard's original run, or rendered code."""
        key = run_key(r)
        if key is not None:
            run = self.bindings.get(key, ())
            assert isinstance(run, tuple)
            if not run:
                raise Reshape
            return self.parsed.source[self.extent(run[0])[0] : self.extent(run[-1])[1]]
        if hasattr(r, "comma"):
            r = r.with_changes(comma=cst.MaybeSentinel.DEFAULT)
        new = substitute(r, self.bindings, self.restate)
        return render(self.parsed.module, [new], "").strip()

    # --- lines: decorators and statements -----------------------------------------------------

    def lines(
        self, f: list[cst.CSTNode], r: list[cst.CSTNode], t: list[cst.CSTNode]
    ) -> list[Splice]:
        """Decorators: each on its own lines, so they are removed or added as lines."""
        if len(f) == len(r):
            return self._pairwise(f, r)
        kept = self._kept(f, r)
        splices = [
            self._delete_lines(self.segment(item))
            for fi, item in enumerate(f)
            if fi not in kept.values() and self.segment(item)
        ]
        for ri, item in enumerate(r):
            if ri not in kept:
                splices.append(self._insert_line(item, ri, kept, f))
        return splices

    def _delete_lines(self, run: Sequence[cst.CSTNode]) -> Splice:
        start, end = self.extent(run[0])[0], self.extent(run[-1])[1]
        return Splice(self._line_start(start), self._line_end(end), "")

    def _insert_line(
        self, item: cst.CSTNode, ri: int, kept: dict[int, int], f: Sequence[cst.CSTNode]
    ) -> Splice:
        following = [self.segment(f[kept[k]]) for k in kept if k > ri]
        anchor = next((run[0] for run in following if run), None)
        if anchor is None:
            raise Reshape
        return self._line_before(anchor, item)

    def _add_decorators(self, decorators: Sequence[cst.Decorator], t: cst.CSTNode) -> list[Splice]:
        """A decorator `replace` adds to a definition `find` left undecorated goes innermost."""
        return [self._line_before(t, decorator) for decorator in decorators]

    def _line_before(self, anchor: cst.CSTNode, item: cst.CSTNode) -> Splice:
        at = self._line_start(self.extent(anchor)[0])
        indent = self.parsed.source[at : self.extent(anchor)[0]]
        new = substitute(item, self.bindings, self.restate)
        text = render(self.parsed.module, [new], indent)
        if isinstance(item, cst.Decorator):
            text = indent + text.lstrip()
        return Splice(at, at, text)

    def statements(self, f: list[cst.CSTNode], r: list[cst.CSTNode]) -> list[Splice]:
        """A block's statement units: the same number, pairwise; otherwise rendered whole."""
        if len(f) == len(r):
            return self._pairwise(f, r, self._replace_statement_run)
        raise Reshape

    def _replace_statement_run(self, run: Sequence[cst.CSTNode], r: cst.CSTNode) -> list[Splice]:
        """A wildcard's statements rewritten as `r`: whole lines, or in place on a one-line body."""
        if not run:
            raise Reshape
        statements = self.restate(run)
        if any(not self._alone_on_line(unit) for unit in run):
            raise Reshape
        first = statements[0]
        indent = self.parsed.indent_of(first)
        moved = run_key(r) is not None
        # Code moved in brings the comments above it; code written in keeps the old ones.
        start = self._leading_start(first) if moved else self._line_start(self.extent(first)[0])
        end = self._line_end(self.extent(statements[-1])[1])
        if moved:
            new = self.restate(self.segment_of_replace(r))
            if not new:
                new = [cst.SimpleStatementLine([cst.Pass()])]
        else:
            new = [substitute(_as_statement(r), self.bindings, self.restate)]
        text = render(self.parsed.module, new, indent)
        if not text.startswith(indent):
            text = indent + text.lstrip(" \t")
        return [Splice(start, end, text)]

    def segment_of_replace(self, r: cst.CSTNode) -> tuple[cst.CSTNode, ...]:
        key = run_key(r)
        assert key is not None
        bound = self.bindings.get(key, ())
        assert isinstance(bound, tuple)
        return bound

    def restate(self, run: Sequence[cst.CSTNode]) -> list[cst.BaseStatement]:
        """Units back as whole statements; a line whose units all moved stays as written."""
        statements: list[cst.BaseStatement] = []
        index = 0
        while index < len(run):
            unit = run[index]
            line = self.parsed.parents.get(id(unit))
            if isinstance(unit, cst.BaseCompoundStatement):
                statements.append(unit)
                index += 1
            elif isinstance(line, cst.SimpleStatementLine) and tuple(
                run[index : index + len(line.body)]
            ) == tuple(line.body):
                statements.append(line)
                index += len(line.body)
            else:
                statements.append(cst.SimpleStatementLine([unit]))  # type: ignore[list-item]
                index += 1
        return statements

    def _alone_on_line(self, unit: cst.CSTNode) -> bool:
        if isinstance(unit, cst.BaseCompoundStatement):
            return True
        line = self.parsed.parents.get(id(unit))
        return isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1

    # --- offsets ---------------------------------------------------------------------------

    def extent(self, node: cst.CSTNode) -> tuple[int, int]:
        """Original offsets of `node`'s code (a parameter's span stops at its name in libcst)."""
        position = self.parsed.positions[node]
        start, end = self.parsed.offset(position.start), self.parsed.offset(position.end)
        if isinstance(node, cst.Param):
            for part in (node.annotation, node.default):
                if part is not None:
                    end = max(end, self.extent(part)[1])
        return start, end

    def _line_start(self, offset: int) -> int:
        return self.parsed.source.rfind("\n", 0, offset) + 1

    def _line_end(self, offset: int) -> int:
        newline = self.parsed.source.find("\n", offset)
        return len(self.parsed.source) if newline < 0 else newline + 1

    def _leading_start(self, statement: cst.CSTNode) -> int:
        start = self._line_start(self.extent(statement)[0])
        for _ in getattr(statement, "leading_lines", ()):
            start = self._line_start(max(start - 1, 0))
        return start


def same_value(a: object, b: object) -> bool:
    if isinstance(a, cst.CSTNode) and isinstance(b, cst.CSTNode):
        return same(a, b)
    return a == b


def _as_statement(unit: cst.CSTNode) -> cst.CSTNode:
    if isinstance(unit, cst.BaseSmallStatement):
        return cst.SimpleStatementLine([unit])
    return unit


def _index(items: Sequence[cst.CSTNode], item: cst.CSTNode) -> int:
    return next(i for i, candidate in enumerate(items) if candidate is item)


def field_of(parent: cst.CSTNode, child: cst.CSTNode) -> str:
    for name in parent.__dataclass_fields__:
        value = getattr(parent, name, None)
        if value is child or (isinstance(value, (tuple, list)) and any(v is child for v in value)):
            return name
    return ""


def render(module: cst.Module, nodes: Sequence[cst.CSTNode], indent: str) -> str:
    """libcst's code for `nodes` as if they sat in a block indented by `indent`.

    Module.code_for_node renders at column 0, which would misplace the continuation
    lines and nested blocks of code moved into an indented block. CodegenState is
    libcst-internal; libcst is pinned exactly in pyproject.toml.
    """
    state = CodegenState(
        default_indent=module.default_indent, default_newline=module.default_newline
    )
    if indent:
        state.increase_indent(indent)
    for node in nodes:
        node._codegen(state)
    return "".join(state.tokens)


def merge(source: str, splices: Sequence[Splice]) -> Splice | None:
    """One splice covering all of them (the text between them kept), or None if none.

    Raises Reshape if two overlap (the pieces disagree on a region).
    """
    ordered = sorted(splices, key=lambda s: (s.start, s.end))
    if not ordered:
        return None
    pieces: list[str] = []
    at = ordered[0].start
    for splice in ordered:
        if splice.start < at:
            raise Reshape
        pieces += [source[at : splice.start], splice.replacement]
        at = splice.end
    return Splice(ordered[0].start, at, "".join(pieces))
