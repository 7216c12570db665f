"""`guardcheck equiv OLD NEW`: two functions, the same inputs, every outcome compared."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis.strategies import SearchStrategy

from guardcheck.equiv.boundary import numeric_constants
from guardcheck.equiv.inputs import arguments, needs_copy, parameters, signature_text, translator
from guardcheck.equiv.request import DEFAULT_EXAMPLES, EquivRequest
from guardcheck.equiv.resolve import Resolved, Target, resolve, resolve_callable, search_paths
from guardcheck.equiv.search import Differ, SearchOptions, SearchResult, search
from guardcheck.errors import GuardcheckError


@dataclass(frozen=True)
class FunctionReport:
    old: str
    new: str
    signature: str
    result: SearchResult
    constants: list[float | int] = field(default_factory=list)
    new_signature: str = ""  # NEW's, with its own defaults (`signature` is OLD's)


def resolve_pair(request: EquivRequest) -> tuple[Resolved, Resolved, list[Path]]:
    paths = search_paths(request.root, request.sources)
    old = resolve(Target.parse(request.old, "OLD"), paths, "OLD", request.sources)
    new = resolve(Target.parse(request.new, "NEW"), paths, "NEW", request.sources)
    for side, what in ((old, "OLD"), (new, "NEW")):
        if not callable(side.obj):
            raise GuardcheckError(
                f"{what} {side.target.text} is a {type(side.obj).__name__}, not a function"
            )
    return old, new, paths


def user_hook(text: str | None, paths: Sequence[Path], what: str) -> Any:
    """--strategy is called with no arguments; --assume is returned as the predicate."""
    if text is None:
        return None
    hook = resolve_callable(text, paths, what)
    if what != "--strategy":
        return hook
    try:
        return hook()
    except Exception as exc:
        raise GuardcheckError(f"--strategy {text}() raised {type(exc).__name__}: {exc}") from None


def _positional_adapter(
    function: Callable[..., Any], params: Sequence[inspect.Parameter]
) -> Callable[..., Any]:
    """Inputs are keyword dicts; positional-only parameters are passed by position.

    A positional-only argument left out before one that is passed cannot be
    left out of a real call: it is given this function's own default, which is
    what leaving it out means.
    """
    positional = [p for p in params if p.kind is p.POSITIONAL_ONLY]
    if not positional:
        return function

    def adapted(**kwargs: Any) -> Any:
        given = [i for i, p in enumerate(positional) if p.name in kwargs]
        leading = [
            kwargs.pop(p.name) if p.name in kwargs else p.default
            for p in positional[: given[-1] + 1 if given else 0]
        ]
        return function(*leading, **kwargs)

    return adapted


def compare_functions(request: EquivRequest) -> FunctionReport:
    """`request.old` against `request.new`, both named (and resolved) as the command takes them."""
    old, new, paths = resolve_pair(request)
    strategy = user_hook(request.strategy, paths, "--strategy")
    if strategy is not None and not isinstance(strategy, SearchStrategy):
        raise GuardcheckError(
            f"--strategy {request.strategy} returned {type(strategy).__name__}, not a Hypothesis "
            "strategy\n  fix: return e.g. st.fixed_dictionaries({'x': st.integers()})"
        )
    assume = user_hook(request.assume, paths, "--assume")
    return compare_callables(old.obj, new.obj, request, strategy=strategy, assume=assume)


def compare_callables(
    old: Callable[..., Any],
    new: Callable[..., Any],
    request: EquivRequest,
    *,
    strategy: SearchStrategy[dict[str, Any]] | None = None,
    assume: Callable[..., Any] | None = None,
) -> FunctionReport:
    """Two live callables on the same inputs; `request` gives their labels and the budget.

    Without `strategy`, inputs come from OLD's annotations, and every argument
    OLD has a default for is also left out (alone, and all together): a changed
    default is a disagreement whose input lists it in `Disagreement.omitted`.
    """
    old_params = parameters(old, f"OLD {request.old}")
    new_params = parameters(new, f"NEW {request.new}")
    old_shape, new_shape = (signature_text(p, defaults=False) for p in (old_params, new_params))
    if strategy is None and old_shape != new_shape:
        raise GuardcheckError(
            f"the signatures differ, so the same generated inputs cannot be given to both:\n"
            f"  OLD {request.old}{signature_text(old_params)}\n"
            f"  NEW {request.new}{signature_text(new_params)}\n"
            "  fix: pass --strategy module:function returning a strategy of keyword-argument "
            "dicts that both accept"
        )
    constants: set[float | int] = set()
    args = None
    if strategy is None:
        constants = numeric_constants(old) | numeric_constants(new)
        args = arguments(old_params, constants, request.bound, f"OLD {request.old}")
    omittable = {a.name for a in args or () if a.omittable}
    differ = Differ(
        _positional_adapter(old, old_params),
        _positional_adapter(new, new_params),
        translate=translator(old_params, new_params) if strategy is None else None,
        assume=assume,
        copy_inputs=strategy is not None or needs_copy(args or []),
        defaults={p.name: p.default for p in old_params if p.name in omittable},
    )
    options = SearchOptions(
        examples=request.examples or DEFAULT_EXAMPLES, seed=request.seed, backend=request.backend
    )
    result = search(differ, args, strategy, options)
    return FunctionReport(
        request.old,
        request.new,
        signature_text(old_params),
        result,
        sorted(constants, key=lambda c: (abs(c), c)),
        new_signature=signature_text(new_params),
    )
