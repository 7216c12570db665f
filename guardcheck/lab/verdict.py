"""From what happened in a mutant's child to a Status and a one-line reason (pure)."""

from __future__ import annotations

from guardcheck.model import ChildOutcome, Mutant, Status, TestOutcome, TestResult


def _failing(outcome: ChildOutcome) -> list[TestResult]:
    return [t for t in outcome.tests if t.outcome in (TestOutcome.FAILED, TestOutcome.ERROR)]


def _during(outcome: ChildOutcome) -> str:
    return f" during {outcome.current}" if outcome.current else ""


def _caught(mutant: Mutant, killers: list[str], reason: str) -> tuple[Status, str]:
    """CAUGHT, or CAUGHT_ELSEWHERE when named killers exist and none of them caught it."""
    if mutant.killed_by and not any(mutant.names_killer(k) for k in killers):
        named = ", ".join(mutant.killed_by)
        return Status.CAUGHT_ELSEWHERE, f"{reason} (not by the named killer(s): {named})"
    return Status.CAUGHT, reason


def decide(mutant: Mutant, outcome: ChildOutcome) -> tuple[Status, str]:
    if outcome.error:
        return Status.ERROR, outcome.error
    if outcome.timed_out is not None:
        return Status.TIMEOUT, f"timeout after {outcome.timed_out:.1f}s{_during(outcome)}"
    failing = _failing(outcome)
    if outcome.crash:
        killers = [outcome.current] if outcome.current else []
        if not outcome.current:  # e.g. collection aborted: no test to hold responsible
            return Status.CAUGHT, f"crash: {outcome.crash}"
        return _caught(mutant, killers, f"crash: {outcome.crash}{_during(outcome)}")
    if failing and not outcome.evidence:
        names = ", ".join(t.nodeid for t in failing)
        return Status.ERROR, (
            f"{names} failed although the mutated code never ran in that child "
            "(flaky or order-dependent test?)"
        )
    if failing:
        first = failing[0]
        message = f": {first.message}" if first.message else ""
        return _caught(mutant, [t.nodeid for t in failing], f"{first.nodeid}{message}")
    if not outcome.evidence:
        ran = len(outcome.tests)
        return Status.ERROR, (
            f"no evidence the mutant was active: none of the {ran} test(s) run executed "
            "the mutated code, so a pass proves nothing"
        )
    reason = f"all {len(outcome.tests)} selected test(s) passed"
    named = [t.nodeid for t in outcome.tests if mutant.names_killer(t.nodeid)]
    if named:
        # The test the catalogue says guards this bug no longer does: name it.
        reason += f", including the named killer(s) {', '.join(named)}"
    return Status.SURVIVED, reason
