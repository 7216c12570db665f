"""`case` clauses of a `match` statement as `find`/`replace` patterns (issue 24 point 8).

A `case` clause (its pattern, its guard, optionally its body) is a clause pattern like
`except KeyError:`; `$NAME` alone stands for any case pattern, and as a capture for the
name it binds, so a guard can use it.
"""

from __future__ import annotations

import pytest
from support.projects import commit, write_files
from support.verdicts import guardcheck, guardcheck_run, suite_outcomes

from guardcheck.edit.engine import EditFailure, apply_edit
from guardcheck.edit.pattern import PatternError, parse_pattern
from guardcheck.model import Edit

ROUTE = """\
def route(event):
    match event:
        case {"kind": "retry", "after": delay} if delay > 0:  # back off
            wait(delay)
        case ("get", url):
            return get(url)
        case (Stop() | None):
            return None
        case _:
            log("unknown", event)
"""


def apply(find: str, replace: str, source: str = ROUTE, **kwargs: object) -> str:
    edit = Edit(file="m.py", find=find, replace=replace, **kwargs)  # type: ignore[arg-type]
    return apply_edit(source, edit).mutated


def failure(find: str, replace: str, source: str = ROUTE) -> EditFailure:
    with pytest.raises(EditFailure) as caught:
        apply(find, replace, source)
    return caught.value


@pytest.mark.parametrize(
    ("find", "replace", "old", "new"),
    [
        # The guard's comparison, with the capture bound to a metavariable.
        (
            'case {"kind": "retry", "after": $D} if $D > 0:',
            'case {"kind": "retry", "after": $D} if $D >= 0:',
            "if delay > 0:",
            "if delay >= 0:",
        ),
        # The guard dropped: the pattern, the comment and the body stay as written.
        ("case $P if $G:", "case $P:", " if delay > 0:  # back off", ":  # back off"),
        # A guard added to a case that had none (the pattern's parentheses kept).
        (
            "case (Stop() | None):",
            "case (Stop() | None) if event.urgent:",
            "case (Stop() | None):",
            "case (Stop() | None) if event.urgent:",
        ),
        # One literal of the pattern.
        ('case ("get", $U):', 'case ("post", $U):', '("get", url)', '("post", url)'),
        # One alternative of an or-pattern dropped.
        ("case (Stop() | None):", "case (Stop()):", "(Stop() | None)", "(Stop())"),
        # The wildcard case narrowed.
        ("case _:", "case None:", "case _:", "case None:"),
        # The body of a case, with its header written out.
        (
            'case ("get", url):\n    return get(url)',
            'case ("get", url):\n    return None',
            "return get(url)",
            "return None",
        ),
        # The body of any guarded case, through a body wildcard.
        (
            "case $P if $G:\n    $$$BODY",
            "case $P if $G:\n    pass",
            "            wait(delay)\n",
            "            pass\n",
        ),
    ],
)
def test_case_clauses_find_and_replace(find, replace, old, new):
    assert ROUTE.count(old) == 1
    assert apply(find, replace) == ROUTE.replace(old, new)


SEQUENCES = """\
def f(e):
    match e:
        case ["get", url, *rest]:
            a()
        case [1, 2]:
            b()
"""


@pytest.mark.parametrize(
    ("find", "replace", "old", "new"),
    [
        ('case ["get", $$$REST]:', 'case ["post", $$$REST]:', '["get", url', '["post", url'),
        ("case [1, $$$R]:", "case [$$$R]:", "[1, 2]", "[2]"),
        ("case [$$$A, 2]:", "case [$$$A, 3]:", "[1, 2]", "[1, 3]"),
    ],
)
def test_a_sequence_wildcard_stands_for_items_of_a_sequence_pattern(find, replace, old, new):
    assert apply(find, replace, SEQUENCES) == SEQUENCES.replace(old, new)


def test_a_pattern_metavariable_matches_any_pattern_so_a_lone_one_is_ambiguous():
    error = failure("case $P:", "case [$P]:")
    assert error.kind == "ambiguous"
    assert "lines 5, 7, 9" in error.message  # the three cases without a guard


def test_a_case_that_is_not_there_is_stale_with_the_nearest_cases():
    error = failure('case ("put", url):', 'case ("post", url):')
    assert error.kind == "stale"
    assert any('case ("get", url):' in line for line in error.details)


def test_a_case_only_becomes_a_case():
    error = failure('case ("get", url):', "except KeyError:")
    assert error.kind == "pattern"
    assert "same kind of clause" in error.message
    assert "`case`" in error.message


def test_a_pattern_metavariable_cannot_become_an_expression():
    error = failure("case $P:\n    return None", "case $P if $P.urgent:\n    return None")
    assert error.kind == "pattern"
    assert "uses $P as an expression, but in `find` it matched a case pattern" in error.message


def test_cases_are_matched_inside_a_scope_and_a_method():
    source = (
        "class R:\n    def go(self, e):\n        match e:\n"
        "            case 1:\n                a()\n"
    )
    assert apply("case 1:", "case 2:", source, scope="R.go") == source.replace("case 1", "case 2")


@pytest.mark.parametrize("text", ["case = 1", "case(x)", "case.attr = f(case)"])
def test_case_as_a_name_is_code_not_a_clause(text):
    """`case` is a soft keyword: code that uses it as a name still parses as code."""
    assert parse_pattern(text).kind in ("statements", "expression")


def test_two_cases_in_one_pattern_are_refused_with_the_form_to_use():
    with pytest.raises(PatternError) as refused:
        parse_pattern("case 1:\n    a()\ncase 2:\n    b()")
    assert "write exactly one `case` clause" in str(refused.value)


CATALOGUE = """\
[[mutation]]
id = "retry-at-zero"
summary = "Retries with no delay."
file = "pkg/route.py"
find = 'case {"kind": "retry", "after": $D} if $D > 0:'
replace = 'case {"kind": "retry", "after": $D} if $D >= 0:'

[[mutation]]
id = "retry-unguarded"
summary = "The guard is gone."
file = "pkg/route.py"
find = "case $P if $G:"
replace = "case $P:"

[[mutation]]
id = "get-as-post"
summary = "Another verb."
file = "pkg/route.py"
find = 'case ("get", $U):'
replace = 'case ("post", $U):'
"""

PROJECT = {
    "pkg/__init__.py": "",
    "pkg/route.py": (
        "def route(event):\n    match event:\n"
        '        case {"kind": "retry", "after": delay} if delay > 0:\n'
        '            return "wait"\n'
        '        case ("get", url):\n            return "get " + url\n'
        '        case _:\n            return "unknown"\n'
    ),
    "tests/test_route.py": (
        "from pkg.route import route\n\n\ndef test_retry():\n"
        '    assert route({"kind": "retry", "after": 5}) == "wait"\n'
        '    assert route({"kind": "retry", "after": 0}) == "unknown"\n'
    ),
    "mutations/m.toml": CATALOGUE,
    "pyproject.toml": '[tool.guardcheck]\nsource = ["pkg"]\ntests = ["tests"]\n',
}


@pytest.mark.slow
def test_case_entries_run_with_the_verdicts_of_the_mutants_applied_by_hand(tmp_path):
    root = commit(write_files(tmp_path / "project", PROJECT))
    _, mutants = guardcheck_run(root, tmp_path / "run.json")
    ran = {i: m["status"] == "Killed" for i, m in mutants.items()}
    by_hand = {}
    for entry in ran:
        applied = guardcheck(root, "apply", entry)
        assert applied.returncode == 0, applied.stderr
        by_hand[entry] = "failed" in suite_outcomes(root).values()
        assert guardcheck(root, "apply", "--revert", entry).returncode == 0
    assert ran == by_hand
    # The boundary test catches both guard mutants; no test sends a "get".
    assert ran == {"retry-at-zero": True, "retry-unguarded": True, "get-as-post": False}
