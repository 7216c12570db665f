"""`--emit-catalogue`: surviving sweep mutants as ready-to-edit catalogue entries.

A survivor is a bug the tests would let through; once a person has named it,
it belongs in the catalogue. Each entry gets `file`, `scope`, `find`,
`replace` (and `occurrence` when `find` matches more than once in scope),
chosen so that guardcheck's own engine rebuilds exactly the sweep mutant:
every candidate pattern, from the changed expression outwards to its whole
statement, is applied with the engine and kept only when the result is the
mutant's text. The `id` and `summary` are placeholders that load as they
are (`todo-...`, "TODO: ...") for a person to replace.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import textwrap
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import libcst as cst

from guardcheck.catalogue.load import kebab_case
from guardcheck.edit.engine import EditFailure, apply_edit
from guardcheck.edit.parsed import ParsedModule, parse_source
from guardcheck.model import Edit, FileChange, Mutant
from guardcheck.splices import BOM, Splice, whole_text_splice

_MAX_OCCURRENCE = 50  # beyond this many look-alikes in one scope, try a wider pattern

HEADER = """\
# Surviving sweep mutants, as guardcheck catalogue entries.
# For each one you keep: give it a kebab-case `id` and a `summary` naming the real bug it
# restores, add the tests that must catch it as `killed_by`, and move it into a catalogue
# file. Until a test catches it, `guardcheck run` reports it as survived.
"""


@dataclass(frozen=True)
class _Found:
    find: str
    replace: str
    scope: str | None
    occurrence: int | None
    exact: bool = True  # False: the same program as the mutant, formatted differently


def emit_catalogue(mutants: Sequence[Mutant], root: Path) -> str:
    """TOML `[[mutation]]` entries for the mutants, in the order given.

    `root` is where the mutants' files live; each entry is verified against the
    text the mutant was made from. A mutant no pattern reproduces (or one with
    no effect on the program) is listed as a comment saying why.
    """
    del root  # the texts travel with the mutants; kept for symmetry with the engine's API
    blocks = [HEADER]
    taken: set[str] = set()
    indexes: dict[str, _Index | None] = {}
    for mutant in mutants:
        blocks.append(_entry(mutant, taken, indexes))
    return "\n".join(blocks)


def _entry(mutant: Mutant, taken: set[str], indexes: dict[str, _Index | None]) -> str:
    note = f"# {mutant.id} ({mutant.mutator})"
    if len(mutant.changes) != 1 or len(mutant.changes[0].splices) != 1:
        return f"{note}\n# not emitted: only single-splice sweep mutants can be\n"
    change = _without_bom(mutant.changes[0])
    if change.original not in indexes:
        indexes[change.original] = _Index.of(change.original)
    index = indexes[change.original]
    if _same_program(change, index.tree if index else None):
        return f"{note}\n# not emitted: the mutant compiles to the same program (equivalent)\n"
    found = None if index is None else _pattern(change, index)
    if found is None:
        return f"{note}\n# not emitted: no find/replace pattern rebuilds this mutant exactly\n"
    if not found.exact:
        note += "\n# the engine writes this mutant differently (same program)"
    lines = [
        note,
        "[[mutation]]",
        f"id = {_toml(_placeholder_id(mutant, taken))}",
        f"summary = {_toml(f'TODO: name the bug this restores ({mutant.summary})')}",
        f"file = {_toml(change.path)}",
    ]
    if found.scope:
        lines.append(f"scope = {_toml(found.scope)}")
    lines += [f"find = {_toml(found.find)}", f"replace = {_toml(found.replace)}"]
    if found.occurrence is not None:
        lines.append(f"occurrence = {found.occurrence}")
    lines.append(f"tags = {_toml_list(['sweep', mutant.mutator])}")
    return "\n".join(lines) + "\n"


def _without_bom(change: FileChange) -> FileChange:
    """The change to the text after a UTF-8 BOM: what libcst, ast and the patterns see.

    The engine keeps a BOM out of its work the same way, so a pattern found here
    rebuilds the mutant of the file with its BOM.
    """
    if not change.original.startswith(BOM):
        return change
    splices = tuple(
        Splice(s.start - len(BOM), s.end - len(BOM), s.replacement) for s in change.splices
    )
    return dataclasses.replace(
        change,
        original=change.original.removeprefix(BOM),
        mutated=change.mutated.removeprefix(BOM),
        splices=splices,
    )


def _placeholder_id(mutant: Mutant, taken: set[str]) -> str:
    span = mutant.span
    stem = Path(span.path).stem
    base = kebab_case(f"todo {stem} {span.line} {span.column} {mutant.mutator}") or "todo"
    chosen, number = base, 1
    while chosen in taken:
        number += 1
        chosen = f"{base}-{number}"
    taken.add(chosen)
    return chosen


def _same_program(change: FileChange, original_tree: ast.Module | None) -> bool:
    """Does the mutant leave the module's AST as it was (an equivalent mutant)?

    Only the top-level statement holding the splice is compared: the splice
    changes nothing outside it, and dumping whole modules per mutant is slow.
    """
    try:
        mutated_tree = ast.parse(change.mutated)
    except SyntaxError:
        return False  # an unviable mutant: the engine's own check reports it
    if original_tree is None or len(original_tree.body) != len(mutated_tree.body):
        return False
    line = change.original.count("\n", 0, change.splices[0].start) + 1
    for before, after in zip(original_tree.body, mutated_tree.body, strict=True):
        if before.lineno <= line <= (before.end_lineno or before.lineno):
            return ast.dump(before) == ast.dump(after)
    return False


# --- finding a pattern ----------------------------------------------------------------------


@dataclass(frozen=True)
class _Index:
    """One file's expressions and statements with their extents, and its scopes by node."""

    parsed: ParsedModule
    tree: ast.Module | None  # for telling equivalent mutants
    extents: tuple[tuple[int, int, cst.CSTNode], ...]  # pre-order: outer nodes first
    scopes: dict[int, str]  # id(node) -> innermost qualified name around it

    @classmethod
    def of(cls, source: str) -> _Index | None:
        try:
            parsed = parse_source(source)
        except cst.ParserSyntaxError:
            return None
        extents = []
        for node in parsed.nodes:
            if not isinstance(node, (cst.BaseExpression, cst.BaseStatement)):
                continue
            if id(node) in parsed.identifiers or node not in parsed.positions:
                continue  # `x.attr`, `def name`, `k=`: the engine does not match these alone
            position = parsed.positions[node]
            start, end = parsed.offset(position.start), parsed.offset(position.end)
            extents.append((*_with_parentheses(source, node, start, end), node))
        scopes: dict[int, str] = {}
        # Longer (more nested) names last, so they win for the nodes they hold.
        for name, ranges in sorted(parsed.scopes.items(), key=lambda item: item[0].count(".")):
            for start, end in ranges:
                for node in parsed.nodes[start + 1 : end]:
                    scopes[id(node)] = name
        try:
            tree: ast.Module | None = ast.parse(source)
        except SyntaxError:
            tree = None
        return cls(parsed, tree, tuple(extents), scopes)

    def around(self, low: int, high: int) -> Iterator[tuple[int, int, cst.CSTNode]]:
        """Expressions and statements holding [low, high), innermost first, up to a statement."""
        holding = [extent for extent in self.extents if extent[0] <= low and high <= extent[1]]
        for extent in reversed(holding):
            yield extent
            if isinstance(extent[2], cst.BaseStatement):
                return


def _with_parentheses(source: str, node: cst.CSTNode, start: int, end: int) -> tuple[int, int]:
    """The extent with the parentheses the node owns (PositionProvider leaves them out)."""
    lpar, rpar = getattr(node, "lpar", ()), getattr(node, "rpar", ())
    for _ in lpar if isinstance(lpar, Sequence) else ():
        before = len(source[:start].rstrip())
        if before == 0 or source[before - 1] != "(":
            break
        start = before - 1
    for _ in rpar if isinstance(rpar, Sequence) else ():
        after = end + len(source[end:]) - len(source[end:].lstrip())
        if after >= len(source) or source[after] != ")":
            break
        end = after + 1
    return start, end


def _pattern(change: FileChange, index: _Index) -> _Found | None:
    """The narrowest pattern rebuilding the mutant's exact text, else its program.

    The engine keeps the parentheses around an expression it replaces, so
    `(x,)` -> `None` comes back as `(None)`: the same program, differently
    written. Such a pattern is used only when no pattern gives the exact text.
    """
    low, high, new = _minimal(change.original, change.splices[0])
    same_program: _Found | None = None
    for start, end, node in index.around(low, high):
        find = change.original[start:end]
        replace = change.original[start:low] + new + change.original[high:end]
        if isinstance(node, cst.BaseStatement):
            find, replace = _dedented(change.original, start, find, replace)
        for found, mutated in _applied(change, find, replace, index.scopes.get(id(node))):
            if mutated == change.mutated:
                return found
            if same_program is None and _same_statement(change, mutated):
                same_program = dataclasses.replace(found, exact=False)
    return same_program


def _minimal(original: str, splice: Splice) -> tuple[int, int, str]:
    """The splice without the characters it leaves as they were, at either end."""
    inner = whole_text_splice(original[splice.start : splice.end], splice.replacement)
    return splice.start + inner.start, splice.start + inner.end, inner.replacement


def _dedented(original: str, start: int, find: str, replace: str) -> tuple[str, str]:
    """A statement's text from its line's start, so both patterns dedent as one block."""
    line_start = original.rfind("\n", 0, start) + 1
    indent = original[line_start:start]
    if indent.strip():
        return find, replace  # code before the statement on its line (`if x: y`)
    return textwrap.dedent(indent + find), textwrap.dedent(indent + replace)


def _applied(
    change: FileChange, find: str, replace: str, scope: str | None
) -> Iterator[tuple[_Found, str]]:
    """Each edit of the pattern the engine accepts (every `occurrence` when one is needed)."""
    if not find.strip():
        return
    for occurrence in (None, *range(1, _MAX_OCCURRENCE + 1)):
        edit = Edit(change.path, find, replace, scope, occurrence)
        try:
            result = apply_edit(change.original, edit)
        except EditFailure as failure:
            if failure.kind == "ambiguous":
                continue  # try each occurrence in turn
            return  # stale, pattern, occurrence out of range: not this pattern
        yield _Found(find, replace, scope, occurrence), result.mutated
        if occurrence is None:
            return


def _same_statement(change: FileChange, mutated: str) -> bool:
    """Is `mutated` the sweep mutant's program (same AST where the splice is)?"""
    line = change.original.count("\n", 0, change.splices[0].start) + 1
    return _statement_dump(mutated, line) == _statement_dump(change.mutated, line) is not None


def _statement_dump(source: str, line: int) -> str | None:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    for statement in tree.body:
        if statement.lineno <= line <= (statement.end_lineno or statement.lineno):
            return ast.dump(statement)
    return None


# --- TOML -----------------------------------------------------------------------------------


def _toml(text: str) -> str:
    """A TOML string: a literal multi-line one for readable code, else an escaped basic one."""
    printable = all(c in "\n\t" or (c >= " " and c != "\x7f") for c in text)
    if "\n" in text and printable and "'''" not in text and not text.endswith("'"):
        return f"'''\n{text}'''"
    # JSON's escapes are TOML's, except that TOML wants DEL escaped too.
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def _toml_list(items: Sequence[str]) -> str:
    return "[" + ", ".join(_toml(item) for item in items) + "]"
