"""Sweep mutants: mutmut's operator mutants of the given files, as guardcheck `Mutant` values.

Each file is parsed once; mutmut's visitor (see `operators`) yields its
mutations as (original node, mutated node) pairs, and each becomes one exact
splice of the original text, located with libcst's position metadata. The
splice is narrowed to the smallest node that actually changed (`<` inside
`a < b`, not the comparison target `< b` mutmut swaps), which is also what the
id and the summary name.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import libcst as cst
from libcst._nodes.internal import CodegenState
from libcst.metadata import MetadataWrapper
from mutmut.mutation.pragma_handling import PragmaParseError

from guardcheck.errors import GuardcheckError
from guardcheck.model import FileChange, Mutant, Where
from guardcheck.splices import (
    BOM,
    LineIndex,
    SourceEncodingError,
    Splice,
    apply_splices,
    changed_lines,
    read_source,
    whole_text_splice,
)
from guardcheck.sweep.filters import (
    ARID_RULES,
    AridFilter,
    AridRule,
    Candidate,
    ChangedLinesFilter,
    ExcludeFilter,
    Filter,
    PragmaFilter,
    first_skipping,
)
from guardcheck.sweep.ids import WIDTH, describe, readable_id, unique_ids
from guardcheck.sweep.operators import Raw, mutmut_mutations, operator_label

_SUMMARY_WIDTH = 60


@dataclass(frozen=True)
class Sweep:
    """What a sweep produced: the mutants to run and what the filters skipped."""

    mutants: list[Mutant]
    skipped: dict[str, int]  # filter name -> mutants it skipped (every active filter listed)
    files: int  # source files read
    skips: tuple[tuple[str, str], ...] = ()  # (mutant id, filter name) of every skipped mutant
    warnings: tuple[str, ...] = ()  # files mutmut would skip too (syntax libcst cannot parse)


def generate(
    root: Path,
    paths: Sequence[str],
    *,
    exclude: Sequence[str] = (),
    arid_rules: Sequence[AridRule] = ARID_RULES,
    changed_lines: Mapping[str, Iterable[int]] | None = None,
    filters: Sequence[Filter] = (),
) -> Sweep:
    """mutmut's mutants of every `*.py` under `paths` (relative to `root`), filtered.

    Filters run in this order, and the first that skips a mutant counts it:
    pragma, exclude, one per arid rule (`arid:<name>`), since (only when
    `changed_lines` is given: path -> changed line numbers), then `filters`.
    """
    active: list[Filter] = [PragmaFilter()]
    if exclude:
        active.append(ExcludeFilter(tuple(exclude)))
    active.extend(AridFilter(rule.name) for rule in arid_rules)
    if changed_lines is not None:
        active.append(
            ChangedLinesFilter({_posix(p): frozenset(lines) for p, lines in changed_lines.items()})
        )
    active.extend(filters)
    mutants: list[Mutant] = []
    skipped = {rule.name: 0 for rule in active}
    skips: list[tuple[str, str]] = []
    warnings: list[str] = []
    files = source_files(root, paths)
    for path in files:
        text = _read(root, path, warnings)
        if text is None:
            continue
        for candidate in file_candidates(root, path, text, arid_rules, warnings):
            reason = first_skipping(active, candidate)
            if reason is None:
                mutants.append(to_mutant(candidate, text))
            else:
                skipped[reason] += 1
                skips.append((candidate.id, reason))
    return Sweep(mutants, skipped, len(files), tuple(skips), tuple(warnings))


def _posix(path: str) -> str:
    return Path(path).as_posix()


def source_files(root: Path, paths: Sequence[str]) -> list[str]:
    """Posix paths (relative to `root`) of the files and of every `*.py` under the folders.

    Sorted, so nothing downstream depends on the order paths were given in.
    Hidden folders and `__pycache__` are not searched.
    """
    root = root.resolve()
    found: set[str] = set()
    for given in paths:
        path = (root / given).resolve()
        if path.is_dir():
            for file in path.rglob("*.py"):
                parts = file.relative_to(path).parts
                if not any(p.startswith(".") or p == "__pycache__" for p in parts[:-1]):
                    found.add(_relative(root, file))
        elif path.is_file():
            found.add(_relative(root, path))
        else:
            raise GuardcheckError(f"sweep path {given} does not exist under {root}")
    return sorted(found)


def _relative(root: Path, path: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        raise GuardcheckError(f"sweep path {path} is outside the project root {root}") from None


def _read(root: Path, path: str, warnings: list[str]) -> str | None:
    try:
        return read_source(root / path)
    except SourceEncodingError as exc:
        warnings.append(
            f"{path}: cannot be decoded as Python source, skipped: {exc} (fix: {exc.fix})"
        )
        return None


def module_name(root: Path, path: str) -> str:
    """The dotted name for `path`: from the outermost package folder (with `__init__.py`) down.

    `src/pkg/mod.py` is `pkg.mod`; a folder without `__init__.py` inside a
    package is a namespace package (`pkg/legacy/old.py` is `pkg.legacy.old`);
    a file in no package is named by its path (`scripts/tool.py`: `scripts.tool`).
    """
    parts = list(Path(path).with_suffix("").parts)
    folders = parts[:-1]
    top = next(
        (
            i
            for i in range(len(folders))
            if (root.joinpath(*folders[: i + 1]) / "__init__.py").is_file()
        ),
        0,
    )
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    return ".".join(parts[top:])


def to_mutant(candidate: Candidate, original: str) -> Mutant:
    splice = candidate.splice
    span = Where(
        candidate.path, candidate.line, candidate.column, candidate.end_line, candidate.end_column
    )
    change = FileChange(
        candidate.path, original, apply_splices(original, [splice]), span, (splice,)
    )
    summary = describe(candidate.original, candidate.replacement, _SUMMARY_WIDTH, quote="`")
    return Mutant(
        id=candidate.id,
        summary=summary,
        changes=(change,),
        mutator=operator_label(candidate.operator),
        tags=("sweep",),
    )


# --- one file -------------------------------------------------------------------------------


def file_candidates(
    root: Path,
    path: str,
    source: str,
    arid_rules: Sequence[AridRule] = ARID_RULES,
    warnings: list[str] | None = None,
) -> list[Candidate]:
    """Every mutant mutmut generates for one file (pragma'd ones flagged), in source order.

    `source` is the file as `read_source` gives it. A UTF-8 BOM is not code: the
    mutants, their lines, columns and ids are those of the text after it, and only
    their splices count it, to fit the text they are applied to.
    """
    body = source.removeprefix(BOM)
    return [
        dataclasses.replace(c, splice=_shifted(c.splice, len(source) - len(body)))
        for c in _candidates(root, path, body, arid_rules, warnings)
    ]


def _shifted(splice: Splice, by: int) -> Splice:
    return Splice(splice.start + by, splice.end + by, splice.replacement) if by else splice


def _candidates(
    root: Path,
    path: str,
    source: str,
    arid_rules: Sequence[AridRule],
    warnings: list[str] | None,
) -> list[Candidate]:
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        # `mutmut run` copies such a file unmutated, with a warning.
        if warnings is not None:
            warnings.append(f"{path}: libcst cannot parse it, skipped ({str(exc).splitlines()[0]})")
        return []
    # The tree is never changed, so the wrapper may index these very nodes.
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    try:
        mutations = mutmut_mutations(path, source, wrapper)
    except PragmaParseError as exc:
        raise GuardcheckError(f"{path}: {exc}") from exc
    if not mutations:
        return []
    targets = {id(n) for raw, _ in mutations for n in (raw.original, *_descent(raw))}
    placed = _File(source, module, LineIndex(source), _spans(module, targets), tuple(arid_rules))
    shaped = [placed.shape(raw, pragma) for raw, pragma in mutations]
    shaped.sort(key=lambda c: (c.splice.start, c.splice.end))  # mutmut groups by function
    name = module_name(root, path)
    readable = [readable_id(path, c.line, c.column, c.original, c.replacement) for c in shaped]
    ids = unique_ids(path, readable, [c.splice for c in shaped], [c.operator for c in shaped])
    return [
        dataclasses.replace(candidate, id=mutant_id, path=path, module=name)
        for candidate, mutant_id in zip(shaped, ids, strict=True)
    ]


class _Offsets(CodegenState):
    """Renders the module, noting where the target nodes' text starts and ends.

    What a node renders (its code with the white space, parentheses and
    indentation it owns) is exactly what a splice may replace with what the
    mutated node renders. CodegenState is libcst-internal (libcst is pinned);
    a position provider would build line/column objects for every node instead.
    """

    def __init__(self, module: cst.Module, targets: set[int]) -> None:
        super().__init__(
            default_indent=module.default_indent, default_newline=module.default_newline
        )
        self.targets = targets
        self.offset = 0
        self.spans: dict[int, tuple[int, int]] = {}
        self.starts: dict[int, int] = {}

    def add_indent_tokens(self) -> None:
        for token in self.indent_tokens:
            self.add_token(token)

    def add_token(self, value: str) -> None:
        self.tokens.append(value)
        self.offset += len(value)

    def before_codegen(self, node: cst.CSTNode) -> None:
        if id(node) in self.targets:
            self.starts[id(node)] = self.offset

    def after_codegen(self, node: cst.CSTNode) -> None:
        if id(node) in self.targets:
            self.spans[id(node)] = (self.starts[id(node)], self.offset)


def _spans(module: cst.Module, targets: set[int]) -> dict[int, tuple[int, int]]:
    state = _Offsets(module, targets)
    module._codegen(state)
    return state.spans


def _descent(raw: Raw) -> Iterator[cst.CSTNode]:
    return (child for child, _ in _changed_children(raw.original, raw.mutated))


@dataclass
class _File:
    source: str
    module: cst.Module
    lines: LineIndex
    spans: Mapping[int, tuple[int, int]]  # id(node) -> what it renders, as offsets
    rules: tuple[AridRule, ...]
    _roots: dict[tuple[int, str], frozenset[int]] = field(default_factory=dict)

    def shape(self, raw: Raw, pragma: bool) -> Candidate:
        indents = _indents(self.module, raw.ancestors)
        start, end = self.spans[id(raw.original)]
        replacement = _render(self.module, raw.mutated, indents, _semicolon(raw))
        path = [raw.original]
        for child, mutated_child in _changed_children(raw.original, raw.mutated):
            child_start, child_end = self.spans[id(child)]
            child_text = _render(self.module, mutated_child, indents, False)
            around = self.source[start:child_start], self.source[child_end:end]
            if around[0] + child_text + around[1] != replacement:
                break  # the parent renders its child differently in place: keep the parent
            start, end, replacement = child_start, child_end, child_text
            path.append(child)
        chain = (*raw.ancestors, *path)
        splice = _tight(self.source, Splice(start, end, replacement))
        shown = _shown(self.source, splice)
        return Candidate(
            id="",
            path="",
            module="",
            scope=".".join(
                n.name.value for n in chain if isinstance(n, (cst.FunctionDef, cst.ClassDef))
            ),
            operator=raw.operator,
            splice=splice,
            line=self.lines.line_of(shown.start),
            column=self.lines.column_of(shown.start),
            end_line=self.lines.line_of(splice.end),
            end_column=self.lines.column_of(splice.end),
            lines=changed_lines(self.lines, [splice]),
            original=self.source[shown.start : shown.end],
            replacement=shown.replacement,
            pragma=pragma,
            arid=self._arid(chain),
        )

    def _arid(self, chain: Sequence[cst.CSTNode]) -> frozenset[str]:
        """Rules one of whose subtrees, rooted at some node of `chain`, holds the change."""
        found: set[str] = set()
        below = {id(node) for node in chain}
        for node in chain:
            for rule in self.rules:
                if rule.name not in found and not below.isdisjoint(self._rule_roots(rule, node)):
                    found.add(rule.name)
            below.discard(id(node))
        return frozenset(found)

    def _rule_roots(self, rule: AridRule, node: cst.CSTNode) -> frozenset[int]:
        key = (id(node), rule.name)
        if key not in self._roots:
            self._roots[key] = frozenset(id(root) for root in rule.roots(node))
        return self._roots[key]


def _tight(source: str, splice: Splice) -> Splice:
    """The splice without what it leaves unchanged around the code.

    A node's text includes the white space, indentation and comment lines it
    owns; those are kept when the mutated node still has them, so the
    splice, the id and the report point at the code that changes.
    """
    old, new = source[splice.start : splice.end], splice.replacement
    head = 0
    while True:  # whole unchanged lines first (a statement's comments above it) ...
        newline = old.find("\n", head)
        if newline < 0 or old[head : newline + 1] != new[head : newline + 1]:
            break
        head = newline + 1
    limit = min(len(old), len(new))
    while head < limit and old[head] == new[head] and old[head].isspace():  # ... then indentation
        head += 1
    tail = 0
    while (
        tail < limit - head
        and old[len(old) - 1 - tail] == new[len(new) - 1 - tail]
        and old[len(old) - 1 - tail].isspace()
    ):
        tail += 1
    return Splice(splice.start + head, splice.end - tail, new[head : len(new) - tail])


def _shown(source: str, splice: Splice) -> Splice:
    """What an id and a summary name: the splice, or just its difference when that is long.

    `max(a, 1)` -> `max(1)` reads as `delete a,` rather than two long calls
    that differ somewhere; the difference is widened to whole words.
    """
    old = source[splice.start : splice.end]
    if "\n" not in old and len(old) <= WIDTH:
        return splice
    new = splice.replacement
    difference = whole_text_splice(old, new)
    head, tail = difference.start, len(old) - difference.end
    # Back to the start and on to the end of a word the difference cuts in two.
    while head and _word(old[head - 1]) and _word(old[head : head + 1] + new[head : head + 1]):
        head -= 1
    while tail and _word(old[-tail]) and _word(old[-tail - 1 :][:1] + new[-tail - 1 :][:1]):
        tail -= 1
    return Splice(splice.start + head, splice.end - tail, new[head : len(new) - tail])


def _word(chars: str) -> bool:
    return any(c.isalnum() or c == "_" for c in chars)


def _changed_children(
    node: cst.CSTNode, mutated: cst.CSTNode
) -> Iterator[tuple[cst.CSTNode, cst.CSTNode]]:
    """Down from a node while exactly one child changed (by identity: with_changes keeps others)."""
    while type(node) is type(mutated):
        changed = _only_changed_child(node, mutated)
        if changed is None:
            return
        node, mutated = changed
        # A block renders with its own indentation, a small statement with its `;`:
        # rendered on their own they may differ, so do not narrow into them.
        if isinstance(node, (cst.BaseSuite, cst.BaseSmallStatement)):
            return
        yield node, mutated


def _only_changed_child(
    node: cst.CSTNode, mutated: cst.CSTNode
) -> tuple[cst.CSTNode, cst.CSTNode] | None:
    """The one child that differs between two nodes of a type, else None.

    Compares the dataclass fields (libcst's `children` runs a visitor, which
    costs more than the rest of the narrowing); any other change, such as a
    different count of items or a changed string field, means no single child.
    """
    found: tuple[cst.CSTNode, cst.CSTNode] | None = None
    for name in _fields(type(node)):
        old, new = getattr(node, name), getattr(mutated, name)
        if old is new:
            continue
        if isinstance(old, cst.CSTNode) and isinstance(new, cst.CSTNode):
            pairs = [(old, new)]
        elif isinstance(old, Sequence) and isinstance(new, Sequence) and len(old) == len(new):
            pairs = [(a, b) for a, b in zip(old, new, strict=True) if a is not b]
        else:
            return None
        if found is not None or len(pairs) != 1 or not isinstance(pairs[0][0], cst.CSTNode):
            return None
        found = pairs[0]
    return found


@cache
def _fields(node_type: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(node_type))


def _indents(module: cst.Module, ancestors: Sequence[cst.CSTNode]) -> tuple[str, ...]:
    return tuple(
        module.default_indent if block.indent is None else block.indent
        for block in ancestors
        if isinstance(block, cst.IndentedBlock)
    )


def _semicolon(raw: Raw) -> bool:
    """Does `raw.original` render a default `;` (a small statement that is not its line's last)?"""
    if not isinstance(raw.original, cst.BaseSmallStatement) or not raw.ancestors:
        return False
    parent = raw.ancestors[-1]
    body = getattr(parent, "body", ())
    return bool(body) and body[-1] is not raw.original


def _render(
    module: cst.Module, node: cst.CSTNode, indents: Sequence[str], default_semicolon: bool
) -> str:
    """libcst's code for `node` where it sits: inside `indents`, with its default `;`.

    Module.code_for_node renders at column 0, which misplaces continuation
    lines of code inside an indented block. CodegenState is libcst-internal;
    libcst is pinned exactly in pyproject.toml (as for the engine).
    """
    state = CodegenState(
        default_indent=module.default_indent, default_newline=module.default_newline
    )
    for indent in indents:
        state.increase_indent(indent)
    if default_semicolon:
        node._codegen(state, default_semicolon=True)
    else:
        node._codegen(state)
    return "".join(state.tokens)
