"""Apply one catalogue edit to one module's source, structurally (libcst).

`apply_edit` finds the places `find` matches inside `scope` (`finding`),
insists on exactly one (or the chosen `occurrence`), and splices into the
original text only what `replace` changes there (`rewrite`), like
cargo-mutants: every other byte is kept. Every way an edit can fail is an
`EditFailure` with a kind, a message naming the file and scope searched, a fix
and detail lines; `mutate` turns those into catalogue problems.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

import libcst as cst
from libcst.metadata import CodeRange

from guardcheck.edit.context import Context, EditFailure
from guardcheck.edit.finding import Match, choose, find_matches, resolve_scope
from guardcheck.edit.matching import units
from guardcheck.edit.parsed import ParsedModule, parse_source
from guardcheck.edit.pattern import HEADER_BODY, Pattern, PatternError, parse_pattern
from guardcheck.edit.rewrite import Reshape, Rewriter, merge, render
from guardcheck.edit.substitute import substitute
from guardcheck.edit.transform import run_transform
from guardcheck.model import Edit, Where
from guardcheck.splices import BOM, LineIndex, Splice, apply_splices, whole_text_splice

__all__ = ["BOM", "EditFailure", "EditResult", "apply_edit"]


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
    if source.startswith(BOM):
        mutated, region, splice = apply_edit(source[1:], edit, root=root)
        shifted = Splice(splice.start + 1, splice.end + 1, splice.replacement)
        return EditResult(BOM + mutated, region, shifted)
    try:
        parsed = parse_source(source)
    except cst.ParserSyntaxError as exc:
        raise EditFailure(
            "file",
            f"{edit.file} is not valid Python: {str(exc).splitlines()[0]}",
            "fix the syntax error in the target file",
        ) from exc
    context = Context(edit, parsed, resolve_scope(parsed, edit))
    if edit.transform:
        if edit.find.strip():
            raise EditFailure(
                "pattern",
                f"edit of {edit.file} has both `find` and `transform`",
                "keep `find`/`replace` or `transform`, not both",
            )
        mutated = run_transform(context, edit.transform, root)
        # A transformer rewrites the tree, not a span: the splice is what its output changed.
        splice = whole_text_splice(source, mutated)
        return EditResult(mutated, _region_of(edit.file, parsed, splice), splice)
    find, replace = _parse_patterns(edit)
    chosen = choose(context, find_matches(context, find))
    splice, region = _rewrite(context, chosen, find, replace)
    return EditResult(apply_splices(source, [splice]), _where(edit.file, region), splice)


def _where(path: str, region: CodeRange) -> Where:
    return Where(
        path=path,
        line=region.start.line,
        column=region.start.column + 1,
        end_line=region.end.line,
        end_column=region.end.column + 1,
    )


# --- patterns ---------------------------------------------------------------------------------


def _parse_patterns(edit: Edit) -> tuple[Pattern, Pattern]:
    try:
        find = _cached_pattern(edit.find, "find")
        replace = _cached_pattern(edit.replace, "replace")
    except PatternError as exc:
        raise EditFailure("pattern", f"{exc} (editing {edit.file})", exc.fix) from exc

    def fail(message: str, fix: str) -> EditFailure:
        return EditFailure("pattern", f"{message} (editing {edit.file})", fix)

    if find.kind == "empty":
        raise fail("`find` is empty", "give the code to mutate")
    both = sorted(find.metavars & find.sequences)
    if both:
        raise fail(
            f"`find` uses ${both[0]} and $$${both[0]}: one name, two kinds of binding",
            "give the metavariable and the sequence wildcard different names",
        )
    if HEADER_BODY in replace.sequences and HEADER_BODY not in find.sequences:
        raise fail(
            "`replace` ends with a block header and no body, which would keep the body "
            "`find` matched, but `find` does not end with a header",
            "end `find` with the same kind of header, or bind the body with `$$$BODY` in both",
        )
    unbound = sorted(
        [f"${name}" for name in replace.metavars - find.metavars]
        + [f"$$${name}" for name in replace.sequences - find.sequences - {HEADER_BODY}]
    )
    if unbound:
        raise fail(
            f"`replace` uses {', '.join(unbound)}, which `find` does not bind",
            "use only metavariables and wildcards that appear in `find`",
        )
    if replace.ellipses and (find.ellipses or find.sequences):
        raise fail(
            "`...` in replace would replace the matched code with a literal `...` "
            "(in `replace` it does not stand for what `find`'s wildcard matched)",
            "name the wildcard in `find` and repeat the name in `replace` "
            "(`$$$BODY`, `$$$ARGS`, `$$$REST`); for a literal Ellipsis write `Ellipsis`",
        )
    if (find.kind == "clause") != (replace.kind == "clause") or (
        find.kind == "clause" and type(find.clause) is not type(replace.clause)
    ):
        raise fail(
            "`find` and `replace` must both be the same kind of clause "
            "(`elif`, `else`, `except`, `finally` or `case`)",
            "write `replace` as a clause of the kind `find` is",
        )
    return find, replace


@lru_cache(maxsize=256)
def _cached_pattern(text: str, what: str) -> Pattern:
    return parse_pattern(text, what)


# --- rewriting ----------------------------------------------------------------------------


def _rewrite(
    context: Context, chosen: Match, find: Pattern, replace: Pattern
) -> tuple[Splice, CodeRange]:
    """The splice that rewrites what `replace` changes in the match, and the matched region."""
    parsed = context.parsed
    rewriter = Rewriter(parsed, find, replace, chosen.bindings, chosen.pairs)
    if chosen.block is None:
        region = parsed.positions[chosen.node]
        if replace.kind in ("expression", "clause"):
            splices = rewriter.diff(find.top[0], replace.top[0], chosen.node)
            return _tight(parsed, splices, region), region
        chosen = _as_statement(context, chosen, replace)
        return _replace_statements(parsed, rewriter, chosen, replace)
    region = _span(parsed, chosen.block.body[chosen.start], chosen.block.body[chosen.end - 1])
    if replace.kind != "empty":
        try:
            splices = rewriter.statements(units(find.statements), units(replace.statements))
            return _tight(parsed, splices, region), region
        except Reshape:
            pass
    return _replace_statements(parsed, rewriter, chosen, replace)


def _tight(parsed: ParsedModule, splices: list[Splice], region: CodeRange) -> Splice:
    """The one splice covering the pieces (an empty one at the match when nothing changes)."""
    merged = merge(parsed.source, splices)
    if merged is None:
        at = parsed.offset(region.start)
        return Splice(at, at, "")
    return merged


def _span(parsed: ParsedModule, first: cst.CSTNode, last: cst.CSTNode) -> CodeRange:
    return CodeRange(parsed.positions[first].start, parsed.positions[last].end)


def _replace_statements(
    parsed: ParsedModule, rewriter: Rewriter, chosen: Match, replace: Pattern
) -> tuple[Splice, CodeRange]:
    """Splice whole lines: from the first statement's indentation to the last one's newline.

    The comments and blank lines above the first statement are outside the splice, so
    they stay; a trailing comment on the last line goes with its statement.
    """
    block = chosen.block
    assert block is not None
    body = block.body
    first, last = body[chosen.start], body[chosen.end - 1]
    region = _span(parsed, first, last)
    new = [substitute(s, chosen.bindings, rewriter.restate) for s in replace.statements]
    whole = len(body) == chosen.end - chosen.start
    if isinstance(block, cst.SimpleStatementSuite):
        return _replace_inline(parsed, chosen, new, whole), region
    indent = parsed.indent_of(first)
    source = parsed.source
    begin = parsed.offset(region.start) - len(indent)
    newline = source.find("\n", parsed.offset(region.end))
    stop = len(source) if newline < 0 else newline + 1
    if not new and whole and isinstance(block, cst.IndentedBlock):  # a block cannot be empty
        new = [cst.SimpleStatementLine([cst.Pass()])]
    text = render(parsed.module, new, indent)
    if newline < 0:  # the file has no final newline: keep it that way
        text = text.rstrip("\r\n")
    return Splice(begin, stop, text), region


def _replace_inline(
    parsed: ParsedModule, chosen: Match, new: list[cst.CSTNode], whole: bool
) -> Splice:
    """Statements of a one-line body (`if x: a; b`): rewritten on that line, `;`-separated."""
    block = chosen.block
    assert isinstance(block, cst.SimpleStatementSuite)
    body = block.body
    small = units(new)
    if any(not isinstance(unit, cst.BaseSmallStatement) for unit in small):
        raise EditFailure(
            "pattern",
            f"`replace` puts a block statement into the one-line body at "
            f"{chosen.node and parsed.line_of(chosen.node)}",
            "make `replace` simple statements, or make `find` the whole compound statement",
        )
    if not small and whole:
        small = [cst.Pass()]
    start = parsed.offset(parsed.positions[body[chosen.start]].start)
    end = parsed.offset(parsed.positions[body[chosen.end - 1]].end)
    if not small:  # delete some of the line's statements, with their separator
        if chosen.end < len(body):
            return Splice(start, parsed.offset(parsed.positions[body[chosen.end]].start), "")
        return Splice(parsed.offset(parsed.positions[body[chosen.start - 1]].end), end, "")
    pieces = [
        render(parsed.module, [unit.with_changes(semicolon=cst.MaybeSentinel.DEFAULT)], "")
        for unit in small
    ]
    return Splice(start, end, "; ".join(piece.strip() for piece in pieces))


def _as_statement(context: Context, chosen: Match, replace: Pattern) -> Match:
    """An expression match that is a whole statement (`call(...)`), for statement replaces."""
    parents = context.parsed.parents
    expr = parents.get(id(chosen.node))
    holder = parents.get(id(expr)) if expr is not None else None
    if isinstance(expr, cst.Expr) and isinstance(holder, cst.SimpleStatementSuite):
        index = next(i for i, s in enumerate(holder.body) if s is expr)
        return Match(expr, chosen.bindings, chosen.pairs, holder, index, index + 1)
    block = parents.get(id(holder)) if holder is not None else None
    if (
        isinstance(expr, cst.Expr)
        and isinstance(holder, cst.SimpleStatementLine)
        and len(holder.body) == 1
        and isinstance(block, (cst.Module, cst.IndentedBlock))
    ):
        index = next(i for i, s in enumerate(block.body) if s is holder)
        return Match(holder, chosen.bindings, chosen.pairs, block, index, index + 1)
    where = f"{context.edit.file}:{context.parsed.line_of(chosen.node)}"
    action = "delete" if replace.kind == "empty" else "replace with statements"
    raise EditFailure(
        "pattern",
        f"`find` matched an expression inside a larger statement at {where}; "
        f"cannot {action} part of an expression",
        "make `replace` an expression, or make `find` the whole statement",
    )


def _region_of(path: str, parsed: ParsedModule, splice: Splice) -> Where:
    """The original lines a splice covers (line 1 when it changes nothing)."""
    if splice.start == splice.end and not splice.replacement:
        return Where(path=path, line=1)
    lines = LineIndex(parsed.source)
    line = lines.line_of(splice.start)
    return Where(path=path, line=line, end_line=max(lines.line_of(max(splice.end - 1, 0)), line))
