"""mutmut's own mutation generator, run on one parsed module, with each mutation's provenance.

Nothing here decides *what* to mutate: mutmut's `MutationVisitor` walks the
tree, applies its skip rules (annotations, decorators, `len`/`isinstance`
calls, enum hooks, non-trivial defaults, pragmas) and calls the operators of
`mutation_operators`. We only wrap each operator to learn its name and the
ancestors of the node it mutated, which mutmut does not record.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any

import libcst as cst
from libcst.metadata import PositionProvider
from libcst.metadata.base_provider import ProviderT
from mutmut.mutation.file_mutation import MutationVisitor, OuterFunctionProvider
from mutmut.mutation.mutators import (
    _keyword_mapping,
    mutation_operators,
    operator_keywords,
    operator_swap_op,
)
from mutmut.mutation.pragma_handling import IgnoredCode, PragmaVisitor

# mutmut's visitor tries each of its 16 (node type, operator) pairs on every node with an
# isinstance check against libcst's abstract classes, which is most of the walk's cost. We
# register one dispatcher instead that runs, per concrete node type (cached), the operators
# mutmut would run, in mutmut's order: the same mutants, in the same order, far fewer checks.
# Two of them are registered for every node (`cst.CSTNode`) but yield only for a few types.
_SWAP_OP_TYPES = (
    cst.BinaryOperation,
    cst.UnaryOperation,
    cst.BooleanOperation,
    cst.ComparisonTarget,
    cst.AugAssign,
)  # the node types operator_swap_op's `m.matches` accepts
_ACTS_ON: dict[Callable[..., Any], tuple[type, ...]] = {
    operator_swap_op: _SWAP_OP_TYPES,
    operator_keywords: tuple(_keyword_mapping),  # it looks up type(node) in this mapping
}

Operator = Callable[[Any], Iterable[cst.CSTNode]]


@cache
def _operators_for(node_type: type) -> tuple[Operator, ...]:
    return tuple(
        operator
        for registered, operator in mutation_operators
        if issubclass(node_type, registered)
        and issubclass(node_type, _ACTS_ON.get(operator, registered))
    )


@dataclass(frozen=True)
class Raw:
    """One mutation mutmut's operators produced, with where it sits in the tree."""

    operator: str  # the operator function's name, e.g. "operator_swap_op"
    ordinal: int  # how many mutations this operator made of this node before this one
    original: cst.CSTNode
    mutated: cst.CSTNode
    ancestors: tuple[cst.CSTNode, ...]  # module first, the original node's parent last


class _Visitor(MutationVisitor):
    """mutmut's visitor, keeping the stack of ancestors its operators are called under."""

    def __init__(self, ignored: IgnoredCode) -> None:
        self.stack: list[cst.CSTNode] = []
        self.raw: list[Raw] = []
        super().__init__([(cst.CSTNode, self._dispatch)], ignored)

    def _dispatch(self, node: cst.CSTNode) -> Iterator[cst.CSTNode]:
        ancestors: tuple[cst.CSTNode, ...] | None = None  # copied only when needed
        for operator in _operators_for(type(node)):
            for ordinal, mutated in enumerate(operator(node)):
                if ancestors is None:
                    ancestors = tuple(self.stack[:-1])  # the stack's top is `node` itself
                self.raw.append(Raw(operator.__name__, ordinal, node, mutated, ancestors))
                yield mutated

    # mutmut's OuterFunctionProvider walks every function once more to tell each node its
    # top-level function; our ancestor stack already knows it (see get_metadata). Without
    # pragmas, mutmut reads positions only to compare lines with its (then empty) sets of
    # ignored lines, so that walk also goes without PositionProvider's whole-module pass.
    _DEPENDENCIES: frozenset[ProviderT] = frozenset()

    @classmethod
    def get_inherited_dependencies(cls) -> Collection[ProviderT]:
        return cls._DEPENDENCIES

    def get_metadata(self, key: Any, node: cst.CSTNode, *default: Any) -> Any:
        if key is OuterFunctionProvider:
            return self._outer_function(node)
        if key not in self._DEPENDENCIES:
            return None  # PositionProvider in a walk without ignored lines: never compared
        return super().get_metadata(key, node, *default)

    def _outer_function(self, node: cst.CSTNode) -> cst.CSTNode | None:
        """What OuterFunctionProvider maps `node` (the top of the stack) to.

        A module-level function for everything in it; for everything in a class
        body's statement, that statement (a method, or an attribute mutmut drops).
        """
        stack = self.stack
        if len(stack) < 2 or stack[-1] is not node:
            return None
        top = stack[1]
        if isinstance(top, cst.FunctionDef):
            return top
        if (
            isinstance(top, cst.ClassDef)
            and isinstance(top.body, cst.IndentedBlock)
            and len(stack) >= 4
            and stack[2] is top.body
        ):
            return stack[3]
        return None

    def on_visit(self, node: cst.CSTNode) -> bool:
        # libcst calls on_leave for every node on_visit saw, descended into or not.
        self.stack.append(node)
        return super().on_visit(node)

    def on_leave(self, original_node: cst.CSTNode) -> None:
        self.stack.pop()
        super().on_leave(original_node)


class _PragmaVisitor(_Visitor):
    """The walk that honours pragmas: mutmut compares each node's line with theirs."""

    _DEPENDENCIES = frozenset({PositionProvider})


def _pragmas(path: str, wrapper: cst.MetadataWrapper) -> IgnoredCode:
    """mutmut's `# pragma: no mutate` lines (bare, `block`, `start`/`end`).

    mutmut's `get_ignored_lines` also reads `[tool.mutmut] do_not_mutate_patterns`
    from the current directory's config; guardcheck has its own `exclude` instead.
    """
    pragmas = PragmaVisitor(path)
    wrapper.visit(pragmas)
    return IgnoredCode(pragmas.no_mutate_lines, pragmas.ignore_node_lines, set())


def _run(wrapper: cst.MetadataWrapper, ignored: IgnoredCode) -> tuple[list[Raw], set[int]]:
    """Every mutation the operators made, and the ids of those mutmut kept."""
    honours = ignored.no_mutate_lines or ignored.ignore_node_lines or ignored.ignore_pattern_lines
    visitor = _PragmaVisitor(ignored) if honours else _Visitor(ignored)
    wrapper.visit(visitor)
    # mutmut only builds trampolines for module-level functions and methods of
    # module-level classes; mutations anywhere else never become mutants.
    kept = {
        id(mutation.mutated_node)
        for mutation in visitor.mutations
        if isinstance(mutation.contained_by_top_level_function, cst.FunctionDef)
    }
    return visitor.raw, kept


def mutmut_mutations(
    path: str, source: str, wrapper: cst.MetadataWrapper
) -> list[tuple[Raw, bool]]:
    """mutmut's mutants of one module, in its order, each flagged when a pragma drops it.

    The unflagged ones are exactly the mutants `mutmut run` generates for the file.
    Pragma'd mutations are produced by a second walk without pragmas, so the
    caller can count what the pragmas skipped.
    """
    everything, kept_everything = _run(wrapper, IgnoredCode(set(), set(), set()))
    candidates = [raw for raw in everything if id(raw.mutated) in kept_everything]
    if "no mutate" not in source:  # mutmut's pragma parser needs this text in a comment
        return [(raw, False) for raw in candidates]
    honoured, kept = _run(wrapper, _pragmas(path, wrapper))
    survivors = {_key(raw) for raw in honoured if id(raw.mutated) in kept}
    return [(raw, _key(raw) not in survivors) for raw in candidates]


def _key(raw: Raw) -> tuple[int, str, int]:
    """The same mutation in two walks of one tree: same node, operator and yield."""
    return (id(raw.original), raw.operator, raw.ordinal)


def operator_label(name: str) -> str:
    """A readable mutator name from mutmut's function name: operator_swap_op -> swap-op."""
    return name.removeprefix("operator_").replace("_", "-")


__all__: Sequence[str] = ("Raw", "mutmut_mutations", "operator_label")
