"""Reporters: turn a finished (or interrupted) RunReport into console, JSON, JUnit, Markdown.

Every reporter reads only the plain values of `guardcheck.model`; none re-runs anything.
This module holds what they share: the gate rule, the run-events protocol the lab calls,
and a fan-out so one lab can feed the console and the output folder at once.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from guardcheck.model import BaselineTest, Gate, Mutant, MutantResult, RunReport, Status

# The order in which counts are listed everywhere, worst news last so it sits next to the gate.
STATUS_ORDER: tuple[Status, ...] = (
    Status.CAUGHT,
    Status.TIMEOUT,
    Status.KNOWN_GAP,
    Status.SURVIVED,
    Status.NO_COVERAGE,
    Status.CAUGHT_ELSEWHERE,
    Status.WEAKENED,
    Status.GAP_CLOSED,
    Status.ERROR,
)
# Always named in a summary line, even at zero: "0 survived" is the reassuring part.
ALWAYS_COUNTED: frozenset[Status] = frozenset({Status.CAUGHT, Status.TIMEOUT, Status.SURVIVED})


def counts_phrase(report: RunReport) -> str:
    """'20 mutants: 19 caught, 1 timeout, 0 survived' (rarer verdicts only when present)."""
    counts = report.counts()
    parts = [
        f"{counts[status]} {status.value}"
        for status in STATUS_ORDER
        if counts[status] or status in ALWAYS_COUNTED
    ]
    total = len(report.results)
    noun = "mutant" if total == 1 else "mutants"
    return f"{total} {noun}: {', '.join(parts)}"


def run_label(report: RunReport) -> str:
    """'shard 2/4', 'merged from 4 shards', or '' for a plain run: which part of a run this is."""
    provenance = report.provenance
    if provenance is None:
        return ""
    if provenance.merged_from:
        noun = "shard" if provenance.merged_from == 1 else "shards"
        return f"merged from {provenance.merged_from} {noun}"
    if provenance.shard:
        return f"shard {provenance.shard[0]}/{provenance.shard[1]}"
    return ""


def gate_phrase(report: RunReport, gate: Gate) -> str:
    if report.interrupted:
        return "interrupted"
    verdict = "passed" if gate.passed(report) else "failed"
    if gate.fail_under is not None:
        return f"gate {verdict} (score {report.score:.1f}% vs --fail-under {gate.fail_under:g}%)"
    return f"gate {verdict}"


def killer_or_reason(result: MutantResult) -> str:
    """What a reader wants next to a verdict: who caught it, or why it was not caught."""
    killers = result.killers
    if not killers:
        return result.reason
    first = killers[0] + (f" (+{len(killers) - 1} more)" if len(killers) > 1 else "")
    if result.status is Status.CAUGHT:
        return first
    if result.status is Status.CAUGHT_ELSEWHERE:
        # The point of this verdict: the test named in the catalogue no longer catches it.
        expected = ", ".join(result.mutant.named_killers) or "the named killers"
        return f"caught by {first}, not by {expected}"
    return result.reason or first


def location(mutant: Mutant) -> str:
    span = mutant.span
    return f"{span.path}:{span.line}"


class RunEvents(Protocol):
    """What the lab reports while it runs; the console and the output folder implement it."""

    def run_started(self, mutants: Sequence[Mutant]) -> None: ...

    def baseline_started(self) -> None: ...

    def baseline_finished(self, tests: list[BaselineTest], seconds: float) -> None: ...

    def mutant_started(self, mutant: Mutant) -> None: ...

    def mutant_finished(self, result: MutantResult, log: str) -> None: ...


class FanOut:
    """Forwards each event to several listeners, in the order given."""

    def __init__(self, *listeners: RunEvents) -> None:
        self.listeners: tuple[RunEvents, ...] = listeners

    @classmethod
    def of(cls, listeners: Iterable[RunEvents | None]) -> FanOut:
        """Convenience for optional listeners (e.g. no output folder): Nones are skipped."""
        return cls(*(listener for listener in listeners if listener is not None))

    def run_started(self, mutants: Sequence[Mutant]) -> None:
        for listener in self.listeners:
            listener.run_started(mutants)

    def baseline_started(self) -> None:
        for listener in self.listeners:
            listener.baseline_started()

    def baseline_finished(self, tests: list[BaselineTest], seconds: float) -> None:
        for listener in self.listeners:
            listener.baseline_finished(tests, seconds)

    def mutant_started(self, mutant: Mutant) -> None:
        for listener in self.listeners:
            listener.mutant_started(mutant)

    def mutant_finished(self, result: MutantResult, log: str) -> None:
        for listener in self.listeners:
            listener.mutant_finished(result, log)
