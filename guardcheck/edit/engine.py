"""Apply one catalogue edit to one module's source, structurally (libcst).

`apply_edit` finds the places `find` matches inside `scope`, insists on
exactly one (or the chosen `occurrence`), and splices the new code into the
original text at that place (like cargo-mutants): every other byte is kept,
and only the replacement is rendered by libcst.
Every way an edit can fail is an `EditFailure` with a kind, a message naming
the file and scope searched, a fix and detail lines; `mutate` turns those into
catalogue problems.
"""

from __future__ import annotations

import difflib
import importlib
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

import libcst as cst
from libcst._nodes.internal import CodegenState
from libcst.metadata import CodeRange, MetadataWrapper

from guardcheck.edit.parsed import ParsedModule, Range, parse_source
from guardcheck.edit.pattern import (
    Bindings,
    Pattern,
    PatternError,
    display,
    match,
    match_statements,
    needs_parens,
    parenthesize,
    parse_pattern,
    substitute,
    unit_bounds,
    unit_count,
)
from guardcheck.model import Edit, Where
from guardcheck.splices import LineIndex, Splice, apply_splices, whole_text_splice

_SNIPPET_WIDTH = 80
_NEAREST = 3
_LISTED = 10  # matches listed in an ambiguous/occurrence error


class EditFailure(Exception):
    """An edit that cannot be applied.

    kind: "scope" (scope not found), "stale" (find matches nothing), "ambiguous"
    (several matches, no occurrence), "occurrence" (occurrence out of range),
    "pattern" (find/replace not parseable, or replace uses an unbound $VAR, or
    replace does not fit the match), "transform" (transform import/instantiate/run
    failed), "file" (the source itself does not parse).
    """

    def __init__(self, kind: str, message: str, fix: str, details: tuple[str, ...] = ()) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind = kind
        self.message = message
        self.fix = fix
        self.details = details


# --- the public entry point -------------------------------------------------------------------


class EditResult(NamedTuple):
    """One applied edit: the whole mutated module, where it matched, and the splice it made."""

    mutated: str
    region: Where  # the matched region, original coordinates (end_column one past the end)
    splice: Splice  # the text replaced, in the original's character offsets


def apply_edit(source: str, edit: Edit, *, root: Path | None = None) -> EditResult:
    """Apply one edit to a whole module's source.

    Where.path of the region is edit.file. `root` is put on sys.path while a
    `transform` is imported.
    """
    try:
        parsed = parse_source(source)
    except cst.ParserSyntaxError as exc:
        raise EditFailure(
            "file",
            f"{edit.file} is not valid Python: {str(exc).splitlines()[0]}",
            "fix the syntax error in the target file",
        ) from exc
    context = _Context(edit, parsed, _resolve_scope(parsed, edit))
    if edit.transform:
        if edit.find.strip():
            raise EditFailure(
                "pattern",
                f"edit of {edit.file} has both `find` and `transform`",
                "keep `find`/`replace` or `transform`, not both",
            )
        return _apply_transform(context, edit.transform, root)
    find, replace = _parse_patterns(edit)
    chosen = _choose(context, _find_matches(context, find))
    splice, region = _rewrite(context, chosen, replace)
    return EditResult(apply_splices(source, [splice]), _where(edit.file, region), splice)


@dataclass(frozen=True)
class _Context:
    edit: Edit
    parsed: ParsedModule
    scopes: tuple[Range, ...]  # the module, or every def/class with the scope's name

    @property
    def searched(self) -> str:
        scope = f" (scope {self.edit.scope})" if self.edit.scope else ""
        return f"{self.edit.file}{scope}"

    def snippet_at(self, node: cst.CSTNode) -> str:
        return f"{self.edit.file}:{self.parsed.line_of(node)} {_snippet(self.parsed, node)}"


def _span(parsed: ParsedModule, first: cst.CSTNode, last: cst.CSTNode) -> CodeRange:
    return CodeRange(parsed.positions[first].start, parsed.positions[last].end)


def _where(path: str, region: CodeRange) -> Where:
    return Where(
        path=path,
        line=region.start.line,
        column=region.start.column + 1,
        end_line=region.end.line,
        end_column=region.end.column + 1,
    )


def _snippet(parsed: ParsedModule, node: cst.CSTNode) -> str:
    if isinstance(node, cst.BaseExpression):
        text = parsed.module.code_for_node(node)
    else:  # a statement: its first line (the code, without the comments above it)
        text = parsed.source.splitlines()[parsed.line_of(node) - 1]
    text = " ".join(text.split())
    return text if len(text) <= _SNIPPET_WIDTH else text[: _SNIPPET_WIDTH - 3] + "..."


# --- scope ------------------------------------------------------------------------------------


def _resolve_scope(parsed: ParsedModule, edit: Edit) -> tuple[Range, ...]:
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


# --- finding ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Match:
    """One place `find` matched: an expression, or statements block.body[start:end]."""

    node: cst.CSTNode  # the expression, or the first statement
    bindings: Bindings
    block: cst.Module | cst.IndentedBlock | None = None
    start: int = 0
    end: int = 0


def _parse_patterns(edit: Edit) -> tuple[Pattern, Pattern]:
    try:
        find = _cached_pattern(edit.find, "find")
        replace = _cached_pattern(edit.replace, "replace")
    except PatternError as exc:
        raise EditFailure(
            "pattern", f"{exc} (editing {edit.file})", "write `find`/`replace` as Python source"
        ) from exc
    if find.kind == "empty":
        raise EditFailure(
            "pattern", f"`find` is empty (editing {edit.file})", "give the code to mutate"
        )
    unbound = sorted(replace.metavars - find.metavars)
    if unbound:
        names = ", ".join(f"${name}" for name in unbound)
        raise EditFailure(
            "pattern",
            f"`replace` uses {names}, which `find` does not bind (editing {edit.file})",
            "use only metavariables that appear in `find`",
        )
    return find, replace


@lru_cache(maxsize=256)
def _cached_pattern(text: str, what: str) -> Pattern:
    return parse_pattern(text, what)


def _find_matches(context: _Context, find: Pattern) -> list[_Match]:
    if find.kind == "expression":
        matches = _expression_matches(context, find.expression)
    else:
        matches = _statement_matches(context, find.statements)
    positions = context.parsed.positions
    # Source order; an enclosing match before the matches nested in it.
    matches.sort(key=lambda m: (positions[m.node].start.line, positions[m.node].start.column))
    if not matches:
        raise _stale(context, find)
    return matches


def _expression_matches(context: _Context, pattern: cst.BaseExpression) -> list[_Match]:
    found = []
    for node in context.parsed.expressions(context.scopes):
        bindings: Bindings = {}
        if match(pattern, node, bindings):
            found.append(_Match(node, bindings))
    return found


def _statement_matches(context: _Context, pattern: Sequence[cst.BaseStatement]) -> list[_Match]:
    found = []
    least, most = unit_bounds(pattern)
    for block in context.parsed.blocks(context.scopes):
        body = block.body
        counts = [unit_count(statement) for statement in body]
        for start in range(len(body)):
            units = 0
            # The shortest run that matches: a trailing `...` must not swallow the block.
            for end in range(start + 1, len(body) + 1):
                units += counts[end - 1]
                if most is not None and units > most:
                    break
                bindings: Bindings = {}
                if units >= least and match_statements(pattern, body[start:end], bindings):
                    found.append(_Match(body[start], bindings, block, start, end))
                    break
    return found


def _choose(context: _Context, matches: list[_Match]) -> _Match:
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


def _stale(context: _Context, find: Pattern) -> EditFailure:
    return EditFailure(
        "stale",
        f"`find` matches nothing in {context.searched}",
        "update `find` to today's code, or delete the entry if the bug is gone for good",
        tuple(f"nearest: {context.snippet_at(node)}" for node in _nearest(context, find))
        or ("nearest: nothing of that kind in scope",),
    )


def _nearest(context: _Context, find: Pattern) -> list[cst.CSTNode]:
    """Nodes in scope most like `find`: same node type first, ranked by textual similarity."""
    candidates: list[cst.CSTNode]
    if find.kind == "expression":
        candidates = list(context.parsed.expressions(context.scopes))
        wanted: type = type(find.expression)
    else:
        candidates = [s for block in context.parsed.blocks(context.scopes) for s in block.body]
        wanted = _statement_type(find.statements[0])
    same = [c for c in candidates if _statement_type(c) is wanted or type(c) is wanted]
    pool = same or candidates
    target = " ".join(display(find.text).split())

    def similarity(node: cst.CSTNode) -> float:
        text = " ".join(context.parsed.module.code_for_node(node).split())
        return difflib.SequenceMatcher(None, target, text).ratio()

    return sorted(pool, key=similarity, reverse=True)[:_NEAREST]


def _statement_type(node: cst.CSTNode) -> type:
    if isinstance(node, cst.SimpleStatementLine) and node.body:
        return type(node.body[0])
    return type(node)


# --- rewriting ----------------------------------------------------------------------------


def _rewrite(context: _Context, chosen: _Match, replace: Pattern) -> tuple[Splice, CodeRange]:
    """The splice that rewrites only the matched region, and that region."""
    parsed = context.parsed
    if chosen.block is None:
        if replace.kind == "expression":
            return _replace_expression(parsed, chosen, replace)
        chosen = _as_statement(context, chosen, replace)
    return _replace_statements(parsed, chosen, replace)


def _replace_expression(
    parsed: ParsedModule, chosen: _Match, replace: Pattern
) -> tuple[Splice, CodeRange]:
    old = chosen.node
    assert isinstance(old, cst.BaseExpression)
    new = substitute(replace.expression, chosen.bindings)
    # The match's own parentheses lie outside its span (PositionProvider), so they stay;
    # without them the new code may need some to group as it did in `replace`.
    parent = parsed.parents[id(old)]
    if not old.lpar and needs_parens(new, parent, _field_of(parent, old)):
        new = parenthesize(new)
    region = parsed.positions[old]
    indent = parsed.indent_of(parsed.statement_of(old))
    text = _render(parsed.module, [new], indent)
    return Splice(parsed.offset(region.start), parsed.offset(region.end), text), region


def _replace_statements(
    parsed: ParsedModule, chosen: _Match, replace: Pattern
) -> tuple[Splice, CodeRange]:
    """Splice whole lines: from the first statement's indentation to the last one's newline.

    The comments and blank lines above the first statement are outside the splice, so
    they stay; a trailing comment on the last line goes with its statement.
    """
    assert chosen.block is not None
    body = chosen.block.body
    first, last = body[chosen.start], body[chosen.end - 1]
    region = _span(parsed, first, last)
    indent = parsed.indent_of(first)
    source = parsed.source
    begin = parsed.offset(region.start) - len(indent)
    newline = source.find("\n", parsed.offset(region.end))
    stop = len(source) if newline < 0 else newline + 1
    new = [substitute(statement, chosen.bindings) for statement in replace.statements]
    emptied = (
        not new
        and isinstance(chosen.block, cst.IndentedBlock)
        and len(body) == (chosen.end - chosen.start)
    )
    if emptied:  # a block cannot be empty
        new = [cst.SimpleStatementLine([cst.Pass()])]
    text = _render(parsed.module, new, indent)
    if newline < 0:  # the file has no final newline: keep it that way
        text = text.rstrip("\r\n")
    return Splice(begin, stop, text), region


def _render(module: cst.Module, nodes: Sequence[cst.CSTNode], indent: str) -> str:
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


def _field_of(parent: cst.CSTNode, child: cst.CSTNode) -> str:
    for name in parent.__dataclass_fields__:
        value = getattr(parent, name, None)
        if value is child or (isinstance(value, (tuple, list)) and any(v is child for v in value)):
            return name
    return ""


def _as_statement(context: _Context, chosen: _Match, replace: Pattern) -> _Match:
    """An expression match that is a whole statement (`call(...)`), for statement replaces."""
    parents = context.parsed.parents
    expr = parents.get(id(chosen.node))
    line = parents.get(id(expr)) if expr is not None else None
    block = parents.get(id(line)) if line is not None else None
    if (
        isinstance(expr, cst.Expr)
        and isinstance(line, cst.SimpleStatementLine)
        and len(line.body) == 1
        and isinstance(block, (cst.Module, cst.IndentedBlock))
    ):
        index = next(i for i, s in enumerate(block.body) if s is line)
        return _Match(line, chosen.bindings, block, index, index + 1)
    where = f"{context.edit.file}:{context.parsed.line_of(chosen.node)}"
    action = "delete" if replace.kind == "empty" else "replace with statements"
    raise EditFailure(
        "pattern",
        f"`find` matched an expression inside a larger statement at {where}; "
        f"cannot {action} part of an expression",
        "make `replace` an expression, or make `find` the whole statement",
    )


# --- the transform escape hatch ---------------------------------------------------------


def _apply_transform(context: _Context, spec: str, root: Path | None) -> EditResult:
    transformer = _load_transformer(spec, context.edit.file, root)
    module = context.parsed.module
    try:
        if context.edit.scope:
            if transformer.get_inherited_dependencies():
                raise EditFailure(
                    "transform",
                    f"transform {spec} needs metadata, which cannot be limited to "
                    f"scope {context.edit.scope} (editing {context.edit.file})",
                    "drop `scope` and restrict the transformer itself",
                )
            for start, _end in context.scopes:
                node = context.parsed.nodes[start]
                module = module.deep_replace(node, node.visit(transformer))
        elif transformer.get_inherited_dependencies():
            module = MetadataWrapper(module).visit(transformer)
        else:
            module = module.visit(transformer)
        mutated = module.code
    except EditFailure:
        raise
    except Exception as exc:
        raise EditFailure(
            "transform",
            f"transform {spec} failed on {context.searched}: {type(exc).__name__}: {exc}",
            "fix the transformer (it is run on the whole module, or on each scope node)",
        ) from exc
    # A transformer rewrites the tree, not a span: the splice is what its output changed.
    splice = whole_text_splice(context.parsed.source, mutated)
    return EditResult(mutated, _region_of(context.edit.file, context.parsed, splice), splice)


def _load_transformer(spec: str, file: str, root: Path | None) -> cst.CSTTransformer:
    module_name, _, class_name = spec.partition(":")
    fix = "set `transform` to 'package.module:ClassName', a libcst.CSTTransformer with no args"
    if not module_name or not class_name:
        raise EditFailure("transform", f"transform {spec!r} is not 'module:ClassName'", fix)
    try:
        with _on_sys_path(root):
            module = importlib.import_module(module_name)
        factory = getattr(module, class_name)
        transformer = factory()
    except Exception as exc:
        raise EditFailure(
            "transform",
            f"cannot load transform {spec} (editing {file}): {type(exc).__name__}: {exc}",
            fix,
        ) from exc
    if not isinstance(transformer, cst.CSTTransformer):
        raise EditFailure(
            "transform",
            f"transform {spec} is a {type(transformer).__name__}, not a libcst.CSTTransformer",
            fix,
        )
    return transformer


@contextmanager
def _on_sys_path(root: Path | None) -> Iterator[None]:
    entry = str(root) if root is not None else None
    if entry is None or entry in sys.path:
        yield
        return
    sys.path.insert(0, entry)
    try:
        yield
    finally:
        sys.path.remove(entry)


def _region_of(path: str, parsed: ParsedModule, splice: Splice) -> Where:
    """The original lines a splice covers (line 1 when it changes nothing)."""
    if splice.start == splice.end and not splice.replacement:
        return Where(path=path, line=1)
    lines = LineIndex(parsed.source)
    line = lines.line_of(splice.start)
    return Where(path=path, line=line, end_line=max(lines.line_of(max(splice.end - 1, 0)), line))
