"""`--stateful`: the two factories compared as they build, before any call sequence.

A factory's defaults (its keyword-only ones, a dataclass's field defaults and
default factories) decide what a fresh object holds, and call sequences may
never look there (a dataclass field no method reads). So each factory is
wrapped as a function returning its fresh object's *state* (the items of a
mapping, or a dataclass's fields by name) and the two are compared like
functions (`functions.compare_callables`): called with no arguments, with each
defaulted argument left out alone and all together, and passed generated
values. A changed default is then "called without `sep`" at construction.
"""

from __future__ import annotations

import dataclasses
import inspect
import typing
from collections.abc import Callable
from typing import Any

from hypothesis import strategies as st

from guardcheck.equiv.functions import FunctionReport, compare_callables
from guardcheck.equiv.request import EquivRequest
from guardcheck.equiv.revision import RevisionImportError
from guardcheck.errors import GuardcheckError

CONSTRUCTION_EXAMPLES = 2_000  # builds per side; the call sequences are the main budget


class _FactoryDefault:
    """A dataclass field's `default_factory` as the parameter's default: shown as the call
    that makes it, and passed to the factory as a fresh value from that call."""

    def __init__(self, factory: Callable[[], Any]) -> None:
        self.factory = factory

    def __repr__(self) -> str:
        return f"{getattr(self.factory, '__qualname__', repr(self.factory))}()"

    def __copy__(self) -> _FactoryDefault:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> _FactoryDefault:
        return self


def _state_kind(old: Any, new: Any) -> str | None:
    """What both fresh objects expose to compare: "items", "fields" or nothing."""
    if all(callable(getattr(o, "items", None)) for o in (old, new)):
        return "items"
    if all(dataclasses.is_dataclass(o) and not isinstance(o, type) for o in (old, new)):
        return "fields"
    return None


def _state(obj: Any, kind: str) -> Any:
    if kind == "items":
        return list(obj.items())
    return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}


def _parameters(factory: Callable[..., Any]) -> list[inspect.Parameter]:
    """The factory's parameters, a dataclass's default factories made readable."""
    try:
        params = list(inspect.signature(factory).parameters.values())
    except (TypeError, ValueError):
        return []  # a builtin such as `dict`: built with no arguments only
    if not (isinstance(factory, type) and dataclasses.is_dataclass(factory)):
        return params
    made = {
        f.name: _FactoryDefault(f.default_factory)
        for f in dataclasses.fields(factory)
        if f.default_factory is not dataclasses.MISSING
    }
    return [p.replace(default=made[p.name]) if p.name in made else p for p in params]


def _generatable(hint: Any) -> bool:
    try:
        st.from_type(hint).validate()
    except Exception:  # Hypothesis cannot draw it (typing.Any, dict[str, Any], ...)
        return False
    return True


def _hints(factory: Callable[..., Any], names: set[str]) -> dict[str, Any]:
    """The annotations of `names` values can be generated for; the other arguments are only
    left out (or take the type of a plain default), as an unannotated argument would."""
    plain_class = isinstance(factory, type) and not dataclasses.is_dataclass(factory)
    try:
        hints = typing.get_type_hints(factory.__init__ if plain_class else factory)
    except Exception:
        return {}
    return {name: hint for name, hint in hints.items() if name in names and _generatable(hint)}


def _builder(factory: Callable[..., Any], kind: str) -> Callable[..., Any]:
    def build(**kwargs: Any) -> Any:
        made = {k: v.factory() if isinstance(v, _FactoryDefault) else v for k, v in kwargs.items()}
        return _state(factory(**made), kind)

    params = _parameters(factory)
    build.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    build.__annotations__ = _hints(factory, {p.name for p in params})
    return build


def compare_construction(
    old_factory: Callable[..., Any],
    new_factory: Callable[..., Any],
    old: Any,
    new: Any,
    request: EquivRequest,
) -> tuple[FunctionReport | None, str | None]:
    """The builds compared (None when the fresh objects `old`/`new` expose no state to
    compare), and why they were not, when their inputs cannot be generated."""
    kind = _state_kind(old, new)
    if kind is None:
        return None, None
    try:
        report = compare_callables(
            _builder(old_factory, kind),
            _builder(new_factory, kind),
            dataclasses.replace(request, examples=CONSTRUCTION_EXAMPLES, strategy=None),
        )
    except RevisionImportError:
        raise
    except GuardcheckError as exc:
        return None, f"the factories were not compared as they build: {str(exc).splitlines()[0]}"
    return report, None
