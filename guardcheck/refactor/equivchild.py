"""The differential check's worker: `python -m guardcheck.refactor.equivchild` (a child process).

It reads one job (JSON on stdin: the project, the base sha, the budget and the
functions to compare), and for each function prints a line `{"start": key}`,
`{"alive": key}` about once a second while calls keep returning, and then its
answer as one JSON line, so the parent can tell which function hangs. It runs
the user's code (both revisions) on generated inputs, which is why it is a
process of its own, started in a scratch folder.

The comparison itself is `guardcheck.equiv.functions.compare_callables`. This
module is the adapter that lets it compare what a refactor changed: each side
is wrapped in a plain function (a method is called on a fresh instance of its
revision's class; a return value that is an instance of one of the project's
classes is compared by its class name and attributes, since the two
revisions' classes are different objects). Inputs come from the annotations
(equiv's tiers, defaulted arguments also left out), and from the literal
arguments the tests pass to the function (a strategy of keyword dicts).
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import enum
import functools
import inspect
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from guardcheck.equiv.compare import agree, call, type_name
from guardcheck.equiv.functions import FunctionReport, compare_callables
from guardcheck.equiv.request import EquivRequest
from guardcheck.equiv.resolve import Target, resolve, search_paths
from guardcheck.equiv.revision import strip_alias
from guardcheck.errors import GuardcheckError

_SIMPLE = (str, int, float, bytes, bool)


class Plain:
    """Turns values that compare by identity into values both revisions can share.

    The two revisions' classes are different objects, and an object without its own
    `__eq__` equals only itself: such values (the project's instances, functions,
    classes) are compared by their alias-free type name and their attributes.
    """

    def __init__(self, packages: frozenset[str]) -> None:
        self.packages = packages

    def _ours(self, value: Any) -> bool:
        module = type_name(type(value)).split(".", 1)[0]
        return module in self.packages

    def __call__(self, value: Any, depth: int = 0) -> Any:
        if depth > 20 or isinstance(value, enum.Enum | BaseException):
            return value
        if type(value) in (list, tuple):
            return type(value)(self(v, depth + 1) for v in value)
        if type(value) is dict:
            return {k: self(v, depth + 1) for k, v in value.items()}
        if isinstance(value, type):
            return ("class", type_name(value))
        if callable(value) and hasattr(value, "__qualname__"):
            return ("callable", type_name(type(value)), strip_alias(value.__qualname__))
        by_identity = type(value).__eq__ is object.__eq__
        if (self._ours(value) and not dataclasses.is_dataclass(value)) or by_identity:
            state = getattr(value, "__dict__", None)
            fields = {k: self(v, depth + 1) for k, v in sorted((state or {}).items())}
            return (type_name(type(value)), fields)
        return value


def _signature_without_self(function: Callable[..., Any]) -> inspect.Signature:
    signature = inspect.signature(function)
    params = list(signature.parameters.values())[1:]
    return signature.replace(parameters=params)


def _side(
    target: str, qualname: str, paths: list[Path], plain: Plain, what: str
) -> Callable[..., Any]:
    """A plain function calling what `target` names (a method on a fresh instance)."""
    parts = qualname.split(".")
    if len(parts) == 1:
        function = resolve(Target.parse(target, what), paths, what).obj
        return _wrap(function, inspect.signature(function), function, plain)
    module, _, _ = target.partition(":")
    revision = target.partition("@")[2]
    owner_text = f"{module}:{'.'.join(parts[:-1])}" + (f"@{revision}" if revision else "")
    owner = resolve(Target.parse(owner_text, what), paths, what).obj
    name = parts[-1]
    raw = inspect.getattr_static(owner, name)
    if isinstance(raw, staticmethod | classmethod):
        function = getattr(owner, name)
        return _wrap(function, inspect.signature(function), function, plain)
    if not inspect.isfunction(raw):
        raise GuardcheckError(f"{qualname} is a {type(raw).__name__}, not a method")
    if name == "__init__":
        raise GuardcheckError("a constructor: what it does is the new instance's state")
    try:
        owner()
    except Exception as exc:
        raise GuardcheckError(
            f"a method of {owner.__name__}, which cannot be built without arguments "
            f"({type(exc).__name__}: {exc})"
        ) from None

    def on_fresh_instance(**kwargs: Any) -> Any:
        return getattr(owner(), name)(**kwargs)

    return _wrap(on_fresh_instance, _signature_without_self(raw), raw, plain)


class Heartbeat:
    """Tells the parent, at most once a second, that calls are still returning.

    A call stuck in C (`3 ** huge`) holds the GIL, so no thread or signal could
    report it; the parent's silence timer is what ends it.
    """

    def __init__(self) -> None:
        self.key: int | None = None
        self.last = time.monotonic()

    def beat(self) -> None:
        now = time.monotonic()
        if now - self.last >= 1.0:
            self.last = now
            print(json.dumps({"alive": self.key}), flush=True)


HEARTBEAT = Heartbeat()


def _wrap(
    call: Callable[..., Any], signature: inspect.Signature, original: Any, plain: Plain
) -> Callable[..., Any]:
    def adapted(**kwargs: Any) -> Any:
        HEARTBEAT.beat()
        return plain(call(**kwargs))

    # equiv reads the signature, the annotations (in the original's globals, through
    # __wrapped__) and the numeric constants (inspect.unwrap) of the original.
    functools.update_wrapper(adapted, original)
    adapted.__signature__ = signature  # type: ignore[attr-defined]
    adapted.__annotations__ = {
        k: v for k, v in getattr(original, "__annotations__", {}).items() if k != "self"
    }
    return adapted


_EDGE_CHARACTERS = ("", " ", "x", "0", ".", "*", "(", "\\", "-", "_", "é")


def near(value: Any) -> list[Any]:
    """A test's literal and values one small step away: where behaviour tends to change."""
    if isinstance(value, bool):
        return [value, not value]
    if isinstance(value, int):
        return [value, value - 1, value + 1, 0, -value]
    if isinstance(value, str):
        cut = [value[:-1], value[1:], value.upper()]
        added = [value + c for c in _EDGE_CHARACTERS] + [c + value for c in _EDGE_CHARACTERS]
        swapped = [value[:-1] + c for c in _EDGE_CHARACTERS if value]
        return [value, *cut, *added, *swapped]
    return [value]


def _of_kind(kind: type, bound: int | None) -> st.SearchStrategy[Any]:
    return st.integers(-bound, bound) if kind is int and bound is not None else st.from_type(kind)


def _pool(values: list[Any], bound: int | None) -> st.SearchStrategy[Any]:
    """The tests' literals, values near them, and any value of their simple types."""
    kinds = dict.fromkeys(type(v) for v in values if type(v) in _SIMPLE)
    close = [n for v in values for n in near(v)]
    return st.one_of(
        st.sampled_from(values), st.sampled_from(close), *(_of_kind(k, bound) for k in kinds)
    )


def literal_strategy(
    function: Callable[..., Any], calls: list[dict[str, Any]], bound: int | None = None
) -> st.SearchStrategy[dict[str, Any]] | None:
    """Keyword dicts from the tests' literal calls: as written, and recombined per argument."""
    signature = inspect.signature(function)
    written: list[dict[str, Any]] = []
    for literal in calls:
        try:
            args = [ast.literal_eval(a) for a in literal["args"]]
            kwargs = {k: ast.literal_eval(v) for k, v in literal["kwargs"]}
            arguments = signature.bind(*args, **kwargs).arguments
        except (TypeError, ValueError, SyntaxError):
            continue
        plain_params = all(
            signature.parameters[n].kind
            in (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
            for n in arguments
        )
        if plain_params:
            written.append(dict(arguments))
    if not written:
        return None
    values: dict[str, list[Any]] = {}
    for arguments in written:
        for name, value in arguments.items():
            values.setdefault(name, []).append(value)
    always = {n for n in values if all(n in b for b in written)}
    mixed = st.fixed_dictionaries(
        {n: _pool(v, bound) for n, v in values.items() if n in always},
        optional={n: _pool(v, bound) for n, v in values.items() if n not in always},
    )
    return st.one_of(st.sampled_from(written), mixed)


def ints_within(bound: int | None) -> Callable[..., bool] | None:
    """An assumption that keeps every int argument within ±bound (after a call hung on a
    huge one). Not equiv's `bound`, which turns ints into a finite domain sampled evenly,
    without the boundary values of the code's constants."""
    if bound is None:
        return None

    def small(**kwargs: Any) -> bool:
        return all(abs(v) <= bound for v in kwargs.values() if isinstance(v, int))

    return small


def _disagreements(report: FunctionReport) -> list[dict[str, Any]]:
    return [
        {
            "call": ", ".join(f"{k}={v!r}" for k, v in d.kwargs.items()),
            "omitted": list(d.omitted),
            "old": d.old.shown,
            "new": d.new.shown,
            "shrunk": d.shrunk,
        }
        for d in report.result.disagreements
    ]


def _unsteady(
    old: Callable[..., Any], new: Callable[..., Any], report: FunctionReport
) -> str | None:
    """Why a disagreement proves nothing: a side that answers one input two ways (random
    numbers, the clock, state kept between calls)."""
    for found in report.result.disagreements:
        for side, function in (("the base", old), ("today", new)):
            first, again = (call(function, copy.deepcopy(found.kwargs)) for _ in range(2))
            if not agree(first, again):
                shown = ", ".join(f"{k}={v!r}" for k, v in found.kwargs.items())
                return f"{side} answers the same call ({shown}) differently each time"
    return None


def compare(job: dict[str, Any], item: dict[str, Any], paths: list[Path]) -> dict[str, Any]:
    """One function's answer: equal, differ (with the disagreements) or not compared (why)."""
    plain = Plain(frozenset(job["packages"]))
    key, base_target = item["key"], f"{item['old']}@{job['base']}"
    try:
        old = _side(base_target, item["old_qualname"], paths, plain, "base")
        new = _side(item["new"], item["new_qualname"], paths, plain, "today")
    except GuardcheckError as exc:
        return {"key": key, "status": "not compared", "why": str(exc).splitlines()[0]}
    request = EquivRequest(
        root=Path(job["root"]),
        old=base_target,
        new=item["new"],
        sources=tuple(job["sources"]),
        examples=job["examples"],
        seed=job.get("seed", 0),
    )
    assume = ints_within(item.get("bound"))
    literals = literal_strategy(old, item["calls"], item.get("bound"))
    budget = job["examples"]
    # One budget per function: when the tests' literals can be used too, the
    # annotations get three quarters of it and the literals what is left.
    first = budget - budget // 4 if literals is not None and budget > 1 else budget
    attempts: list[tuple[str, int, st.SearchStrategy[dict[str, Any]] | None]] = [
        ("inputs from the annotations", first, None)
    ]
    if literals is not None:
        attempts.append(("inputs from the tests' literal arguments", budget, literals))
    inputs, how, why = 0, [], []
    for label, examples, strategy in attempts:
        attempt = dataclasses.replace(request, examples=max(1, examples - inputs))
        try:
            report = compare_callables(old, new, attempt, strategy=strategy, assume=assume)
        except GuardcheckError as exc:
            why.append(str(exc).splitlines()[0])
            continue
        inputs += report.result.total
        how.append(label)
        unsteady = _unsteady(old, new, report)
        if unsteady is not None:
            return {"key": key, "status": "not compared", "why": unsteady}
        if report.result.disagreements:
            found = _disagreements(report)
            return {
                "key": key,
                "inputs": inputs,
                "how": label,
                "status": "differ",
                "disagreements": found,
            }
    if not how:
        if literals is None:
            why.append(f"no test calls {item['name']} with literal arguments")
        return {"key": key, "status": "not compared", "why": "; ".join(why)}
    if item.get("bound") is not None:
        how.append(f"ints within ±{item['bound']:,} after a call on a larger one hung")
    return {"key": key, "inputs": inputs, "how": ", ".join(how), "status": "equal"}


def main() -> int:
    job = json.loads(sys.stdin.read())
    paths = search_paths(Path(job["root"]), job["sources"])
    for item in job["functions"]:
        print(json.dumps({"start": item["key"]}), flush=True)
        HEARTBEAT.key, HEARTBEAT.last = item["key"], time.monotonic()
        try:
            answer = compare(job, item, paths)
        except Exception as exc:  # the user's code at import, or a bug of ours: one function
            answer = {
                "key": item["key"],
                "status": "not compared",
                "why": f"comparing it raised {type(exc).__name__}: {exc}",
            }
        print(json.dumps(answer), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
