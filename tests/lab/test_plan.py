"""Test selection (plan.py): a pure function, no processes (verdicts: test_verdict.py)."""

from __future__ import annotations

import dataclasses
import textwrap

import pytest

from guardcheck.lab.execute.scheduler import (
    FURTHER_MIN_SELECTION,
    FURTHER_SHARE,
    PROBE_TESTS,
    further_probe,
    probe_plan,
)
from guardcheck.lab.plan import EarlyResult, RunPlan, killers_first, plan_mutant
from guardcheck.model import (
    BaselineTest,
    FileChange,
    Mutant,
    Status,
    Where,
)

SOURCE = textwrap.dedent(
    """\
    def add(a, b):
        return a + b


    def total(xs):
        return sum(
            x
            for x in xs
        )


    def joined():
        text = ("a"
                "b")
        return text


    def unused():
        return 0


    def noted(x):
        y = x + 1
        return y
        y = "dead code the compiler drops"


    def guarded(x):
        try:
            return int(x)
        except ValueError as e:
            raise TypeError(e)
    """
)

BASELINE = [
    BaselineTest("t.py::slow", 0.5, "t.py"),
    BaselineTest("t.py::fast", 0.1, "t.py"),
    BaselineTest("t.py::medium", 0.3, "t.py"),
    BaselineTest("t.py::other", 0.01, "t.py"),
]

COVERAGE = {
    "m.py": {
        2: frozenset({"t.py::slow", "t.py::fast", "t.py::medium"}),
        6: frozenset({"t.py::medium"}),  # only the first line of the multi-line statement
        13: frozenset({"t.py::fast"}),  # the joined string records its first line only...
        15: frozenset({"t.py::fast", "t.py::slow"}),
    }
}


def mutant(find: str, replace: str, killed_by: tuple[str, ...] = ()) -> Mutant:
    assert SOURCE.count(find) == 1
    change = FileChange("m.py", SOURCE, SOURCE.replace(find, replace), Where("m.py", 1))
    return Mutant("m", "m", (change,), killed_by=killed_by)


def test_covering_tests_run_fastest_first_and_every_test_gets_a_reason():
    plan = plan_mutant(mutant("a + b", "a - b"), BASELINE, COVERAGE)
    assert isinstance(plan, RunPlan)
    assert plan.tests == ("t.py::fast", "t.py::medium", "t.py::slow")
    reasons = {s.nodeid: (s.selected, s.reason) for s in plan.selection}
    assert reasons["t.py::fast"] == (True, "executes m.py:2")
    assert reasons["t.py::other"] == (False, "does not execute the mutated lines")
    assert [s.nodeid for s in plan.selection] == [t.nodeid for t in BASELINE]


def test_named_killers_come_first_in_declared_order_even_if_slow():
    killers = ("t.py::slow", "t.py::other", "t.py::not-collected")
    plan = plan_mutant(mutant("a + b", "a - b", killers), BASELINE, COVERAGE)
    assert plan.tests == ("t.py::slow", "t.py::other", "t.py::fast", "t.py::medium")
    reasons = {s.nodeid: s.reason for s in plan.selection}
    assert reasons["t.py::slow"] == "named in killed_by"
    assert reasons["t.py::other"] == "named in killed_by (does not execute the mutated lines)"


def test_a_change_on_a_later_line_of_a_statement_selects_tests_running_its_first_line():
    plan = plan_mutant(mutant("for x in xs\n", "for x in xs if x\n"), BASELINE, COVERAGE)
    assert plan.tests == ("t.py::medium",)
    assert plan.selection[2].reason == "executes m.py:6"


def test_a_statement_without_instructions_falls_back_to_its_function_and_says_so():
    """Code after a return compiles to nothing, so coverage can never record it."""
    coverage = {"m.py": {23: frozenset({"t.py::slow"}), 24: frozenset({"t.py::slow"})}}
    plan = plan_mutant(mutant('"dead code', '"XXdead code'), BASELINE, coverage)
    assert isinstance(plan, RunPlan)
    assert plan.tests == ("t.py::slow",)
    reason = {s.nodeid: s.reason for s in plan.selection}["t.py::slow"]
    assert "function-level fallback" in reason
    assert "noted" in reason


def test_a_statement_with_instructions_that_never_ran_is_no_coverage_without_a_run():
    """Regression (issue 22, speed): `raise ParseError(e)` in iso8601's unreached handler
    was taken for a line without line events, so every test of its function ran, twice
    (alone, then in module order), ~1.2 s a mutant, to reach the same `no-coverage`."""
    coverage = {"m.py": {29: frozenset({"t.py::fast"}), 30: frozenset({"t.py::fast"})}}
    plan = plan_mutant(mutant("TypeError(e)", "TypeError(None)"), BASELINE, coverage)
    assert isinstance(plan, EarlyResult)
    assert plan.status is Status.NO_COVERAGE
    assert plan.reason == "no test executes m.py:32"


def test_a_forked_change_of_a_def_line_selects_the_tests_that_run_its_body():
    """Issue 10 (speed): a new default value (lab/prepare/default_values.py) changes only the
    def line, which ran at import, in no test's context (or in the context of the test that imported
    the module first): the tests that call the function are the ones that can notice."""
    reasons = "executes m.py:add (its default values changed)"
    plan = plan_mutant(mutant("def add(a, b):", "def add(a, b=1):"), BASELINE, COVERAGE)
    assert isinstance(plan, RunPlan)
    assert set(plan.tests) == {"t.py::slow", "t.py::fast", "t.py::medium"}
    assert {s.reason for s in plan.selection if s.selected} == {reasons}
    imported_by = {"m.py": {**COVERAGE["m.py"], 1: frozenset({"t.py::other"})}}
    plan = plan_mutant(mutant("def add(a, b):", "def add(a, b=1):"), BASELINE, imported_by)
    assert set(plan.tests) == {"t.py::slow", "t.py::fast", "t.py::medium", "t.py::other"}
    assert {s.nodeid: s.reason for s in plan.selection}["t.py::other"] == "executes m.py:1"


def test_no_test_executing_the_lines_is_no_coverage_and_nothing_runs():
    plan = plan_mutant(mutant("return 0", "return 1", ("t.py::fast",)), BASELINE, COVERAGE)
    assert isinstance(plan, EarlyResult)
    assert plan.status is Status.NO_COVERAGE
    assert plan.reason == "no test executes m.py:19"
    assert not any(s.selected for s in plan.selection)
    named = {s.nodeid: s.reason for s in plan.selection}["t.py::fast"]
    assert named.startswith("named in killed_by, but")


def test_module_level_changes_select_every_test():
    """Regression (issue 8 §A3): only tests executing a line of the file were selected,
    but a test that only reads a constant executes none: a false survivor."""
    plan = plan_mutant(mutant("return 0", "return 1"), BASELINE, COVERAGE, whole_file=True)
    assert sorted(plan.tests) == sorted(t.nodeid for t in BASELINE)
    assert all(s.selected for s in plan.selection)
    assert "module-level change in m.py" in plan.selection[0].reason


def test_a_module_level_change_runs_the_likeliest_killers_first():
    """Regression (issue 10 speed): a fresh-interpreter mutant ran every test fastest
    first, so a kill by the one test using what the import built came 25th or 69th of
    184 on target_app (5 s a mutant instead of 1 s). Executors of the mutated
    statement come first, then tests executing anything in the file, then the rest."""
    plan = plan_mutant(
        mutant("for x in xs", "for x in xs[1:]"), BASELINE, COVERAGE, whole_file=True
    )
    assert plan.tests == ("t.py::medium", "t.py::fast", "t.py::slow", "t.py::other")
    untouched = plan_mutant(mutant("return 0", "return 1"), BASELINE, COVERAGE, whole_file=True)
    assert untouched.tests == ("t.py::fast", "t.py::medium", "t.py::slow", "t.py::other")


def test_a_module_level_change_in_a_file_no_test_executes_is_still_run():
    """Regression (issue 8 §A3): a constants-only module gave no-coverage even with
    its reader named in killed_by."""
    plan = plan_mutant(
        mutant("return 0", "return 1", ("t.py::other",)), BASELINE, {}, whole_file=True
    )
    assert isinstance(plan, RunPlan)
    assert plan.tests[0] == "t.py::other"


def test_timeout_is_factor_times_selected_baseline_time_plus_constant():
    plan = plan_mutant(
        mutant("a + b", "a - b"), BASELINE, COVERAGE, timeout_factor=3.0, timeout_constant=1.0
    )
    assert plan.timeout == pytest.approx(3.0 * (0.1 + 0.3 + 0.5) + 1.0)


# --- killed_by ids that stand for several collected tests ----------------------

PARAMETRIZED = [
    BaselineTest("t.py::test_add[1]", 0.2, "t.py"),
    BaselineTest("t.py::test_add[2]", 0.1, "t.py"),
    BaselineTest("t.py::TestAdd::test_one", 0.3, "t.py"),
    BaselineTest("t.py::test_adder", 0.01, "t.py"),
]
PARAMETRIZED_COVERAGE = {"m.py": {2: frozenset(t.nodeid for t in PARAMETRIZED)}}


def test_a_parametrized_or_class_killer_selects_every_test_it_stands_for_first():
    """Regression: `killed_by` accepted by validation (a class, a test without its
    `[...]`) was matched by exact id only, so the planner never ran it first."""
    killers = ("t.py::TestAdd", "t.py::test_add")
    plan = plan_mutant(mutant("a + b", "a - b", killers), PARAMETRIZED, PARAMETRIZED_COVERAGE)
    assert plan.tests == (
        "t.py::TestAdd::test_one",
        "t.py::test_add[1]",
        "t.py::test_add[2]",
        "t.py::test_adder",  # a longer name sharing the prefix is not a named killer
    )
    reasons = {s.nodeid: s.reason for s in plan.selection}
    assert reasons["t.py::test_add[2]"] == "named in killed_by"
    assert reasons["t.py::test_adder"] == "executes m.py:2"


def test_every_killed_by_test_must_run_before_stopping_but_killed_by_any_need_not():
    """Regression (issue 9 §3): the child stopped at the first failing named killer,
    so a second named killer that passes against the mutant was never seen."""
    change = FileChange("m.py", SOURCE, SOURCE.replace("a + b", "a - b"), Where("m.py", 1))
    both = Mutant(
        "m", "m", (change,), killed_by=("t.py::slow",), killed_by_any=("t.py::fast", "t.py::other")
    )
    plan = plan_mutant(both, BASELINE, COVERAGE)
    assert isinstance(plan, RunPlan)
    assert plan.must_run == ("t.py::slow",)
    assert plan.tests[:3] == ("t.py::slow", "t.py::fast", "t.py::other")


def test_tests_that_killed_neighbouring_mutants_move_ahead_by_time_per_kill():
    """Regression (issue 10 speed): 210 of 610 kills on target_app came after passing
    tests (12.7 worker-s of them) that tests killing the file's other mutants beat."""
    killers = ("t.py::slow",)
    plan = plan_mutant(mutant("a + b", "a - b", killers), BASELINE, COVERAGE)
    assert plan.tests == ("t.py::slow", "t.py::fast", "t.py::medium")
    durations = {t.nodeid: t.duration for t in BASELINE}
    # medium: 0.3 s / (8 + 1/2) beats fast: 0.1 s / (0 + 1/2); the named killer stays first.
    moved = killers_first(plan, {"t.py::medium": 8, "t.py::slow": 9}, durations)
    assert moved.tests == ("t.py::slow", "t.py::medium", "t.py::fast")
    assert moved.selection == plan.selection
    assert moved.timeout == plan.timeout
    # One kill does not make a test five times slower worth running first.
    once = killers_first(plan, {"t.py::medium": 1}, {**durations, "t.py::medium": 0.5})
    assert once.tests == ("t.py::slow", "t.py::fast", "t.py::medium")
    assert killers_first(plan, {}, durations) == plan


def test_tests_that_killed_a_mutant_on_the_same_line_go_first_however_slow():
    """Regression (issue 10 speed): on target_app, `check_same_thread=False` had two
    mutants on one line, both killed only by a slow threaded test; the second still ran
    73 faster tests before it (2.3-2.8 s each) because the file's kill counts diluted it."""
    plan = plan_mutant(mutant("a + b", "a - b"), BASELINE, COVERAGE)
    durations = {t.nodeid: t.duration for t in BASELINE}
    assert plan.tests[0] == "t.py::fast"
    ordered = killers_first(plan, {"t.py::fast": 5}, durations, nearby={"t.py::slow"})
    assert ordered.tests[0] == "t.py::slow"
    assert set(ordered.tests) == set(plan.tests)
    assert ordered.selection == plan.selection
    # With no kills anywhere yet, a same-line killer alone reorders.
    assert killers_first(plan, {}, durations, nearby={"t.py::slow"}).tests[0] == "t.py::slow"


def test_tests_that_read_the_mutated_file_go_last_with_or_without_history():
    """Regression (issue 22 speed): on inflect a probe with no kills yet ran a doctest
    of the mutated module first; its read of the file sent each of six mutants to a
    55 s run on disk, where a unit test later in the selection kills them in memory."""
    base = plan_mutant(mutant("a + b", "a - b"), BASELINE, COVERAGE)
    plan = dataclasses.replace(base, readers=("t.py::fast",))
    durations = {t.nodeid: t.duration for t in BASELINE}
    assert plan.tests[0] == "t.py::fast"
    unranked = killers_first(plan, {}, durations)
    assert unranked.tests == (*[t for t in plan.tests if t != "t.py::fast"], "t.py::fast")
    # Even the likeliest killer by history waits for the tests that do not read the file.
    ranked = killers_first(plan, {"t.py::fast": 9}, durations, nearby={"t.py::fast"})
    assert ranked.tests[-1] == "t.py::fast"
    assert set(ranked.tests) == set(plan.tests)
    assert killers_first(base, {}, durations) == base  # no readers, no history: as planned


def test_a_fresh_mutant_whose_code_ran_collecting_one_file_selects_that_files_tests():
    """Issue 22 (speed): such a mutant selected every test of the suite; the tests of the
    files whose collection ran it, and those that execute it, are the ones that can tell."""
    baseline = [*BASELINE, BaselineTest("u.py::elsewhere", 0.2, "u.py")]
    plan = plan_mutant(mutant("return 0", "return 1"), baseline, COVERAGE, collected_in=["u.py"])
    assert isinstance(plan, RunPlan)
    assert plan.tests == ("u.py::elsewhere",)
    reasons = {s.nodeid: s.reason for s in plan.selection}
    assert reasons["u.py::elsewhere"] == "in u.py, whose collection ran the changed code"
    plan = plan_mutant(mutant("a + b", "a - b"), baseline, COVERAGE, collected_in=["u.py"])
    assert isinstance(plan, RunPlan)
    assert set(plan.tests) == {"u.py::elsewhere", "t.py::fast", "t.py::medium", "t.py::slow"}


def test_a_probe_is_the_first_tests_with_every_named_killer_held():
    """scheduler.probe_plan: a forked mutant's first run; the rest runs only after a pass."""
    tests = tuple(f"t.py::t{i}" for i in range(12))
    plan = RunPlan(mutant("a + b", "a - b"), tests, (), 1.0, must_run=("t.py::t11",))
    probe, selected = probe_plan(plan)
    assert probe.tests == (*tests[:PROBE_TESTS], "t.py::t11")
    assert selected == tests
    assert probe_plan(dataclasses.replace(plan, tests=tests[:PROBE_TESTS])) == (
        dataclasses.replace(plan, tests=tests[:PROBE_TESTS]),
        (),
    )


def test_a_fresh_probe_runs_the_first_tests_that_fit_in_its_budget():
    """scheduler.probe_plan with a budget (a fresh mutant's: what a second run costs to
    start): the first tests whose baseline seconds add up to at most the budget, and
    never fewer than a forked probe's."""
    tests = tuple(f"t.py::t{i}" for i in range(20))
    durations = {t: 0.25 for t in tests}
    plan = RunPlan(mutant("a + b", "a - b"), tests, (), 1.0)
    probe, selected = probe_plan(plan, durations, budget=3.0)
    assert probe.tests == tests[:12]
    assert selected == tests
    assert probe_plan(plan, durations, budget=1.0)[0].tests == tests[:PROBE_TESTS]
    assert probe_plan(plan, durations, budget=5.0) == (plan, ())


def test_a_second_fork_probe_runs_the_next_killers_within_a_share_of_the_selection():
    """scheduler.further_probe: after a first probe that killed nothing, the next
    likeliest killers whose baseline seconds fit in FURTHER_SHARE of the selection's
    (packaging: forked kills came after 7,000-10,000 tests in the suite's order, once
    the first 8 missed); none when that is too few tests to be worth a run, or all
    that is left."""
    selected = tuple(f"t.py::t{i}" for i in range(400))
    durations = {t: 0.25 for t in selected}  # 100 s in all: a 10 s second probe
    rest = selected[PROBE_TESTS:][::-1]  # in the order the likeliest-killer rule gives
    probe = further_probe(selected, rest, durations)
    assert probe == rest[: round(FURTHER_SHARE * 400)]
    assert further_probe(selected[:60], selected[PROBE_TESTS:60], durations) == ()  # 6 tests
    few = selected[:200]
    assert further_probe(few, few[190:], durations) == ()  # the rest fits: the suite runs it
    # A small selection runs in the suite's order at once (iso8601: 47 tests), even
    # where its fast tests would fit the share (its last test is slow).

    def last_slow(tests: tuple[str, ...]) -> dict[str, float]:
        return {t: 0.25 for t in tests} | {tests[-1]: 300.0}

    small = selected[: FURTHER_MIN_SELECTION - 1]
    assert further_probe(small, small[PROBE_TESTS:], last_slow(small)) == ()
    enough = selected[:FURTHER_MIN_SELECTION]
    probe = further_probe(enough, enough[PROBE_TESTS:], last_slow(enough))
    assert probe == enough[PROBE_TESTS:-1]


def test_tests_that_only_enter_the_function_around_a_changed_line_follow_its_testers():
    """Regression (issue 22, isodate 0.7.2 `build_date_regexps`): a line that fills a
    cache on a miss ran only in the first test to call its function; the later tests
    that read the cached value were not selected, so a mutant there `survived` in one
    collection order and was caught in another, while by hand it is always caught."""
    plan = plan_mutant(mutant('("a"', '("c"'), BASELINE, COVERAGE)
    assert isinstance(plan, RunPlan)
    assert plan.tests == ("t.py::fast", "t.py::slow")
    reasons = {s.nodeid: s.reason for s in plan.selection}
    assert reasons["t.py::fast"] == "executes m.py:13"
    assert reasons["t.py::slow"] == "enters m.py:joined, which may keep what line 13 computed"
    assert reasons["t.py::medium"] == "does not execute the mutated lines"


MEMOIZED = textwrap.dedent(
    """\
    import functools


    @functools.lru_cache(maxsize=None)
    def table():
        return {"a": 1}


    def lookup(key):
        return table()[key]
    """
)


def test_a_line_under_a_memoizing_decorator_selects_every_test_after_its_own():
    """A call answered from `lru_cache` runs no line of the function: the tests that
    read the cached table after the first call executed nothing of it."""
    change = FileChange("c.py", MEMOIZED, MEMOIZED.replace('"a": 1', '"a": 2'), Where("c.py", 1))
    coverage = {"c.py": {6: frozenset({"t.py::medium"}), 10: frozenset({"t.py::fast"})}}
    plan = plan_mutant(Mutant("m", "m", (change,)), BASELINE, coverage)
    assert isinstance(plan, RunPlan)
    assert plan.tests[0] == "t.py::medium"
    assert sorted(plan.tests) == sorted(t.nodeid for t in BASELINE)
    reasons = {s.nodeid: s.reason for s in plan.selection}
    assert reasons["t.py::medium"] == "executes c.py:6"
    assert reasons["t.py::fast"] == "may call c.py:table, whose cache keeps what line 6 computed"


def test_a_reader_through_linecache_is_selected_but_is_not_sent_to_a_run_on_disk():
    """Regression (jinja2 3.1.4): a test whose traceback quoted m.py in the baseline read
    it through linecache; its passes went to a run with the file on disk. A mutant's run
    has the mutated text in linecache, so the reader is selected and its pass stands."""
    readers = {"m.py": {"t.py::other": "read m.py from disk in the baseline"}}
    change = mutant("a + b", "a - b")
    plan = plan_mutant(change, BASELINE, COVERAGE, readers=readers)
    assert isinstance(plan, RunPlan)
    assert "t.py::other" in plan.tests
    assert plan.readers == ("t.py::other",)
    cached = plan_mutant(
        change, BASELINE, COVERAGE, readers=readers, cached_readers={"m.py": {"t.py::other"}}
    )
    assert isinstance(cached, RunPlan)
    assert cached.tests == plan.tests
    assert cached.readers == ()
