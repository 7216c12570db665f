"""What one call did (returned a value or raised), and when two such outcomes agree.

Values are compared through `canon`, not `repr` and not plain `==` alone:
a revision's classes are different objects from today's (its enum member is
not `==` today's member), so enums, dataclasses and exceptions compare by their
alias-free qualified name and contents; views and iterators are materialised
as lists; NaN equals NaN. Exceptions agree when their types do (their messages
are reported, not compared: a reworded message is not a behaviour change).
"""

from __future__ import annotations

import dataclasses
import enum
import math
from collections.abc import Callable, ItemsView, Iterator, KeysView, Mapping, ValuesView
from dataclasses import dataclass
from typing import Any

from guardcheck.equiv.revision import strip_alias
from guardcheck.errors import GuardcheckError

_PLAIN = (bool, int, str, bytes, type(None))


def type_name(kind: type) -> str:
    return strip_alias(f"{kind.__module__}.{kind.__qualname__}").removeprefix("builtins.")


def canon(value: Any, _depth: int = 0) -> Any:
    """A structure that is `==` exactly when two outcomes should count as the same."""
    kind = type(value)
    if kind in _PLAIN:
        return (kind.__name__, value)
    if _depth > 20:
        return ("deep", type_name(kind))
    if kind is float:
        return ("float", "nan") if math.isnan(value) else ("float", value)
    if isinstance(value, enum.Enum):
        return ("enum", type_name(kind), value.name)
    if isinstance(value, KeysView | ValuesView | ItemsView | Iterator):
        return ("list", [canon(v, _depth + 1) for v in list(value)])
    if isinstance(value, list | tuple):
        return (type_name(kind), [canon(v, _depth + 1) for v in value])
    if isinstance(value, set | frozenset):
        return (type_name(kind), sorted((canon(v, _depth + 1) for v in value), key=repr))
    if isinstance(value, Mapping):
        # Order-insensitive like dict equality; iteration order is checked by its own step.
        items = [(canon(k, _depth + 1), canon(v, _depth + 1)) for k, v in value.items()]
        return ("mapping", sorted(items, key=repr))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = [
            (f.name, canon(getattr(value, f.name), _depth + 1)) for f in dataclasses.fields(value)
        ]
        return ("dataclass", type_name(kind), fields)
    return ("object", type_name(kind), value)


@dataclass(frozen=True)
class Outcome:
    raised: bool
    value: Any  # the return value, or the exception
    key: Any = None  # canon of the value, or the exception's type name

    @property
    def shown(self) -> str:
        if self.raised:
            exc = self.value
            return f"raised {type_name(type(exc))}: {exc}"
        return f"returned {self.value!r}"

    @property
    def signature(self) -> str:
        """Coarse class of the outcome, to tell distinct disagreements apart."""
        if self.raised:
            return f"raise {self.key}"
        if isinstance(self.value, bool | None | enum.Enum):
            return repr(self.value)
        return type_name(type(self.value))


def call(function: Callable[..., Any], kwargs: Mapping[str, Any]) -> Outcome:
    try:
        value = function(**kwargs)
    except GuardcheckError:
        raise  # not the function's outcome: the comparison itself cannot go on (a bad import)
    except Exception as exc:  # a BaseException (KeyboardInterrupt) must still stop us
        return Outcome(True, exc, type_name(type(exc)))
    return Outcome(False, value, canon(value))


def agree(old: Outcome, new: Outcome) -> bool:
    if old.raised != new.raised:
        return False
    try:
        return bool(old.key == new.key)
    except Exception:
        # canon keeps unknown objects as they are; an __eq__ that raises is no agreement.
        return False
