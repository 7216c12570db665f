"""The verdict rules (lab/verdict.py::decide): what a child reported to a Status and a reason.

Pure: no processes. The rules, in the order decide applies them: an error, a timeout,
a crash (blaming the test it was running, if any), a failure without evidence (suspect,
not a kill), a failure, no evidence at all, and only then a survivor.
"""

from __future__ import annotations

from guardcheck import messages
from guardcheck.lab.execute.processes import before_in_place, outcome_of, without_session_header
from guardcheck.lab.verdict import (
    confirm,
    control_note,
    control_tests,
    decide,
    needs_control,
    unrun_selection,
)
from guardcheck.model import (
    ChildOutcome,
    FileChange,
    Mutant,
    Status,
    TestOutcome,
    TestResult,
    Where,
)

FAIL = TestOutcome.FAILED
PASS = TestOutcome.PASSED
ERROR = TestOutcome.ERROR


def mutant(killed_by: tuple[str, ...] = ()) -> Mutant:
    change = FileChange("m.py", "x = a + b\n", "x = a - b\n", Where("m.py", 1))
    return Mutant("m", "m", (change,), killed_by=killed_by)


NAMED = mutant(("t.py::fast",))
UNNAMED = mutant()


def outcome(*tests: tuple[str, TestOutcome], evidence: bool = True, **kw: object) -> ChildOutcome:
    results = tuple(TestResult(n, o, 0.01, "boom" if o is not PASS else "") for n, o in tests)
    return ChildOutcome(tests=results, evidence=evidence, **kw)  # type: ignore[arg-type]


# -- kills ---------------------------------------------------------------------------------


def test_a_failing_named_killer_is_caught_with_its_message():
    status, reason = decide(NAMED, outcome(("t.py::fast", FAIL)))
    assert (status, reason) == (Status.CAUGHT, "t.py::fast: boom")


def test_a_failure_without_a_message_is_named_alone():
    failed = ChildOutcome(tests=(TestResult("t.py::fast", FAIL, 0.01),), evidence=True)
    assert decide(NAMED, failed) == (Status.CAUGHT, "t.py::fast")


def test_a_setup_error_counts_as_a_kill():
    assert decide(NAMED, outcome(("t.py::fast", ERROR))) == (Status.CAUGHT, "t.py::fast: boom")


def test_without_named_killers_any_failing_test_catches_it():
    status, reason = decide(UNNAMED, outcome(("t.py::slow", PASS), ("t.py::other", FAIL)))
    assert (status, reason) == (Status.CAUGHT, "t.py::other: boom")


def test_caught_only_by_another_test_is_caught_elsewhere():
    status, reason = decide(NAMED, outcome(("t.py::fast", PASS), ("t.py::slow", FAIL)))
    assert status is Status.CAUGHT_ELSEWHERE
    assert reason == "t.py::slow: boom (not by the named killer(s): t.py::fast)"


def test_a_parametrization_failing_counts_as_its_named_killer():
    """Regression: a kill by `test_add[1]` when `killed_by` names `test_add` was
    reported as caught-elsewhere, failing the gate on a test that did its job."""
    named = mutant(("t.py::test_add",))
    status, _ = decide(named, outcome(("t.py::test_add[1]", FAIL)))
    assert status is Status.CAUGHT
    status, _ = decide(named, outcome(("t.py::test_adder", FAIL)))
    assert status is Status.CAUGHT_ELSEWHERE


def test_a_failure_while_the_mutant_never_ran_is_an_error_not_a_kill():
    status, reason = decide(
        NAMED, outcome(("t.py::fast", FAIL), ("t.py::slow", ERROR), evidence=False)
    )
    assert status is Status.ERROR
    assert reason.startswith("t.py::fast, t.py::slow failed although the mutated code never ran")
    assert "flaky or order-dependent" in reason


# -- timeouts and crashes ------------------------------------------------------------------


def test_a_timeout_names_the_budget_and_the_test_it_was_in():
    timed = decide(NAMED, outcome(timed_out=2.5, current="t.py::fast"))
    assert timed == (Status.TIMEOUT, "timeout after 2.5s during t.py::fast")


def test_a_timeout_before_any_test_started_names_no_test():
    assert decide(NAMED, outcome(timed_out=0.25)) == (Status.TIMEOUT, "timeout after 0.2s")


def test_a_timeout_outranks_a_crash():
    late = outcome(("t.py::fast", PASS), timed_out=1.0, crash="SIGKILL", current="t.py::slow")
    assert decide(NAMED, late)[0] is Status.TIMEOUT


def test_a_kill_recorded_before_a_timeout_wins_over_it():
    """Regression (issue 9 §5): a timeout discarded the failures recorded before it, so
    a mutant its named killer had caught was reported `timeout`."""
    late = outcome(("t.py::fast", FAIL), timed_out=1.0, current="t.py::slow")
    status, reason = decide(NAMED, late)
    assert status is Status.CAUGHT
    assert reason == "t.py::fast: boom, then timeout after 1.0s during t.py::slow"


def test_a_named_killer_that_timed_out_after_another_failed_counts_as_failing():
    both = named(("t.py::a", "t.py::b"))
    late = outcome(("t.py::a", FAIL), timed_out=1.0, current="t.py::b")
    assert decide(both, late)[0] is Status.CAUGHT


def test_a_crash_during_the_named_killer_is_caught():
    crashed = decide(NAMED, outcome(crash="SIGSEGV", current="t.py::fast"))
    assert crashed == (Status.CAUGHT, "crash: SIGSEGV during t.py::fast")


def test_a_crash_during_another_test_is_caught_elsewhere():
    status, reason = decide(NAMED, outcome(crash="exit code 3", current="t.py::slow"))
    assert status is Status.CAUGHT_ELSEWHERE
    assert reason == "crash: exit code 3 during t.py::slow (not by the named killer(s): t.py::fast)"


def test_a_crash_with_no_current_test_is_caught_with_no_one_to_blame():
    aborted = decide(NAMED, outcome(crash="collection aborted: ImportError"))
    assert aborted == (Status.CAUGHT, "crash: collection aborted: ImportError")


def test_a_crash_needs_no_evidence():
    crashed = decide(UNNAMED, outcome(crash="SIGSEGV", current="t.py::fast", evidence=False))
    assert crashed == (Status.CAUGHT, "crash: SIGSEGV during t.py::fast")


# -- errors --------------------------------------------------------------------------------


def test_an_activation_error_outranks_everything_and_is_the_reason():
    failed = outcome(("t.py::fast", FAIL), timed_out=1.0, error="could not activate")
    assert decide(NAMED, failed) == (Status.ERROR, "could not activate")


def test_all_passing_without_evidence_is_an_error_not_a_survivor():
    status, reason = decide(
        NAMED, outcome(("t.py::fast", PASS), ("t.py::slow", PASS), evidence=False)
    )
    assert status is Status.ERROR
    assert reason.startswith("no evidence the mutant was active: none of the 2 test(s) run")


def test_no_test_and_no_evidence_is_an_error():
    status, reason = decide(UNNAMED, outcome(evidence=False))
    assert status is Status.ERROR
    assert "none of the 0 test(s)" in reason


# -- survivors -----------------------------------------------------------------------------


def test_a_survivor_names_the_killer_that_no_longer_catches_it():
    """Acceptance: weakening a named test must name that test beside the survivor."""
    status, reason = decide(NAMED, outcome(("t.py::fast", PASS), ("t.py::slow", PASS)))
    assert status is Status.SURVIVED
    assert reason == "all 2 selected test(s) passed, including the named killer(s) t.py::fast"


def test_a_survivor_names_every_test_its_killed_by_stands_for():
    named = mutant(("t.py::test_add", "t.py::TestCap"))
    tests = [("t.py::test_add[1]", PASS), ("t.py::TestCap::test_cap", PASS), ("t.py::x", PASS)]
    status, reason = decide(named, outcome(*tests))
    assert status is Status.SURVIVED
    assert reason == (
        "all 3 selected test(s) passed, including the named killer(s) "
        "t.py::test_add[1], t.py::TestCap::test_cap"
    )


def test_a_survivor_whose_named_killers_did_not_run_names_none():
    status, reason = decide(NAMED, outcome(("t.py::slow", PASS)))
    assert (status, reason) == (Status.SURVIVED, "all 1 selected test(s) passed")


def test_skipped_tests_with_evidence_survive():
    status, _ = decide(UNNAMED, outcome(("t.py::fast", TestOutcome.SKIPPED), ("t.py::slow", PASS)))
    assert status is Status.SURVIVED


# -- killed_by: every named test; killed_by_any: one of them (issue 9 §3) --------------------


def named(
    killed_by: tuple[str, ...] = (), killed_by_any: tuple[str, ...] = (), **kw: object
) -> Mutant:
    change = FileChange("m.py", "x = a + b\n", "x = a - b\n", Where("m.py", 1))
    return Mutant("m", "m", (change,), killed_by=killed_by, killed_by_any=killed_by_any, **kw)  # type: ignore[arg-type]


def test_a_named_killer_passing_while_another_fails_is_weakened_and_named():
    both = named(("t.py::a", "t.py::b"))
    status, reason = decide(both, outcome(("t.py::a", FAIL), ("t.py::b", PASS)))
    assert status is Status.WEAKENED
    assert reason == "t.py::a: boom, but the named killer(s) t.py::b passed against the mutant"
    assert not status.passes_gate


def test_every_named_killer_failing_is_caught():
    both = named(("t.py::a", "t.py::b"))
    assert decide(both, outcome(("t.py::a", FAIL), ("t.py::b", FAIL)))[0] is Status.CAUGHT


def test_a_named_killer_that_never_ran_is_an_error_not_a_kill():
    """A crash in the first named killer leaves the second unjudged: no flattering verdict."""
    both = named(("t.py::a", "t.py::b"))
    crashed = ChildOutcome(evidence=True, crash="SIGSEGV", current="t.py::a")
    status, reason = decide(both, crashed)
    assert status is Status.ERROR
    assert "t.py::b never ran" in reason


def test_one_of_killed_by_any_failing_is_caught():
    anyone = named(killed_by_any=("t.py::a", "t.py::b"))
    status, _ = decide(anyone, outcome(("t.py::a", PASS), ("t.py::b", FAIL)))
    assert status is Status.CAUGHT


def test_none_of_killed_by_any_failing_while_killed_by_did_is_weakened():
    mixed = named(("t.py::a",), ("t.py::b", "t.py::c"))
    status, reason = decide(mixed, outcome(("t.py::a", FAIL), ("t.py::b", PASS), ("t.py::c", PASS)))
    assert status is Status.WEAKENED
    assert "none of killed_by_any (t.py::b, t.py::c) failed" in reason


def test_killed_by_any_caught_only_by_another_test_is_caught_elsewhere():
    anyone = named(killed_by_any=("t.py::a",))
    status, _ = decide(anyone, outcome(("t.py::a", PASS), ("t.py::z", FAIL)))
    assert status is Status.CAUGHT_ELSEWHERE


# -- expect = "survives" (issue 9 §4) ----------------------------------------------------------

GAP = named(("t.py::a",), expect="survives", expect_reason="negatives untested")


def test_an_expected_survivor_is_a_known_gap_that_passes_the_gate():
    status, reason = decide(GAP, outcome(("t.py::a", PASS)))
    assert status is Status.KNOWN_GAP
    assert status.passes_gate
    assert reason.endswith("(known gap: negatives untested)")


def test_an_expected_survivor_caught_is_gap_closed_with_the_fix():
    status, reason = decide(GAP, outcome(("t.py::a", FAIL)))
    assert status is Status.GAP_CLOSED
    assert not status.passes_gate
    assert reason.endswith("remove `expect` from entry m")


def test_an_expected_survivor_without_evidence_stays_an_error():
    status, _ = decide(GAP, outcome(("t.py::a", PASS), evidence=False))
    assert status is Status.ERROR


# -- a kill must be confirmed by a control run without the mutant (issue 8 §A1) ----------------


def test_a_kill_whose_test_fails_without_the_mutant_too_is_an_error_naming_it():
    killed = outcome(("t.py::fast", FAIL))
    assert needs_control(killed)
    status, reason = confirm(
        Status.CAUGHT, "t.py::fast: boom", killed, outcome(("t.py::fast", FAIL))
    )
    assert status is Status.ERROR
    assert reason.startswith("t.py::fast fails without the mutant too, in the same selection")


def test_a_kill_whose_tests_pass_without_the_mutant_stands():
    killed = outcome(("t.py::slow", PASS), ("t.py::fast", FAIL))
    control = outcome(("t.py::slow", PASS), ("t.py::fast", PASS), evidence=False)
    assert confirm(Status.CAUGHT, "r", killed, control) == (Status.CAUGHT, "r")


def test_a_control_run_that_did_not_finish_leaves_the_kill_unconfirmed():
    killed = outcome(("t.py::fast", FAIL))
    hung = outcome(timed_out=2.0, current="t.py::fast", evidence=False)
    status, reason = confirm(Status.CAUGHT, "r", killed, hung)
    assert status is Status.ERROR
    assert "did not finish (timeout after 2.0s during t.py::fast)" in reason


def test_survivors_and_errors_need_no_control_run():
    assert not needs_control(outcome(("t.py::fast", PASS)))
    assert not needs_control(outcome(crash="SIGSEGV", error="never in place"))


def test_a_crash_needs_a_control_run_of_what_ran_up_to_it():
    """Regression guard: a crash counted as a kill unchecked, so a crash of guardcheck's own
    making (a checkpoint that paused twice, tblib) was reported `caught`."""
    crashed = outcome(("t.py::a", PASS), crash="SIGSEGV", current="t.py::b", evidence=False)
    assert needs_control(crashed)
    assert control_tests(crashed, ["t.py::a", "t.py::b", "t.py::c"]) == ("t.py::a", "t.py::b")
    aborted = outcome(crash="collection aborted: ImportError", evidence=False)
    assert control_tests(aborted, ["t.py::a", "t.py::c"]) == ("t.py::a", "t.py::c")
    assert control_tests(outcome(("t.py::a", FAIL)), ["t.py::a", "t.py::c"]) == ("t.py::a",)


def test_a_timeout_needs_a_control_run_of_what_ran_up_to_it():
    """Regression guard: a forked run's timeout counted as a kill unchecked, so a test
    that hangs when it runs alone, mutant or not, gave an equivalent mutant `timeout`."""
    hung = outcome(("t.py::a", PASS), timed_out=3.0, current="t.py::b")
    assert needs_control(hung)
    assert control_tests(hung, ["t.py::a", "t.py::b", "t.py::c"]) == ("t.py::a", "t.py::b")
    assert not needs_control(outcome(timed_out=3.0, error="could not activate"))


def test_the_control_note_says_what_ran_and_how_the_run_ended():
    """Regression guard: a mutant confirmed by another mutant's control run of the same
    tests had no control line in its log."""
    finished = outcome(("t.py::a", PASS), ("t.py::b", FAIL), evidence=False)
    assert control_note(finished) == (
        "control run without the mutant: passed t.py::a, failed t.py::b"
    )
    hung = outcome(timed_out=3.0, current="t.py::b", evidence=False)
    assert control_note(hung) == (
        "control run without the mutant: no test finished; then a timeout"
    )
    crashed = outcome(("t.py::a", PASS), crash="SIGSEGV", evidence=False)
    assert control_note(crashed).endswith("passed t.py::a; then SIGSEGV")


def test_a_timeout_whose_control_run_hangs_too_is_an_error():
    hung = outcome(timed_out=3.0, current="t.py::b")
    again = outcome(timed_out=3.0, current="t.py::b", evidence=False)
    status, reason = confirm(Status.TIMEOUT, "timeout after 3.0s", hung, again)
    assert status is Status.ERROR
    assert "did not finish (timeout after 3.0s during t.py::b)" in reason
    finished = outcome(("t.py::b", PASS), evidence=False)
    assert confirm(Status.TIMEOUT, "t", hung, finished) == (Status.TIMEOUT, "t")


def test_a_crash_is_confirmed_when_the_same_tests_pass_without_the_mutant():
    crashed = outcome(("t.py::a", PASS), crash="SIGSEGV", current="t.py::b")
    control = outcome(("t.py::a", PASS), ("t.py::b", PASS), evidence=False)
    assert confirm(Status.CAUGHT, "r", crashed, control) == (Status.CAUGHT, "r")


def test_a_crash_that_happens_without_the_mutant_too_is_an_error():
    aborted = outcome(crash="collection aborted: ImportError", evidence=False)
    again = outcome(crash="collection aborted: ImportError", evidence=False)
    status, reason = confirm(Status.CAUGHT, "crash: c", aborted, again)
    assert status is Status.ERROR
    assert reason == (
        "crash: c; but the control run without the mutant did not finish (collection "
        "aborted: ImportError), so the kill is unconfirmed"
    )


def test_a_crash_in_a_test_that_fails_without_the_mutant_too_is_not_the_mutants_kill():
    crashed = outcome(crash="SIGSEGV", current="t.py::b")
    control = outcome(("t.py::b", FAIL), evidence=False)
    status, reason = confirm(Status.CAUGHT, "r", crashed, control)
    assert status is Status.ERROR
    assert reason.startswith("t.py::b fails without the mutant too")


# -- a survivor ran everything it selected -------------------------------------------------


def test_a_survivor_whose_selected_test_never_ran_is_an_error_naming_it():
    """Regression (issue 8 §A4): a mutant of a parametrize value changes the test's id, the
    selected id is not collected with the mutant, and the pass was a false survivor."""
    ran = outcome(("t.py::a", PASS))
    status, reason = decide(UNNAMED, ran)
    assert status is Status.SURVIVED
    status, reason = unrun_selection(status, reason, ["t.py::a", "t.py::b[3-9]"], ran)
    assert status is Status.ERROR
    assert reason.startswith("t.py::b[3-9] never ran: not collected with the mutant")


def test_a_survivor_that_ran_its_whole_selection_stays_survived():
    ran = outcome(("t.py::a", PASS), ("t.py::b", PASS))
    assert unrun_selection(Status.SURVIVED, "r", ["t.py::b", "t.py::a"], ran) == (
        Status.SURVIVED,
        "r",
    )


def test_a_kill_is_not_questioned_for_the_tests_it_stopped_before():
    ran = outcome(("t.py::a", FAIL))
    assert unrun_selection(Status.CAUGHT, "r", ["t.py::a", "t.py::b"], ran) == (Status.CAUGHT, "r")


# -- processes the tests started that guardcheck could not follow (issue 8 §A5) ---------


def _ended(*tests: tuple[str, TestOutcome], unfollowed: dict[str, str]) -> ChildOutcome:
    results = [TestResult(n, o, 0.01, "boom" if o is not PASS else "") for n, o in tests]
    report = messages.ChildReport(tests=results, evidence=["f"], unfollowed=unfollowed)
    return outcome_of(messages.ChildEnded(False, 1, report, None))


def test_a_pass_next_to_an_unfollowed_process_is_an_error_naming_it():
    """Issue 8 §A5 point 4: `python -S` in a test ran the original code; a pass proves
    nothing, even with evidence from the test's own process."""
    why = "started `python -S -c ...`: Python with -S (no site) cannot load the bootstrap"
    status, reason = decide(UNNAMED, _ended(("t.py::a", PASS), unfollowed={"t.py::a": why}))
    assert status is Status.ERROR
    assert why in reason
    assert "proves nothing" in reason


def test_a_kill_next_to_an_unfollowed_process_still_counts():
    """The failing test is the mutant's doing (the control run confirms it), whatever
    another process ran."""
    ended = _ended(("t.py::a", FAIL), unfollowed={"t.py::a": "started `python -I`"})
    assert decide(UNNAMED, ended)[0] is Status.CAUGHT
    assert needs_control(ended)


def test_a_fresh_runs_log_starts_after_pytests_session_header():
    """Issue 24 (smaller): mutant logs began with pytest's session header (platform,
    rootdir, plugins), the same for every mutant, before what its tests did."""
    output = "\n".join(
        [
            "============================= test session starts ==============================",
            "platform linux -- Python 3.11.7, pytest-9.2.0, pluggy-1.6.0",
            "rootdir: /tmp/project",
            "plugins: hypothesis-6.170.17",
            "collected 5 items / 3 deselected / 2 selected",
            "",
            "tests/test_x.py F",
            "guardcheck: final teardown raised OSError: gone",
        ]
    )
    assert without_session_header(output) == (
        "tests/test_x.py F\nguardcheck: final teardown raised OSError: gone"
    )
    assert without_session_header("no header here") == "no header here"


def test_a_checkpoint_run_that_ends_before_its_mutant_is_in_place_is_an_error_not_a_kill():
    """Issue 22 (checkpoints): a run forked at a checkpoint that dies before it has put its
    mutant in place (its spec unreadable, its log not writable) ends like a crash with no
    test running; counted as the mutant's crash, it was `caught`."""
    ended = messages.ChildEnded(False, 1, None, None, exit="exit code 3")
    assert decide(UNNAMED, outcome_of(ended))[0] is Status.CAUGHT  # a fresh run's crash
    status, reason = decide(UNNAMED, before_in_place(ended, outcome_of(ended)))
    assert status is Status.ERROR
    assert reason == (
        "a run forked at a checkpoint ended before its mutant was in place: exit code 3"
    )


def test_a_checkpoint_run_with_a_report_or_a_timeout_keeps_its_outcome():
    report = messages.ChildReport(collect_errors=["t.py: E   boom"], evidence=["f"])
    crashed = messages.ChildEnded(False, 1, report, None)
    assert before_in_place(crashed, outcome_of(crashed)) == outcome_of(crashed)
    hung = messages.ChildEnded(False, 1, None, None, timed_out=5.0)
    assert before_in_place(hung, outcome_of(hung)) == outcome_of(hung)
