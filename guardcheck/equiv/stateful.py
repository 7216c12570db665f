"""`guardcheck equiv --stateful OLD NEW`: two objects, the same call sequence, step by step.

OLD and NEW are zero-argument factories. A sequence of calls on the methods
and operators both objects support is drawn by Hypothesis and run on a fresh
object from each factory; every step's result (or exception type) is compared
through `compare.canon` (views and iterators as lists, never `repr`), and so
is the state after it (`list(items())` when both have `items`), which makes
iteration order part of the contract. `hypothesis.find` shrinks a diverging
sequence to the shortest one it can (fewer steps, simpler keys and values).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from hypothesis import find, settings
from hypothesis import strategies as st
from hypothesis.errors import HypothesisException, NoSuchExample

from guardcheck.equiv.compare import Outcome, agree, call
from guardcheck.equiv.functions import FunctionReport
from guardcheck.equiv.search import QUIET
from guardcheck.errors import GuardcheckError

DEFAULT_SEQUENCES = 500
# Few keys and falsy-heavy values, so collisions, re-insertions and "default
# value" edge cases happen within a handful of steps.
DEFAULT_KEYS = st.sampled_from(["a", "b", "c"])
DEFAULT_VALUES = st.sampled_from([0, 1, 2, "", "x", None])

# The mapping protocol: method -> the argument shapes it is called with.
# "key", "value", "mapping" (a small plain dict) and "own" (a plain dict of
# the object's own items, for __eq__).
PROTOCOL: dict[str, tuple[tuple[str, ...], ...]] = {
    "__getitem__": (("key",),),
    "__setitem__": (("key", "value"),),
    "__delitem__": (("key",),),
    "__contains__": (("key",),),
    "__len__": ((),),
    "__iter__": ((),),
    "__eq__": (("own",), ("mapping",)),
    "get": (("key",), ("key", "value")),
    "pop": (("key",), ("key", "value")),
    "popitem": ((),),
    "setdefault": (("key",), ("key", "value")),
    "clear": ((),),
    "update": (("mapping",),),
    "keys": ((),),
    "values": ((),),
    "items": ((),),
    "copy": ((),),
}
_OWN = object()  # placeholder for "a plain dict of this object's items"


@dataclass(frozen=True)
class Step:
    method: str
    args: tuple[Any, ...]

    def code(self, name: str = "x") -> str:
        a = [repr(v) for v in self.args]
        shown = {
            "__getitem__": lambda: f"{name}[{a[0]}]",
            "__setitem__": lambda: f"{name}[{a[0]}] = {a[1]}",
            "__delitem__": lambda: f"del {name}[{a[0]}]",
            "__contains__": lambda: f"{a[0]} in {name}",
            "__len__": lambda: f"len({name})",
            "__iter__": lambda: f"list({name})",
        }.get(self.method)
        if shown is not None:
            return shown()
        if self.method == "__eq__":
            other = f"dict({name}.items())" if self.args[0] is _OWN else a[0]
            return f"{name} == {other}"
        return f"{name}.{self.method}({', '.join(a)})"


def _perform(obj: Any, step: Step) -> Any:
    args = [
        dict(obj.items()) if v is _OWN else (dict(v) if isinstance(v, dict) else v)
        for v in step.args
    ]
    method = step.method
    if method == "__getitem__":
        return obj[args[0]]
    if method == "__setitem__":
        obj[args[0]] = args[1]
        return None
    if method == "__delitem__":
        del obj[args[0]]
        return None
    if method == "__contains__":
        return args[0] in obj
    if method == "__len__":
        return len(obj)
    if method == "__iter__":
        return list(iter(obj))
    if method == "__eq__":
        return obj == args[0]
    return getattr(obj, method)(*args)


@dataclass(frozen=True)
class Divergence:
    steps: tuple[Step, ...]  # up to and including the diverging one
    old: Outcome
    new: Outcome
    what: str  # "result" or "state after"


@dataclass
class StatefulResult:
    methods: list[str]
    sequences: int = 0
    steps: int = 0
    divergence: Divergence | None = None
    shrunk: bool = False
    built: FunctionReport | None = None  # the factories compared as they build (construction)
    notes: list[str] = field(default_factory=list)

    @property
    def equal(self) -> bool:
        built_apart = self.built is not None and bool(self.built.result.disagreements)
        return self.divergence is None and not built_apart


@dataclass(frozen=True)
class Machine:
    old_factory: Callable[[], Any]
    new_factory: Callable[[], Any]
    methods: tuple[str, ...]
    arity: dict[str, int] = field(default_factory=dict)  # non-protocol methods: positional args

    def fresh(self) -> tuple[Any, Any]:
        made = []
        for factory, what in ((self.old_factory, "OLD"), (self.new_factory, "NEW")):
            try:
                made.append(factory())
            except GuardcheckError:
                raise
            except Exception as exc:
                raise GuardcheckError(
                    f"{what} factory {factory!r}() raised {type(exc).__name__}: {exc}; "
                    "--stateful needs zero-argument factories"
                ) from None
        return made[0], made[1]

    def run(self, steps: Sequence[Step], result: StatefulResult | None = None) -> Divergence | None:
        old, new = self.fresh()
        snapshot = all(hasattr(o, "items") for o in (old, new))
        if result is not None:
            result.sequences += 1
        for index, step in enumerate(steps):
            if result is not None:
                result.steps += 1
            here = tuple(steps[: index + 1])
            got_old = call(lambda o=old, s=step: _perform(o, s), {})
            got_new = call(lambda n=new, s=step: _perform(n, s), {})
            if not agree(got_old, got_new):
                return Divergence(here, got_old, got_new, "result")
            if snapshot:
                state_old = call(lambda o=old: list(o.items()), {})
                state_new = call(lambda n=new: list(n.items()), {})
                if not agree(state_old, state_new):
                    return Divergence(here, state_old, state_new, "state after")
        return None


def shared_methods(
    old: Any, new: Any, wanted: Sequence[str] | None
) -> tuple[list[str], dict[str, int]]:
    """Protocol methods both define, plus public methods both have (positional arity)."""

    def has(obj: Any, name: str) -> bool:
        return callable(getattr(type(obj), name, None))

    both = [m for m in PROTOCOL if has(old, m) and has(new, m)]
    if "__eq__" in both and not (has(old, "items") and has(new, "items")):
        both.remove("__eq__")  # object.__eq__ against a dict says nothing
    arity: dict[str, int] = {}
    for name in sorted(set(dir(type(old))) & set(dir(type(new)))):
        if name.startswith("_") or name in PROTOCOL or not (has(old, name) and has(new, name)):
            continue
        try:
            params = inspect.signature(getattr(old, name)).parameters.values()
        except (TypeError, ValueError):
            continue
        arity[name] = sum(
            1
            for p in params
            if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
        )
        both.append(name)
    if wanted:
        unknown = [m for m in wanted if m not in both]
        if unknown:
            raise GuardcheckError(
                f"--methods {','.join(unknown)}: not supported by both objects "
                f"(shared: {', '.join(both) or 'none'})"
            )
        both = list(wanted)
    if not both:
        raise GuardcheckError("OLD's and NEW's objects share no method to compare")
    return both, {m: n for m, n in arity.items() if m in both}


def _step_strategy(
    methods: Sequence[str],
    arity: dict[str, int],
    keys: st.SearchStrategy[Any],
    values: st.SearchStrategy[Any],
) -> st.SearchStrategy[Step]:
    def of(shape: str) -> st.SearchStrategy[Any]:
        if shape == "own":
            return st.just(_OWN)
        if shape == "mapping":
            return st.dictionaries(keys, values, max_size=3)
        return keys if shape == "key" else values

    options = []
    for method in methods:
        shapes = PROTOCOL.get(method, (("value",) * arity.get(method, 0),))
        for shape in shapes:
            options.append(
                st.tuples(*(of(s) for s in shape)).map(lambda args, m=method: Step(m, tuple(args)))
            )
    return st.one_of(*options)


def compare_objects(
    old_factory: Callable[[], Any],
    new_factory: Callable[[], Any],
    *,
    methods: Sequence[str] | None = None,
    hooks: Any = None,
    sequences: int = DEFAULT_SEQUENCES,
    max_steps: int = 40,
) -> StatefulResult:
    keys, values = DEFAULT_KEYS, DEFAULT_VALUES
    if hooks is not None:
        if not isinstance(hooks, dict) or not set(hooks) <= {"keys", "values"}:
            raise GuardcheckError(
                "--strategy with --stateful must return a dict with 'keys' and/or 'values' "
                "strategies, e.g. {'keys': st.sampled_from('ab'), 'values': st.integers(0, 2)}"
            )
        keys, values = hooks.get("keys", keys), hooks.get("values", values)
    machine_probe = Machine(old_factory, new_factory, ())
    old, new = machine_probe.fresh()
    chosen, arity = shared_methods(old, new, methods)
    machine = Machine(old_factory, new_factory, tuple(chosen), arity)
    result = StatefulResult(methods=chosen)
    sequence = st.lists(_step_strategy(chosen, arity, keys, values), max_size=max_steps)
    try:
        smallest = find(
            sequence,
            lambda steps: machine.run(steps, result) is not None,
            settings=settings(**QUIET, max_examples=sequences, derandomize=True),
        )
    except NoSuchExample:
        return result
    except HypothesisException as exc:
        raise GuardcheckError(f"Hypothesis could not generate call sequences: {exc}") from None
    result.divergence = machine.run(smallest)
    result.shrunk = True
    return result
