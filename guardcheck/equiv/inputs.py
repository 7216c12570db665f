"""The arguments of the two functions: their domains, strategies and boundary pools.

Inputs come from OLD's type annotations. Each argument gets a Hypothesis
strategy (`from_type`), a finite domain when it has one (bool, Enum, Literal,
Optional of those, int under `--bound`), and a pool of boundary values. When the
two signatures differ the caller must bridge them with `--strategy`.
"""

from __future__ import annotations

import enum
import inspect
import itertools
import math
import types
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from guardcheck.equiv.boundary import float_pool, int_pool
from guardcheck.equiv.compare import type_name
from guardcheck.equiv.revision import strip_alias
from guardcheck.errors import GuardcheckError

_IMMUTABLE = (bool, int, float, complex, str, bytes, type(None), enum.Enum, tuple, frozenset)


@dataclass(frozen=True)
class Argument:
    name: str
    positional_only: bool
    annotation: Any
    strategy: st.SearchStrategy[Any]
    finite: tuple[Any, ...] | None  # the whole domain, simplest first
    boundary: tuple[Any, ...]  # boundary pool (the domain itself when finite)


def annotation_text(annotation: Any) -> str:
    if annotation is inspect.Parameter.empty:
        return "(unannotated)"
    if isinstance(annotation, type):
        return type_name(annotation)
    return strip_alias(str(annotation)).replace("typing.", "")


def hints(function: Callable[..., Any], what: str) -> dict[str, Any]:
    try:
        return typing.get_type_hints(function)
    except Exception as exc:
        raise GuardcheckError(
            f"{what}: cannot evaluate the type annotations of {function!r}: "
            f"{type(exc).__name__}: {exc}\n  fix: pass --strategy module:function"
        ) from None


def parameters(function: Callable[..., Any], what: str) -> list[inspect.Parameter]:
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError) as exc:
        raise GuardcheckError(f"{what}: no signature for {function!r}: {exc}") from None
    found = hints(function, what)
    return [
        p.replace(annotation=found.get(p.name, inspect.Parameter.empty))
        for p in signature.parameters.values()
    ]


def signature_text(params: Sequence[inspect.Parameter]) -> str:
    shown = []
    for p in params:
        star = {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "")
        default = "=..." if p.default is not p.empty else ""
        shown.append(f"{star}{p.name}: {annotation_text(p.annotation)}{default}")
    return "(" + ", ".join(shown) + ")"


def _int_order(bound: int) -> tuple[int, ...]:
    return (0, *itertools.chain.from_iterable((k, -k) for k in range(1, bound + 1)))


def _finite(annotation: Any, bound: int | None) -> tuple[Any, ...] | None:
    if annotation is bool:
        return (False, True)
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return tuple(annotation)
    if annotation is int and bound is not None:
        return _int_order(bound)
    if annotation is type(None) or annotation is None:
        return (None,)
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        return typing.get_args(annotation)
    if origin in (typing.Union, types.UnionType):
        parts = [_finite(a, bound) for a in typing.get_args(annotation)]
        if all(p is not None for p in parts):
            return tuple(dict.fromkeys(itertools.chain.from_iterable(parts)))  # type: ignore[arg-type]
    return None


def _strategy(annotation: Any, bound: int | None) -> st.SearchStrategy[Any]:
    if annotation is int and bound is not None:
        return st.integers(-bound, bound)
    return st.from_type(annotation)


def _boundary(
    annotation: Any, finite: tuple[Any, ...] | None, constants: set[Any], bound: int | None
) -> tuple[Any, ...]:
    if finite is not None:
        return finite
    if annotation is int:
        pool = int_pool(constants)
        return tuple(v for v in pool if bound is None or abs(v) <= bound)
    if annotation is float:
        return (*float_pool(constants), math.inf, -math.inf, math.nan)
    return ()


def arguments(
    params: Sequence[inspect.Parameter], constants: set[Any], bound: int | None, what: str
) -> list[Argument]:
    """Every parameter to generate: annotated ones; defaulted unannotated ones keep the default."""
    built = []
    for p in params:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            if p.annotation is p.empty:
                continue  # *args / **kwargs: called without extra arguments
            raise GuardcheckError(
                f"{what}: cannot generate *{p.name} / **{p.name} from annotations\n"
                "  fix: pass --strategy module:function returning a strategy of keyword arguments"
            )
        if p.annotation is p.empty:
            if p.default is not p.empty:
                continue
            raise GuardcheckError(
                f"{what}: argument {p.name!r} has no type annotation, so no inputs can be "
                "generated for it\n  fix: annotate it, or pass --strategy module:function "
                "returning a strategy of keyword-argument dicts (st.fixed_dictionaries)"
            )
        finite = _finite(p.annotation, bound)
        built.append(
            Argument(
                name=p.name,
                positional_only=p.kind is p.POSITIONAL_ONLY,
                annotation=p.annotation,
                strategy=st.sampled_from(finite)
                if finite is not None
                else _strategy(p.annotation, bound),
                finite=finite,
                boundary=_boundary(p.annotation, finite, constants, bound),
            )
        )
    return built


def needs_copy(args: Sequence[Argument]) -> bool:
    """Mutable arguments are copied per call so OLD cannot change what NEW is given."""
    return not all(
        (isinstance(a.annotation, type) and issubclass(a.annotation, _IMMUTABLE))
        or a.finite is not None
        for a in args
    )


def translator(
    old: Sequence[inspect.Parameter], new: Sequence[inspect.Parameter]
) -> Callable[[dict[str, Any]], dict[str, Any]] | None:
    """Map OLD's enum members to NEW's same-named enum (a revision's enum is another class)."""
    new_by_name = {p.name: p.annotation for p in new}
    maps: dict[str, type[enum.Enum]] = {}
    for p in old:
        theirs = new_by_name.get(p.name)
        if (
            isinstance(p.annotation, type)
            and issubclass(p.annotation, enum.Enum)
            and isinstance(theirs, type)
            and issubclass(theirs, enum.Enum)
            and theirs is not p.annotation
        ):
            maps[p.name] = theirs
    if not maps:
        return None

    def translate(kwargs: dict[str, Any]) -> dict[str, Any]:
        out = dict(kwargs)
        for name, target in maps.items():
            value = out.get(name)
            if isinstance(value, enum.Enum):
                out[name] = target[value.name]
        return out

    return translate
