"""The arguments of the two functions: their domains, strategies and boundary pools.

Inputs come from OLD's type annotations (an unannotated argument with a
default of a plain type takes that type). Each argument gets a Hypothesis
strategy (`from_type`), a finite domain when it has one (bool, Enum, Literal,
Optional of those, int under `--bound`), and a pool of boundary values. An
argument with a default in OLD is also *omitted* (the value `OMITTED`), so a
changed default is a disagreement: the tiers call with each defaulted argument
left out alone and all of them left out together, as well as passed. When the
two signatures differ (other than in their default values) the caller must
bridge them with `--strategy`.
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
_PLAIN_DEFAULTS = (bool, int, float, str, bytes)  # an unannotated default of these types gives it
# Text where separators, case, whitespace and emptiness show: a default separator or a
# strip/split change is met by the boundary and defaults tiers, not only by luck.
STR_POOL = ("", "a", " ", "a b", "A-b_c.d", "a\n")
_LONGEST_DEFAULT = 60  # characters of a default's repr shown in the signature line


class _Omitted:
    """The value of an argument the call leaves out (its default applies)."""

    def __repr__(self) -> str:
        return "<omitted>"

    def __copy__(self) -> _Omitted:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> _Omitted:
        return self


OMITTED = _Omitted()


def passed(kwargs: dict[str, Any]) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The arguments a call passes, and the names it leaves out."""
    given = {k: v for k, v in kwargs.items() if v is not OMITTED}
    return given, tuple(k for k, v in kwargs.items() if v is OMITTED)


@dataclass(frozen=True)
class Argument:
    name: str
    positional_only: bool
    annotation: Any
    strategy: st.SearchStrategy[Any]
    finite: tuple[Any, ...] | None  # the whole domain of passed values, simplest first
    boundary: tuple[Any, ...]  # boundary pool (the domain itself when finite)
    omittable: bool = False  # OLD has a default for it: calls also leave it out

    @property
    def domain(self) -> tuple[Any, ...] | None:
        """Every value of the argument, leaving it out included."""
        if self.finite is None:
            return None
        return (*self.finite, OMITTED) if self.omittable else self.finite

    def with_omission(self, values: Sequence[Any]) -> list[Any]:
        """A pool of passed values, plus leaving the argument out when it may be."""
        return [*values, OMITTED] if self.omittable else list(values)

    @property
    def draws(self) -> st.SearchStrategy[Any]:
        """A passed value first (what Hypothesis shrinks towards), else left out."""
        return st.one_of(self.strategy, st.just(OMITTED)) if self.omittable else self.strategy


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


def default_text(value: Any) -> str:
    """A default as it would be written (a dataclass field's factory as `list()`)."""
    shown = strip_alias(repr(value))
    if len(shown) > _LONGEST_DEFAULT:
        shown = shown[: _LONGEST_DEFAULT - 3] + "..."
    return shown


def signature_text(params: Sequence[inspect.Parameter], defaults: bool = True) -> str:
    """`(text: str, *, sep: str = '-')`; without `defaults`, only names and annotations.

    The shape without defaults is what two signatures must share for the same
    generated inputs (passed by keyword) to fit both; defaults are compared by
    calling, and a default NEW lacks is a call NEW refuses.
    """
    shown = []
    previous = None
    for p in params:
        if (
            defaults
            and p.kind is p.KEYWORD_ONLY
            and previous not in (p.VAR_POSITIONAL, p.KEYWORD_ONLY)
        ):
            shown.append("*")
        if defaults and previous is p.POSITIONAL_ONLY and p.kind is not p.POSITIONAL_ONLY:
            shown.append("/")
        previous = p.kind
        star = {p.VAR_POSITIONAL: "*", p.VAR_KEYWORD: "**"}.get(p.kind, "")
        default = f" = {default_text(p.default)}" if defaults and p.default is not p.empty else ""
        shown.append(f"{star}{p.name}: {annotation_text(p.annotation)}{default}")
    if defaults and previous is inspect.Parameter.POSITIONAL_ONLY:
        shown.append("/")
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
    if annotation is str:
        return STR_POOL
    return ()


def arguments(
    params: Sequence[inspect.Parameter], constants: set[Any], bound: int | None, what: str
) -> list[Argument]:
    """Every parameter to generate; a defaulted one is also left out (see `Argument.draws`).

    An unannotated parameter takes the type of its default when that is a plain
    value (`sep='-'` is a str); with another default it is always left out.
    """
    built = []
    for p in params:
        if p.annotation is p.empty and type(p.default) in _PLAIN_DEFAULTS:
            p = p.replace(annotation=type(p.default))
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
                omittable=p.default is not p.empty,
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
