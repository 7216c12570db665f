"""Differential search over inputs, tier by tier, then Hypothesis shrinking.

(a) exhaustive: every argument has a small finite domain and the product fits
    in the budget: all of it, and the answer is complete (leaving each
    defaulted argument out is part of its domain);
(-) defaults: when arguments have defaults, a few inputs are each called
    with every defaulted argument left out alone, all of them left out, and
    all passed, so a changed default is met whatever the budget;
(b) boundary: products of each argument's boundary pool (constants from the
    code and their neighbours), all of them or a sample of a quarter of the budget;
(c) hypothesis: the rest of the budget. Hypothesis' cost is per drawn value
    (bench/README.md), so one example draws a small
    pool of values per argument plus a seed, and the loop tries a few hundred
    combinations of those pools (mixed with the boundary pool). That keeps
    Hypothesis' choice of values (small, repeated, edge-heavy) at a fraction of
    the cost of one example per trial.
(d) crosshair: `--backend crosshair`, one symbolic example per Hypothesis example.

Whatever a tier finds is then shrunk by `hypothesis.find` over
`one_of(argument strategy, just(found value))` per argument: Hypothesis starts
from the found input and shrinks each argument towards its simplest value while
the two outcomes still disagree in the same way.
"""

from __future__ import annotations

import copy
import itertools
import math
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, Phase, find, given, seed, settings
from hypothesis import strategies as st
from hypothesis.errors import HypothesisException, NoSuchExample

from guardcheck.equiv.compare import Outcome, agree, call
from guardcheck.equiv.inputs import OMITTED, Argument, passed
from guardcheck.errors import GuardcheckError

TIERS = ("exhaustive", "defaults", "boundary", "hypothesis", "crosshair")
POOL_SIZE = 8  # values Hypothesis draws per argument per example
COMBINATIONS = 256  # trials per Hypothesis example in tier (c)
DICT_BATCH = 64  # kwargs dicts per Hypothesis example with --strategy (larger overflows its buffer)
SHRINK_EXAMPLES = (1000, 3000)  # plain strategies, then ones holding the found value
DEFAULT_BASES = 8  # inputs whose defaulted arguments are each left out in the defaults tier


@dataclass(frozen=True)
class Disagreement:
    tier: str
    kwargs: dict[str, Any]  # the arguments passed
    old: Outcome
    new: Outcome
    shrunk: bool
    omitted: tuple[str, ...] = ()  # defaulted arguments left out of the call

    @classmethod
    def of(
        cls, tier: str, kwargs: dict[str, Any], old: Outcome, new: Outcome, shrunk: bool
    ) -> Disagreement:
        given, omitted = passed(kwargs)
        return cls(tier, given, old, new, shrunk, omitted)


@dataclass
class SearchResult:
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(TIERS, 0))
    rejected: int = 0  # inputs --assume ruled out
    complete: bool = False  # exhaustive: every input of the domain was compared
    disagreements: list[Disagreement] = field(default_factory=list)

    @property
    def total(self) -> int:
        return sum(self.counts.values())


@dataclass(frozen=True)
class SearchOptions:
    examples: int = 200_000
    seed: int = 0
    backend: str = "hypothesis"
    max_disagreements: int = 3


class _Stop(Exception):
    """Ends a Hypothesis run once a disagreement is in hand (we shrink it ourselves)."""


QUIET = {
    "database": None,
    "deadline": None,
    "suppress_health_check": list(HealthCheck),
    "print_blob": False,
}


class Differ:
    """Calls both sides on one input and keeps the first input of each kind of disagreement."""

    def __init__(
        self,
        old: Callable[..., Any],
        new: Callable[..., Any],
        *,
        translate: Callable[[dict[str, Any]], dict[str, Any]] | None = None,
        assume: Callable[..., Any] | None = None,
        copy_inputs: bool = False,
        defaults: dict[str, Any] | None = None,
    ) -> None:
        self.old = old
        self.defaults = defaults or {}  # OLD's, what --assume sees for a left-out argument
        self.new = new
        self.translate = translate
        self.assume = assume
        self.copy_inputs = copy_inputs
        self.result = SearchResult()
        self.found: dict[tuple[str, str], tuple[str, dict[str, Any], Outcome, Outcome]] = {}

    def allowed(self, kwargs: dict[str, Any]) -> bool:
        if self.assume is None:
            return True
        given, _ = passed(kwargs)
        try:
            return bool(self.assume(**{**self.defaults, **given}))
        except Exception as exc:
            raise GuardcheckError(
                f"--assume raised {type(exc).__name__}: {exc} on {kwargs!r}"
            ) from None

    def outcomes(self, kwargs: dict[str, Any]) -> tuple[Outcome, Outcome]:
        kwargs, _ = passed(kwargs)
        mine = copy.deepcopy(kwargs) if self.copy_inputs else kwargs
        theirs = copy.deepcopy(kwargs) if self.copy_inputs else kwargs
        if self.translate is not None:
            theirs = self.translate(theirs)
        return call(self.old, mine), call(self.new, theirs)

    def trial(self, kwargs: dict[str, Any], tier: str) -> None:
        if not self.allowed(kwargs):
            self.result.rejected += 1
            return
        self.result.counts[tier] += 1
        old, new = self.outcomes(kwargs)
        if not agree(old, new):
            key = (old.signature, new.signature)
            self.found.setdefault(key, (tier, dict(kwargs), old, new))

    def disagrees_like(self, key: tuple[str, str]) -> Callable[[dict[str, Any]], bool]:
        def condition(kwargs: dict[str, Any]) -> bool:
            if not self.allowed(kwargs):
                return False
            old, new = self.outcomes(kwargs)
            return not agree(old, new) and (old.signature, new.signature) == key

        return condition


def _run_given(test: Callable[..., None]) -> None:
    try:
        test()
    except _Stop:
        pass
    except HypothesisException as exc:
        raise GuardcheckError(f"Hypothesis could not generate inputs: {exc}") from None


def _exhaustive(differ: Differ, args: Sequence[Argument], names: list[str]) -> None:
    for i, combo in enumerate(itertools.product(*(a.domain or () for a in args))):
        differ.trial(dict(zip(names, combo, strict=True)), "exhaustive")
        if differ.found and i % 4096 == 4095:
            return


def _simplest(strategy: st.SearchStrategy[Any]) -> list[Any]:
    try:
        return [find(strategy, lambda _: True, settings=settings(**QUIET, max_examples=20))]
    except (NoSuchExample, HypothesisException):
        return []


def _defaults(
    differ: Differ, args: Sequence[Argument], pools: list[list[Any]], rng: random.Random
) -> None:
    """Each defaulted argument left out alone, all of them together, and none, on a few inputs.

    The first input is the simplest of every pool; the rest are drawn from the pools.
    """
    left_out = [i for i, a in enumerate(args) if a.omittable]
    if not left_out:
        return
    variants = [[i] for i in left_out] + ([left_out] if len(left_out) > 1 else []) + [[]]
    names = [a.name for a in args]
    values = [[v for v in pool if v is not OMITTED] or [OMITTED] for pool in pools]
    bases = [[pool[0] for pool in values]]
    bases += [[rng.choice(pool) for pool in values] for _ in range(DEFAULT_BASES - 1)]
    for base in bases:
        for omitted in variants:
            combo = [OMITTED if i in omitted else v for i, v in enumerate(base)]
            differ.trial(dict(zip(names, combo, strict=True)), "defaults")


def _boundary(
    differ: Differ, pools: list[list[Any]], names: list[str], budget: int, rng: random.Random
) -> None:
    size = math.prod(len(p) for p in pools)
    combos: Iterable[Sequence[Any]]
    if size <= budget:
        combos = itertools.product(*pools)
    else:
        combos = ([rng.choice(p) for p in pools] for _ in range(budget))
    for i, combo in enumerate(combos):
        differ.trial(dict(zip(names, combo, strict=True)), "boundary")
        if differ.found and i % 4096 == 4095:
            return


def _hypothesis_pools(
    differ: Differ,
    args: Sequence[Argument],
    boundary: list[list[Any]],
    names: list[str],
    budget: int,
    options: SearchOptions,
) -> None:
    draws = st.tuples(*(st.lists(a.draws, min_size=POOL_SIZE, max_size=POOL_SIZE) for a in args))

    @seed(options.seed)
    @settings(
        **QUIET, max_examples=max(1, math.ceil(budget / COMBINATIONS)), phases=[Phase.generate]
    )
    @given(draws, st.integers(0, 2**32 - 1))
    def batch(drawn: tuple[list[Any], ...], rng_seed: int) -> None:
        rng = random.Random(rng_seed)
        pools = [list(values) + extra for values, extra in zip(drawn, boundary, strict=True)]
        left = budget - differ.result.counts["hypothesis"]
        for _ in range(min(COMBINATIONS, left)):
            differ.trial(
                {n: rng.choice(p) for n, p in zip(names, pools, strict=True)}, "hypothesis"
            )
        if differ.found or left <= COMBINATIONS:
            raise _Stop

    _run_given(batch)


def _hypothesis_dicts(
    differ: Differ, strategy: st.SearchStrategy[dict[str, Any]], budget: int, options: SearchOptions
) -> None:
    @seed(options.seed)
    @settings(**QUIET, max_examples=max(1, math.ceil(budget / DICT_BATCH)), phases=[Phase.generate])
    @given(st.lists(strategy, min_size=DICT_BATCH, max_size=DICT_BATCH))
    def batch(drawn: list[dict[str, Any]]) -> None:
        left = budget - differ.result.counts["hypothesis"]
        for kwargs in drawn[:left]:
            differ.trial(dict(kwargs), "hypothesis")
        if differ.found or len(drawn) >= left:
            raise _Stop

    _run_given(batch)


def _crosshair(
    differ: Differ, strategy: st.SearchStrategy[dict[str, Any]], budget: int, options: SearchOptions
) -> None:
    try:
        import hypothesis_crosshair_provider  # noqa: F401  (registers the backend)
    except ImportError:
        raise GuardcheckError(
            "--backend crosshair needs CrossHair's Hypothesis backend, which is not installed\n"
            "  fix: pip install 'guardcheck[crosshair]' (installs hypothesis-crosshair)"
        ) from None
    last: list[dict[str, Any]] = []

    @seed(options.seed)
    @settings(**QUIET, max_examples=budget, phases=[Phase.generate], backend="crosshair")
    @given(strategy)
    def symbolic(kwargs: dict[str, Any]) -> None:
        before = len(differ.found)
        differ.trial(dict(kwargs), "crosshair")
        if len(differ.found) > before:
            # Symbolic values must not outlive their path: Hypothesis replays the
            # failure with concrete values, and that replay is what we keep.
            differ.found.clear()
            last[:] = [dict(kwargs)]
            raise AssertionError("disagreement")

    try:
        symbolic()
    except AssertionError:
        pass
    except HypothesisException as exc:
        raise GuardcheckError(f"CrossHair could not explore the inputs: {exc}") from None
    if last:
        differ.trial(last[0], "crosshair")


def _near(argument: Argument, value: Any) -> st.SearchStrategy[Any]:
    """The boundary pool followed by as many copies of the found value.

    Generation then meets the found input often (half the time per argument),
    and the shrinker, which lowers the index, walks from the copies to the
    simpler pool values in front of them.
    """
    if not argument.boundary:
        return st.one_of(argument.draws, st.just(value))
    pool = argument.with_omission(argument.boundary)
    return st.sampled_from(pool + [value] * len(pool))


def _smallest(
    differ: Differ, key: tuple[str, str], starts: Iterable[st.SearchStrategy[dict[str, Any]]]
) -> dict[str, Any] | None:
    for start, examples in zip(starts, SHRINK_EXAMPLES, strict=False):
        try:
            return dict(
                find(
                    start,
                    differ.disagrees_like(key),
                    settings=settings(**QUIET, max_examples=examples, derandomize=True),
                )
            )
        except (NoSuchExample, HypothesisException):
            continue
    return None


def _needed_omissions(
    differ: Differ, key: tuple[str, str], kwargs: dict[str, Any]
) -> dict[str, Any]:
    """Pass OLD's default for each left-out argument whose omission the disagreement does
    not need, so `called without` names only the defaults that make the difference."""
    disagrees = differ.disagrees_like(key)
    for name, value in kwargs.items():
        if value is OMITTED and name in differ.defaults:
            spelled = {**kwargs, name: differ.defaults[name]}
            if disagrees(spelled):
                kwargs = spelled
    return kwargs


def _shrink(
    differ: Differ,
    args: Sequence[Argument] | None,
    strategy: st.SearchStrategy[dict[str, Any]] | None,
) -> list[Disagreement]:
    """Shrink each found input with Hypothesis.

    First from the plain strategies (measured to shrink best: integers shrink
    jointly towards 0), and when those do not meet the disagreement again
    within a few thousand examples, from strategies that contain the found value.
    """
    shrunk = []
    for key, (tier, kwargs, old, new) in differ.found.items():
        if args is not None:
            starts = [
                st.fixed_dictionaries({a.name: a.draws for a in args}),
                st.fixed_dictionaries({a.name: _near(a, kwargs[a.name]) for a in args}),
            ]
        else:
            assert strategy is not None
            starts = [strategy, st.one_of(strategy, st.just(kwargs))]
        smallest = _smallest(differ, key, starts)
        if smallest is None:
            shrunk.append(Disagreement.of(tier, kwargs, old, new, shrunk=False))
            continue
        smallest = _needed_omissions(differ, key, smallest)
        small_old, small_new = differ.outcomes(smallest)
        shrunk.append(Disagreement.of(tier, smallest, small_old, small_new, shrunk=True))
    return shrunk


def search(
    differ: Differ,
    args: Sequence[Argument] | None,
    strategy: st.SearchStrategy[dict[str, Any]] | None,
    options: SearchOptions,
) -> SearchResult:
    """Run the tiers until the budget is spent or a disagreement is found."""
    result = differ.result
    budget = options.examples
    rng = random.Random(options.seed)
    if args is not None:
        names = [a.name for a in args]
        domain = math.prod(len(a.domain or ()) for a in args)
        if all(a.domain is not None for a in args) and domain <= budget:
            _exhaustive(differ, args, names)
            result.complete = not differ.found
        else:
            pools = [a.with_omission(a.boundary or _simplest(a.strategy)) for a in args]
            _defaults(differ, args, pools, rng)
            if not differ.found:
                _boundary(differ, pools, names, budget // 4 - result.total, rng)
            left = budget - result.total - result.rejected
            if not differ.found and left > 0:
                if options.backend == "crosshair":
                    strategy = st.fixed_dictionaries({a.name: a.draws for a in args})
                    _crosshair(differ, strategy, left, options)
                else:
                    extra = [a.with_omission(a.boundary) for a in args]
                    _hypothesis_pools(differ, args, extra, names, left, options)
    else:
        assert strategy is not None
        if options.backend == "crosshair":
            _crosshair(differ, strategy, budget, options)
        else:
            _hypothesis_dicts(differ, strategy, budget, options)
    found = dict(itertools.islice(differ.found.items(), options.max_disagreements))
    differ.found = found
    result.disagreements = _shrink(differ, args, strategy)
    return result
