"""A mutated module seen through the top-level statements its change touches.

Parsing or compiling a module costs in proportion to its size (bench/README.md);
a mutant changes a few lines. The original is parsed once per content (`outline`); per mutant,
`touched` finds the changed text (common prefix and suffix: C-speed string
compares) and parses only the top-level statements enclosing it. Everything
outside them is the same text, so the same AST and the same code, as long as
nothing couples top-level statements to each other. Three things do, and each
makes `touched` return None (the caller then uses the whole module):

- `from __future__` imports must come first in the module: a part that holds
  one, or starts at or before the last of them (the docstring included), is
  not judged alone. `barry_as_FLUFL` changes how text parses: never narrowed.
- `global`/`nonlocal` at module level are checked against the whole module's
  uses of the name ("assigned to before global declaration"): a module with
  one, or a part adding one, is not narrowed.
- A part that does not parse alone (the change spills over a statement
  boundary, a continuation line, unbalanced brackets) is not judged alone.

Shared by edit/mutate.py (does it compile? is it a no-op?) and
lab/prepare/instrument.py (which code objects to compile again).
"""

from __future__ import annotations

import ast
import bisect
import functools
from collections.abc import Callable, Hashable, Iterable, Iterator
from dataclasses import dataclass
from typing import Generic, TypeVar

from guardcheck.splices import LineIndex

T = TypeVar("T")

# Statement lists: the places a statement can sit inside another.
BODIES = ("body", "orelse", "finalbody", "handlers", "cases")


@dataclass(frozen=True)
class Outline:
    """The original module, parsed once: shared by every mutant of it, never modified."""

    tree: ast.Module
    spans: tuple[tuple[int, int], ...]  # (first line with decorators, last line) per statement
    # The `from __future__` imports first, then every import binding a module-level
    # name: the compiler treats a call on an imported name differently (3.11 skips the
    # method-call form), so a def compiles as in its module only beside them.
    prelude: tuple[ast.stmt, ...]
    futures: tuple[ast.stmt, ...]
    after_futures: int  # index of the first statement a part may start at
    narrowable: bool  # False: see the module docstring
    line_starts: tuple[int, ...]  # offset of each line's first character
    firsts: tuple[int, ...]  # spans' first lines, then their last lines: for bisecting
    lasts: tuple[int, ...]

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self.line_starts, offset)


@dataclass(frozen=True)
class Touched:
    """The top-level statements `first`..`last` (inclusive, original indices) and their mutant."""

    first: int
    last: int
    statements: list[ast.stmt]  # parsed from the mutated text, at their lines in it
    shift: int  # lines the mutant adds (negative: removes) inside the part

    def original(self, outline: Outline) -> list[ast.stmt]:
        return outline.tree.body[self.first : self.last + 1]


def module_scope(nodes: Iterable[ast.AST]) -> Iterator[ast.AST]:
    """Statements that run in the module's own scope (not inside a def or class)."""
    for node in nodes:
        yield node
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        for name in BODIES:
            inner = getattr(node, name, None)
            if isinstance(inner, list):
                yield from module_scope(inner)


def first_line(node: ast.stmt) -> int:
    """A statement's first line, its decorators included (a def's co_firstlineno)."""
    decorators = getattr(node, "decorator_list", [])
    return min([node.lineno, *(d.lineno for d in decorators)])


def _is_future(node: ast.AST) -> bool:
    return isinstance(node, ast.ImportFrom) and node.module == "__future__"


def _couples(nodes: Iterable[ast.AST]) -> bool:
    """A module-scope statement whose validity depends on the rest of the module."""
    return any(isinstance(n, ast.Global | ast.Nonlocal) or _is_future(n) for n in nodes)


@functools.lru_cache(maxsize=16)
def outline(original: str) -> Outline:
    """`original` without a BOM, parsed once for every mutant of it (edit/ and lab/ alike)."""
    tree = ast.parse(original)
    spans = [(first_line(s), s.end_lineno or s.lineno) for s in tree.body]
    futures = tuple(s for s in tree.body if _is_future(s))
    scope = list(module_scope(tree.body))
    imports = [s for s in scope if isinstance(s, ast.Import | ast.ImportFrom) and not _is_future(s)]
    last_future = max((i for i, s in enumerate(tree.body) if _is_future(s)), default=-1)
    # A docstring sits before the futures: editing it (or them) is judged whole.
    after = last_future + 1 if futures else 0
    names = {a.name for s in futures for a in getattr(s, "names", [])}
    narrowable = "barry_as_FLUFL" not in names and not any(
        isinstance(n, ast.Global | ast.Nonlocal) for n in scope
    )
    starts = LineIndex(original).starts  # cached by content there too
    firsts, lasts = tuple(a for a, _ in spans), tuple(b for _, b in spans)
    prelude = (*futures, *imports)
    return Outline(tree, tuple(spans), prelude, futures, after, narrowable, starts, firsts, lasts)


def common_prefix(a: str, b: str) -> int:
    low, high = 0, min(len(a), len(b))
    while low < high:  # slices compare in C: a few dozen compares for any file
        mid = (low + high + 1) // 2
        if a[:mid] == b[:mid]:
            low = mid
        else:
            high = mid - 1
    return low


def common_suffix(a: str, b: str, limit: int) -> int:
    low, high = 0, limit
    while low < high:
        mid = (low + high + 1) // 2
        if a[len(a) - mid :] == b[len(b) - mid :]:
            low = mid
        else:
            high = mid - 1
    return low


def changed_region(original: str, mutated: str, changed: tuple[int, int] | None) -> tuple[int, int]:
    """`changed` if the splices gave it, else the span between the texts' common ends:
    (start, end) offsets in `original`, which `mutated` replaced."""
    if changed is not None:
        return changed
    prefix = common_prefix(original, mutated)
    limit = min(len(original), len(mutated)) - prefix
    return prefix, len(original) - common_suffix(original, mutated, limit)


class PerOutline(Generic[T]):
    """What is derived from one original once, for all its mutants, by the outline's identity.

    The outline itself is kept with each value, so its id is not reused while cached.
    """

    def __init__(self, size: int = 256) -> None:
        self._size = size
        self._values: dict[tuple[int, Hashable], tuple[Outline, T]] = {}

    def get(self, found: Outline, key: Hashable, make: Callable[[], T]) -> T:
        hit = self._values.get((id(found), key))
        if hit is not None and hit[0] is found:
            return hit[1]
        value = make()
        if len(self._values) >= self._size:
            self._values.clear()
        self._values[(id(found), key)] = (found, value)
        return value


def touched(original: str, mutated: str, changed: tuple[int, int] | None = None) -> Touched | None:
    """The statements of `mutated` that differ from `original` (both without a BOM).

    `changed` is the region of `original` the mutant replaced (start, end offsets:
    `mutated` is `original[:start] + new + original[end:]`), from the engine's
    splices; without it, the texts' common prefix and suffix stand in. None when
    the change cannot be judged apart from the rest of the module (the module
    docstring says when), or when the texts are equal.
    """
    if original == mutated:
        return None
    found = outline(original)
    if not found.narrowable:
        return None
    begin, finish = changed_region(original, mutated, changed)
    delta = len(mutated) - len(original)
    first, last = found.line_of(begin), found.line_of(finish)  # lines the change spans
    spans = found.spans
    # Statements overlapping lines first..last (spans are in order, both ends sorted).
    low = bisect.bisect_left(found.lasts, first)
    high = bisect.bisect_right(found.firsts, last) - 1
    if low > high:  # only blank lines or comments between statements changed
        return None
    # Statements sharing a line (`x = (1,\n 2); y = 3`) go together: a part is whole lines.
    while low > 0 and spans[low - 1][1] >= spans[low][0]:
        low -= 1
    while high + 1 < len(spans) and spans[high + 1][0] <= spans[high][1]:
        high += 1
    start, end = spans[low][0], spans[high][1]
    if low < found.after_futures or first < start or last > end:
        return None  # touches the futures, or changed text outside the statements
    starts = found.line_starts
    text_end = (starts[end] if end < len(starts) else len(original)) + delta
    # Leading newlines put every node at its line in the whole file.
    text = "\n" * (start - 1) + mutated[starts[start - 1] : text_end]
    try:
        statements = ast.parse(text).body
    except (SyntaxError, ValueError):  # not whole statements after all; or a null byte
        return None
    if _couples(module_scope(statements)):
        return None
    shift = mutated.count("\n", begin, finish + delta) - original.count("\n", begin, finish)
    return Touched(low, high, statements, shift)


def part_module(found: Outline, statements: list[ast.stmt], *, imports: bool) -> ast.Module:
    """`statements` after the futures (and, with `imports`, every module-level import)."""
    prelude = found.prelude if imports else found.futures
    return ast.Module(body=[*prelude, *statements], type_ignores=[])
