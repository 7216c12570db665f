"""Turn a catalogue entry into a Mutant: apply its edits in memory and vet the result.

Nothing here writes to the working tree. Every problem with an entry is
collected (not just the first), so `guardcheck check` can report them together.
"""

from __future__ import annotations

import ast
import contextlib
import types
from pathlib import Path

from guardcheck.edit import toplevel
from guardcheck.edit.engine import EditFailure, apply_edit
from guardcheck.edit.samecode import same_code
from guardcheck.errors import CatalogueInvalid, Problem
from guardcheck.model import Edit, Entry, FileChange, Mutant, Where
from guardcheck.splices import BOM, SourceEncodingError, Splice, compose, read_source


def build_mutant(entry: Entry, root: Path) -> Mutant:
    """Apply all of an entry's edits (edits to the same file chain in order).

    Raises CatalogueInvalid with every Problem found for this entry: "file",
    the EditFailure kinds, "no-op" (every touched module unchanged or only
    reformatted, compared as ASTs) and "unviable" (a mutated module does not compile).
    """
    problems: list[Problem] = []
    originals: dict[str, str] = {}  # insertion order is the order files are first edited
    mutated: dict[str, str] = {}
    spans: dict[str, Where] = {}
    splices: dict[str, tuple[Splice, ...]] = {}
    unreadable: set[str] = set()
    for edit in entry.edits:
        if edit.file in unreadable:
            continue
        if edit.file not in originals:
            try:
                originals[edit.file] = mutated[edit.file] = _read(root, edit.file)
            except _Unreadable as exc:
                unreadable.add(edit.file)
                problems.append(_problem(entry, edit, "file", str(exc), exc.fix))
                continue
        try:
            mutated[edit.file], span, splice = apply_edit(mutated[edit.file], edit, root=root)
        except EditFailure as failure:
            problems.append(
                _problem(entry, edit, failure.kind, failure.message, failure.fix, failure.details)
            )
            continue
        spans[edit.file] = _earlier(spans.get(edit.file), span)
        # Later edits of a file see earlier ones' output: keep one record against the original.
        splices[edit.file] = compose(originals[edit.file], splices.get(edit.file, ()), splice)
    if not entry.edits:
        problems.append(
            Problem(
                "no-op",
                "the entry declares no edit",
                "add `find`/`replace` or `transform`",
                entry_id=entry.id,
                where=entry.where,
            )
        )
    if not problems:
        problems.extend(_vet(entry, originals, mutated, splices))
    if problems:
        raise CatalogueInvalid(problems)
    return Mutant(
        id=entry.id,
        summary=entry.summary,
        changes=tuple(
            FileChange(path, originals[path], mutated[path], spans[path], splices[path])
            for path in originals
        ),
        mutator="catalogue",
        killed_by=entry.killed_by,
        tags=entry.tags,
        declared_at=entry.where,
        killed_by_any=entry.killed_by_any,
        expect=entry.expect,
        expect_reason=entry.reason,
    )


class _Unreadable(Exception):
    def __init__(self, message: str, fix: str) -> None:
        super().__init__(message)
        self.fix = fix


def _read(root: Path, file: str) -> str:
    path = root / file
    fix = "set `file` to a path relative to the project root, or delete the entry"
    if not path.resolve().is_relative_to(root.resolve()):
        raise _Unreadable(f"target file {file} is outside the project root {root}", fix)
    if not path.is_file():
        raise _Unreadable(f"target file {file} does not exist under {root}", fix)
    try:
        return read_source(path)
    except SourceEncodingError as exc:
        message = f"target file {file} cannot be decoded as Python source: {exc}"
        raise _Unreadable(message, exc.fix) from None
    except OSError as exc:
        raise _Unreadable(f"cannot read target file {file}: {exc.strerror or exc}", fix) from exc


def _problem(
    entry: Entry,
    edit: Edit,
    kind: str,
    message: str,
    fix: str,
    details: tuple[str, ...] = (),
) -> Problem:
    return Problem(
        kind=kind,
        message=message,
        fix=fix,
        entry_id=entry.id,
        where=edit.where or entry.where,
        details=details,
    )


def _earlier(current: Where | None, new: Where) -> Where:
    """The first changed region of a file, in the original file's coordinates.

    A later edit's span is in the coordinates of the text the earlier edits left;
    it is only the same as the original's when it starts before all of them,
    because everything before the first change is untouched.
    """
    if current is None or (new.line, new.column) < (current.line, current.column):
        return new
    return current


def _vet(
    entry: Entry,
    originals: dict[str, str],
    mutated: dict[str, str],
    splices: dict[str, tuple[Splice, ...]],
) -> list[Problem]:
    problems: list[Problem] = []
    same: dict[str, bool] = {}
    for path in originals:
        try:
            same[path] = unchanged_code(
                path, originals[path], mutated[path], _changed(splices, path)
            )
        except (SyntaxError, ValueError) as exc:
            problems.append(_unviable(entry, path, mutated[path], exc))
    if problems:
        return problems
    if all(same.values()):
        touched = ", ".join(originals)
        # Say which of the two it is: a no-op report must only ever be true.
        unchanged = all(originals[path] == mutated[path] for path in originals)
        what = (
            f"{touched} is unchanged: `replace` says the same as `find` here"
            if unchanged
            else f"{touched} is only reformatted: the same AST before and after"
        )
        fix = "make `replace` differ from `find` in code, not just in formatting"
    elif all(
        same_program(path, originals[path], mutated[path], _changed(splices, path))
        for path in originals
    ):
        what = (
            f"{', '.join(originals)} compiles to the same code as before (Python folds "
            "constant expressions: `10**3` is `1000`), so no test can tell them apart"
        )
        fix = "make `replace` change what the code computes, not only how it is written"
    else:
        what = ""
    if what:
        problems.append(
            Problem(
                "no-op",
                f"the mutation changes nothing: {what}",
                fix,
                entry_id=entry.id,
                where=entry.where,
            )
        )
    return problems


def unchanged_code(
    path: str,
    original: str,
    mutated: str,
    changed: tuple[int, int] | None = None,
    *,
    narrow: bool = True,
) -> bool:
    """Whether `mutated` has `original`'s AST; SyntaxError/ValueError when it does not compile.

    Only the top-level statements the change touches are parsed, compiled and
    compared (edit/toplevel.py says when that is the same as doing it to the whole
    module, and falls back to the whole module otherwise): per mutant, work in
    proportion to the change, not to the file. `changed` is the region of
    `original` the splices replaced (toplevel.touched); `narrow=False` judges the
    whole module, as the narrowing's tests compare.
    """
    if original == mutated:
        return True
    original, mutated, changed = _without_bom(original, mutated, changed)
    part = toplevel.touched(original, mutated, changed) if narrow else None
    if part is not None:
        found = toplevel.outline(original)
        with contextlib.suppress(SyntaxError, ValueError):  # the whole module says why
            module = toplevel.part_module(found, part.statements, imports=False)
            compile(module, path, "exec", dont_inherit=True)
            return _same_ast(part.original(found), part.statements)
    tree = ast.parse(mutated, path)
    compile(tree, path, "exec", dont_inherit=True)
    return _same_ast(toplevel.outline(original).tree, tree)


def _changed(splices: dict[str, tuple[Splice, ...]], path: str) -> tuple[int, int] | None:
    """The region of the original file that the splices replaced."""
    made = splices.get(path, ())
    return (made[0].start, made[-1].end) if made else None


def same_program(path: str, original: str, mutated: str, changed: tuple[int, int] | None) -> bool:
    """Whether `mutated` compiles to `original`'s code, line numbers aside.

    Called once the ASTs differ: only the top-level statements the change touches are
    compiled, each side alone after the futures, as `unchanged_code` does (whole
    modules when the change cannot be narrowed).
    """
    original, mutated, changed = _without_bom(original, mutated, changed)
    part = toplevel.touched(original, mutated, changed)
    if part is not None:
        found = toplevel.outline(original)
        before = toplevel.part_module(found, part.original(found), imports=False)
        after = toplevel.part_module(found, part.statements, imports=False)
        with contextlib.suppress(SyntaxError, ValueError):  # then the whole modules
            return same_code(_compiled(before, path), _compiled(after, path))
    return same_code(
        _compiled(ast.parse(original, path), path), _compiled(ast.parse(mutated, path), path)
    )


def _compiled(tree: ast.Module, path: str) -> types.CodeType:
    return compile(tree, path, "exec", dont_inherit=True)


def _without_bom(
    original: str, mutated: str, changed: tuple[int, int] | None
) -> tuple[str, str, tuple[int, int] | None]:
    """Both texts without a BOM, and the changed region counted as the parser counts it."""
    if original.startswith(BOM) and changed is not None:
        # The BOM stays in the text (engine.BOM), so splices count it; the parser does not.
        changed = (changed[0] - len(BOM), changed[1] - len(BOM)) if changed[0] else None
    return original.removeprefix(BOM), mutated.removeprefix(BOM), changed


def _unviable(entry: Entry, path: str, source: str, exc: SyntaxError | ValueError) -> Problem:
    if isinstance(exc, SyntaxError):
        line, reason = exc.lineno or 0, exc.msg
    else:  # ValueError: e.g. a null byte
        line, reason = 0, str(exc)
    lines = source.splitlines()
    text = lines[line - 1].strip() if 0 < line <= len(lines) else ""
    return Problem(
        "unviable",
        f"the mutated {path} does not compile: " + (f"line {line}: " if line else "") + reason,
        "change `replace` so the mutated module is valid Python (a mutant must run to be caught)",
        entry_id=entry.id,
        where=entry.where,
        details=(f"{path}:{line} {text}",) if text else (),
    )


def _same_ast(a: object, b: object) -> bool:
    """AST equality without positions; stops at the first difference (mutants differ)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, ast.AST):
        return all(_same_ast(getattr(a, f, None), getattr(b, f, None)) for f in a._fields)
    if isinstance(a, list):
        return len(a) == len(b) and all(map(_same_ast, a, b))  # type: ignore[arg-type]
    return a == b
