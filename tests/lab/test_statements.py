"""lab/prepare/statements.py: the statements a change is in, as the lines a tracer sees.

A mutant of a function that ran at import or collection keeps the fork path only
when none of these lines ran then, so an answer too narrow would let the original's
collection-time results stand in for the mutant's. Each case says why its answer is
safe.
"""

from __future__ import annotations

import sys
import textwrap

import pytest

from guardcheck.lab.prepare.statements import any_line_ran, changed_statements

SOURCE = textwrap.dedent(
    """\
    import functools


    def parse(text, unit=1):
        '''Docstring.'''
        if text.endswith("km"):
            value = int(
                text[:-2]
            ) * 1000
        elif text:
            value = int(text)
        else:
            value = 0
        if 0:
            value = -1
        try:
            return value * unit
        except (TypeError, ValueError):
            return None


    @functools.lru_cache
    def cached(x):
        return x
    """
)


def statements(find: str, replace: str) -> tuple[tuple[int, int], ...] | None:
    assert SOURCE.count(find) == 1, find
    return changed_statements(SOURCE, SOURCE.replace(find, replace), None)


@pytest.mark.parametrize(
    ("find", "replace", "lines"),
    [
        # A change on the middle line of a three-line statement: the whole statement,
        # whose first line the tracer sees whenever it runs.
        ("text[:-2]", "text[:-3]", ((7, 9),)),
        # An `elif` test: the nested `if` it is, down to its `else` (line 10 runs
        # whenever any of them does).
        ("elif text:", "elif not text:", ((10, 13),)),
        # A header: the whole compound statement, body included.
        ('if text.endswith("km")', 'if text.endswith("m")', ((6, 13),)),
        # An `except` clause runs only after its `try` body started: the whole `try`.
        ("(TypeError, ValueError)", "(TypeError,)", ((16, 19),)),
        # A default value belongs to the `def`, which runs at import: the whole def.
        ("unit=1", "unit=2", ((4, 19),)),
        # A decorator runs with its def: from the decorator's line.
        ("@functools.lru_cache\n", "@functools.cache\n", ((22, 24),)),
    ],
)
def test_a_change_is_located_in_the_statements_a_tracer_sees_run(find, replace, lines):
    assert statements(find, replace) == lines


def test_a_docstring_has_no_code_so_is_unknown():
    """A docstring is never seen to run, even when its function ran at import: unknown
    (None), which keeps such a mutant fresh."""
    assert statements("'''Docstring.'''", "'''Other.'''") is None


def test_a_statement_the_compiler_folds_away_is_never_said_not_to_have_run():
    """Regression guard: `if 0:` may leave no instruction of its body, so "none of its
    lines ran" could hold even when its function ran at import and `if 1:` would have
    run the body. Traced here: the answer is unknown, or lines that ran."""
    found = statements("if 0:\n        value = -1", "if 1:\n        value = -1")
    namespace: dict[str, object] = {}
    exec(compile(SOURCE, "<source>", "exec"), namespace)
    executed: set[int] = set()

    def trace(frame, event, arg):
        if frame.f_code.co_filename == "<source>":
            executed.add(frame.f_lineno)
        return trace

    previous = sys.gettrace()
    sys.settrace(trace)
    try:
        namespace["parse"]("3")  # type: ignore[operator]
    finally:
        sys.settrace(previous)
    assert 6 in executed  # the trace works: parse ran
    assert found is None or any_line_ran(found, executed)


def test_a_statement_inserted_between_others_is_unknown():
    """An inserted statement runs wherever the code around it runs, which its empty
    original span cannot say."""
    inserted = SOURCE.replace("        try:\n", "        value += 1\n        try:\n")
    assert changed_statements(SOURCE, inserted, None) is None


def test_the_edits_own_region_is_used_when_it_gives_one():
    start = SOURCE.index("int(text)")
    mutated = SOURCE[:start] + "float(text)" + SOURCE[start + len("int(text)") :]
    assert changed_statements(SOURCE, mutated, (start, start + len("int(text)"))) == ((11, 11),)


def test_any_line_ran_looks_at_every_line_of_every_statement():
    assert any_line_ran(((7, 9), (11, 11)), {8})
    assert any_line_ran(((7, 9), (11, 11)), [11])
    assert not any_line_ran(((7, 9), (11, 11)), {6, 10, 12})
