"""From what happened in a mutant's child to a Status and a one-line reason (pure)."""

from __future__ import annotations

from collections.abc import Sequence

from guardcheck.model import (
    ChildOutcome,
    Mutant,
    Status,
    TestOutcome,
    TestResult,
    function_id,
    is_named_by,
)

_RED = (TestOutcome.FAILED, TestOutcome.ERROR)
_CAUGHT_KINDS = (Status.CAUGHT, Status.CAUGHT_ELSEWHERE, Status.WEAKENED, Status.TIMEOUT)


def failing_tests(outcome: ChildOutcome) -> list[TestResult]:
    """The tests that failed or errored: the ones that count as a kill."""
    return [t for t in outcome.tests if t.outcome in (TestOutcome.FAILED, TestOutcome.ERROR)]


def _during(outcome: ChildOutcome) -> str:
    return f" during {outcome.current}" if outcome.current else ""


def _caught(
    mutant: Mutant, outcome: ChildOutcome, killers: list[str], reason: str
) -> tuple[Status, str]:
    """CAUGHT; CAUGHT_ELSEWHERE when no named killer caught it; WEAKENED when one did not.

    Every `killed_by` id must fail (one of the tests it stands for, e.g. one
    parametrization); of `killed_by_any`, one failing id is enough.
    """
    if mutant.named_killers and not any(mutant.names_killer(k) for k in killers):
        named = ", ".join(mutant.named_killers)
        return Status.CAUGHT_ELSEWHERE, f"{reason} (not by the named killer(s): {named})"
    ran = [t.nodeid for t in outcome.tests]
    if outcome.current and outcome.current not in ran:
        ran.append(outcome.current)  # the test a crash interrupted ran, and is a killer
    passed = [n for n in mutant.killed_by if not any(is_named_by(n, k) for k in killers)]
    unrun = [n for n in passed if not any(is_named_by(n, r) for r in ran)]
    if unrun:
        # The child stopped (a crash) before these ran: nobody saw them fail.
        return Status.ERROR, (
            f"{reason}, but the named killer(s) {', '.join(unrun)} never ran, so whether "
            "each named killer fails is unknown"
        )
    if passed:
        return Status.WEAKENED, (
            f"{reason}, but the named killer(s) {', '.join(passed)} passed against the mutant"
        )
    if mutant.killed_by_any and not any(
        is_named_by(n, k) for n in mutant.killed_by_any for k in killers
    ):
        named = ", ".join(mutant.killed_by_any)
        return Status.WEAKENED, f"{reason}, but none of killed_by_any ({named}) failed"
    return Status.CAUGHT, reason


def decide(mutant: Mutant, outcome: ChildOutcome) -> tuple[Status, str]:
    """The verdict, with a known gap's expectation (`expect = "survives"`) applied."""
    status, reason = _decide(mutant, outcome)
    return expectation(mutant, status, reason)


def expectation(mutant: Mutant, status: Status, reason: str) -> tuple[Status, str]:
    """A survivor of an entry that expects survival is a known gap; a kill closes the gap."""
    if not mutant.expects_survival:
        return status, reason
    if status is Status.SURVIVED:
        return Status.KNOWN_GAP, f"{reason} (known gap: {mutant.expect_reason})"
    if status in _CAUGHT_KINDS:
        return Status.GAP_CLOSED, (
            f"{reason}; the known gap is closed: remove `expect` from entry {mutant.id}"
        )
    return status, reason  # no-coverage and errors say nothing about the gap


def _decide(mutant: Mutant, outcome: ChildOutcome) -> tuple[Status, str]:
    if outcome.error:
        return Status.ERROR, outcome.error
    failing = failing_tests(outcome)
    if outcome.timed_out is not None:
        timeout = f"timeout after {outcome.timed_out:.1f}s{_during(outcome)}"
        if failing and outcome.evidence:
            # A kill recorded before the hang wins over it; the test that hung counts too.
            killers = [t.nodeid for t in failing] + ([outcome.current] if outcome.current else [])
            first = failing[0]
            message = f": {first.message}" if first.message else ""
            return _caught(mutant, outcome, killers, f"{first.nodeid}{message}, then {timeout}")
        return Status.TIMEOUT, timeout
    if outcome.crash:
        killers = [outcome.current] if outcome.current else []
        if not outcome.current:  # e.g. collection aborted: no test to hold responsible
            return Status.CAUGHT, f"crash: {outcome.crash}"
        return _caught(mutant, outcome, killers, f"crash: {outcome.crash}{_during(outcome)}")
    if failing and not outcome.evidence:
        names = ", ".join(t.nodeid for t in failing)
        return Status.ERROR, (
            f"{names} failed although the mutated code never ran in that child "
            "(flaky or order-dependent test?)"
        )
    if failing:
        first = failing[0]
        message = f": {first.message}" if first.message else ""
        return _caught(mutant, outcome, [t.nodeid for t in failing], f"{first.nodeid}{message}")
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


def unrun_selection(
    status: Status, reason: str, selected: Sequence[str], outcome: ChildOutcome
) -> tuple[Status, str]:
    """A survivor must have run every selected test, or the pass proves nothing about it.

    A mutant can change what pytest collects (a parametrize id made from a value
    the mutant changed): the selected id is then missing from the mutated
    session and silently never runs, while the suite by hand fails on the new id.
    """
    if status not in (Status.SURVIVED, Status.KNOWN_GAP):
        return status, reason
    ran = {t.nodeid for t in outcome.tests}
    # A test renamed by the mutant ran under its new id, as it would by hand.
    renamed = {function_id(n) for n in ran - set(selected)}
    unrun = [n for n in selected if n not in ran and function_id(n) not in renamed]
    if not unrun:
        return status, reason
    more = f" and {len(unrun) - 3} more" if len(unrun) > 3 else ""
    return Status.ERROR, (
        f"{', '.join(unrun[:3])}{more} never ran: not collected with the mutant (the "
        "mutant changes what pytest collects, e.g. a parametrize id), so the pass proves "
        "nothing"
    )


def needs_control(outcome: ChildOutcome) -> bool:
    """A kill must be confirmed: do the same tests pass without the mutant?

    Failing tests must pass there. A crash or a timeout must not happen there either:
    the same run (the same tests, the same kind of process) may crash or hang of
    itself, from the project's doing (a test that hangs when run alone) or
    guardcheck's (a checkpoint that paused twice), and that is no kill. The control
    run of a real hang costs only its tests' baseline seconds, and is shared by every
    mutant that ran the same tests. Not a child that never showed the mutant ran
    (already an error).
    """
    if outcome.error:
        return False
    if interrupted(outcome):
        return True
    return bool(failing_tests(outcome)) and outcome.evidence


def interrupted(outcome: ChildOutcome) -> bool:
    """A crash or a timeout ended the run."""
    return bool(outcome.crash) or outcome.timed_out is not None


def tests_run(outcome: ChildOutcome) -> tuple[TestResult, ...]:
    """What ran, with the test a crash or timeout interrupted recorded as failed: its killer."""
    tests, current = outcome.tests, outcome.current
    if interrupted(outcome) and current and current not in {t.nodeid for t in tests}:
        what = "timeout" if outcome.timed_out is not None else f"crash: {outcome.crash}"
        tests = (*tests, TestResult(current, TestOutcome.ERROR, 0.0, what))
    return tests


def control_tests(outcome: ChildOutcome, planned: Sequence[str]) -> tuple[str, ...]:
    """The tests a control run repeats: what the mutant's run ran (tests_run); all it
    planned when a crash stopped it before any (a collection that aborted)."""
    ran = tuple(t.nodeid for t in tests_run(outcome))
    return ran if ran or not interrupted(outcome) else tuple(planned)


def control_note(control: ChildOutcome) -> str:
    """A line for the mutant's log: what its control run (its own or a shared one) saw."""
    ran = ", ".join(f"{t.outcome.value} {t.nodeid}" for t in control.tests)
    ended = f"; then {control.crash or 'a timeout'}" if interrupted(control) else ""
    return f"control run without the mutant: {ran or 'no test finished'}{ended}"


def confirm(
    status: Status, reason: str, outcome: ChildOutcome, control: ChildOutcome
) -> tuple[Status, str]:
    """The verdict once the same tests, in the same order, ran without the mutant."""
    order = control_tests(outcome, [t.nodeid for t in control.tests])
    unfinished = control.error or control.crash
    if control.timed_out is not None:
        unfinished = f"timeout after {control.timed_out:.1f}s{_during(control)}"
    if unfinished:
        same = f" of the same {len(order)} test(s)" if order else ""
        return Status.ERROR, (
            f"{reason}; but the control run{same} without the mutant did not finish "
            f"({unfinished}), so the kill is unconfirmed"
        )
    for test, twin in _unconfirmed(outcome, control):
        how = "did not run" if twin is None else "fails"
        return Status.ERROR, (
            f"{test.nodeid} {how} without the mutant too, in the same selection and "
            f"order ({', '.join(order)}): the kill is not the mutant's "
            "(order-dependent test?)"
        )
    return status, reason


def _unconfirmed(
    outcome: ChildOutcome, control: ChildOutcome
) -> list[tuple[TestResult, TestResult | None]]:
    """The mutant's failing tests (and the test a crash or timeout interrupted) that also
    fail (or did not run) in the control run.

    A test whose id only the mutant gives it (a renamed parametrization) is checked
    against the control run's tests of the same function: the ids it had before.
    """
    without = {t.nodeid: t for t in control.tests}
    unconfirmed = []
    for test in (t for t in tests_run(outcome) if t.outcome in _RED):
        twin = without.get(test.nodeid)
        if twin is None:
            kin = [t for t in control.tests if function_id(t.nodeid) == function_id(test.nodeid)]
            twin = next((t for t in kin if t.outcome in _RED), kin[0] if kin else None)
        if twin is None or twin.outcome in _RED:
            unconfirmed.append((test, twin))
    return unconfirmed


def order_dependent(outcome: ChildOutcome, control: ChildOutcome) -> bool:
    """The mutant's kill happens without it too, in the same selection and order: the
    control run finished and a test that failed fails there too, or the mutant's run
    crashed or hung and the control run did as well."""
    if interrupted(outcome) and interrupted(control):
        return True
    finished = not (control.error or interrupted(control))
    return finished and bool(_unconfirmed(outcome, control))


def unfollowed_error(unfollowed: dict[str, str]) -> str:
    """Why a run whose tests started processes guardcheck could not follow proves nothing."""
    shown = "; ".join(f"{test or '(outside a test)'} {why}" for test, why in unfollowed.items())
    return (
        f"the tests passed, but {shown}: the mutant may have run unmutated there, so a "
        "pass proves nothing"
    )
