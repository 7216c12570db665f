"""What `guardcheck equiv` is asked to do, as plain values."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

BACKENDS = ("hypothesis", "crosshair")
DEFAULT_EXAMPLES = 200_000


@dataclass(frozen=True)
class EquivRequest:
    root: Path
    old: str  # package.module:qualname[@REV]
    new: str
    sources: tuple[str, ...] = ()  # [tool.guardcheck] source: their parents go on sys.path
    strategy: str | None = None  # module:function returning a strategy of kwargs (or, stateful,
    # a mapping with "keys" and/or "values" strategies)
    assume: str | None = None  # module:function, a predicate over the kwargs
    examples: int | None = None  # default: DEFAULT_EXAMPLES inputs, or stateful sequences
    bound: int | None = None  # ints within [-bound, bound]: a finite domain
    seed: int = 0
    backend: str = "hypothesis"
    stateful: bool = False
    methods: tuple[str, ...] | None = None  # stateful: only these (default: all shared)
    steps: int = 40  # stateful: longest call sequence
