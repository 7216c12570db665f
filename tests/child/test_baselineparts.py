"""child/baselineparts.py: splitting the baseline by test file, and merging its parts."""

from __future__ import annotations

from guardcheck import messages
from guardcheck.child.baselineparts import clean, merge, split_by_file
from guardcheck.model import TestOutcome, TestResult


def test_files_stay_whole_and_in_order_and_go_to_the_emptiest_part():
    items = ["a1", "a2", "a3", "b1", "c1", "c2"]
    files = ["a", "a", "a", "b", "c", "c"]
    assert split_by_file(items, files, 2) == [["a1", "a2", "a3"], ["b1", "c1", "c2"]]
    assert split_by_file(items, files, 5) == [["a1", "a2", "a3"], ["b1"], ["c1", "c2"]]


def test_one_file_or_one_worker_is_a_single_part():
    assert split_by_file(["a1", "a2"], ["a", "a"], 4) == [["a1", "a2"]]
    assert split_by_file(["a1", "b1"], ["a", "b"], 1) == [["a1", "b1"]]


def part(tests: list[TestResult], coverage: dict, **ended: object) -> messages.ChildEnded:
    report = messages.ChildReport(
        tests=tests, coverage=coverage, spawners=[t.nodeid for t in tests]
    )
    fields: dict = {"baseline": True, "key": 1, "report": report, "current": None, **ended}
    return messages.ChildEnded(**fields)


PASS = TestOutcome.PASSED


def test_merging_puts_tests_in_collection_order_and_unites_each_lines_tests():
    first = part([TestResult("t::b", PASS, 0.2)], {"m.py": {"1": [1], "2": [1]}})
    second = part([TestResult("t::a", PASS, 0.1)], {"m.py": {"1": [0]}, "n.py": {"5": [0]}})
    merged = merge([first, second], {"t::a": 0, "t::b": 1})
    assert merged.report is not None
    assert [t.nodeid for t in merged.report.tests] == ["t::a", "t::b"]
    assert merged.report.coverage == {"m.py": {"1": [0, 1], "2": [1]}, "n.py": {"5": [0]}}
    assert merged.report.spawners == ["t::a", "t::b"]
    assert (merged.baseline, merged.key, merged.timed_out, merged.exit) == (True, 1, None, None)


def test_a_red_crashed_timed_out_or_silent_part_is_not_clean():
    good = part([TestResult("t::a", PASS, 0.1)], {})
    red = part([TestResult("t::b", TestOutcome.FAILED, 0.1, "boom")], {})
    errored = part([TestResult("t::c", TestOutcome.ERROR, 0.1, "setup")], {})
    timed_out = part([TestResult("t::d", PASS, 0.1)], {}, timed_out=5.0)
    silent = messages.ChildEnded(True, 1, None, "t::e", exit="SIGSEGV")
    crashed = messages.ChildEnded(True, 1, messages.ChildReport(crash="KeyError: x"), None)
    assert clean([good, good])
    for bad in (red, errored, timed_out, silent, crashed):
        assert not clean([good, bad])


def test_a_read_is_through_linecache_only_if_no_part_saw_it_read_otherwise():
    """Each part says which of its tests read a file only through linecache; a test
    another part reports as reading it otherwise (a plugin's group shares its reads)
    needs the run on disk after all."""

    def reads(source: dict, cached: dict) -> messages.ChildEnded:
        report = messages.ChildReport(
            tests=[], coverage={}, source_reads=source, linecache_reads=cached
        )
        return messages.ChildEnded(baseline=True, key=1, report=report, current=None)

    first = reads({"m.py": ["t::a", "t::b"]}, {"m.py": ["t::a"]})
    second = reads({"m.py": ["t::a", "t::c"], "n.py": ["t::c"]}, {"m.py": ["t::c"]})
    merged = merge([first, second], {})
    assert merged.report is not None
    assert merged.report.source_reads == {"m.py": ["t::a", "t::b", "t::c"], "n.py": ["t::c"]}
    assert merged.report.linecache_reads == {"m.py": ["t::c"]}
