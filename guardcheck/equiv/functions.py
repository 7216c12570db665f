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
    """Inputs are keyword dicts; positional-only parameters are passed by position."""
    positional = [p.name for p in params if p.kind is p.POSITIONAL_ONLY]
    if not positional:
        return function

    def adapted(**kwargs: Any) -> Any:
        leading = [kwargs.pop(name) for name in positional if name in kwargs]
        return function(*leading, **kwargs)

    return adapted


def compare_functions(request: EquivRequest) -> FunctionReport:
    old, new, paths = resolve_pair(request)
    strategy = user_hook(request.strategy, paths, "--strategy")
    if strategy is not None and not isinstance(strategy, SearchStrategy):
        raise GuardcheckError(
            f"--strategy {request.strategy} returned {type(strategy).__name__}, not a Hypothesis "
            "strategy\n  fix: return e.g. st.fixed_dictionaries({'x': st.integers()})"
        )
    assume = user_hook(request.assume, paths, "--assume")
    old_params = parameters(old.obj, f"OLD {request.old}")
    new_params = parameters(new.obj, f"NEW {request.new}")
    old_sig, new_sig = signature_text(old_params), signature_text(new_params)
    if strategy is None and old_sig != new_sig:
        raise GuardcheckError(
            f"the signatures differ, so the same generated inputs cannot be given to both:\n"
            f"  OLD {request.old}{old_sig}\n  NEW {request.new}{new_sig}\n"
            "  fix: pass --strategy module:function returning a strategy of keyword-argument "
            "dicts that both accept"
        )
    constants: set[float | int] = set()
    args = None
    if strategy is None:
        constants = numeric_constants(old.obj) | numeric_constants(new.obj)
        args = arguments(old_params, constants, request.bound, f"OLD {request.old}")
    differ = Differ(
        _positional_adapter(old.obj, old_params),
        _positional_adapter(new.obj, new_params),
        translate=translator(old_params, new_params) if strategy is None else None,
        assume=assume,
        copy_inputs=strategy is not None or needs_copy(args or []),
    )
    options = SearchOptions(
        examples=request.examples or DEFAULT_EXAMPLES, seed=request.seed, backend=request.backend
    )
    result = search(differ, args, strategy, options)
    return FunctionReport(
        request.old, request.new, old_sig, result, sorted(constants, key=lambda c: (abs(c), c))
    )
