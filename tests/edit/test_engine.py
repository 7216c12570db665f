"""apply_edit: finding, choosing and rewriting one place in a module."""

from __future__ import annotations

import ast
import io
import textwrap
import tokenize

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guardcheck.edit.engine import EditFailure, apply_edit
from guardcheck.model import Edit, Where

RUN = textwrap.dedent(
    """\
    import time

    _CAP = 3600  # seconds


    def cooldown_for_failure(base, streak):
        # The ladder doubles per consecutive failure.
        multiplier = 2 ** (streak - 1)
        return min(base *  multiplier,   _CAP)


    class Runner:
        def __init__(self):
            self.streak = {}

        def on_success(self, key, before, after):
            if compaction_recovered(before, after):
                self.streak.pop(key, None)
                log("reset", key)
            return None

        async def on_failure(self, key):
            streak = self.streak.get(key, 0) + 1
            self.streak[key] = streak
            await self.sleep(cooldown_for_failure(60,
                                                  streak))

            def describe():
                return f"{key}: {streak}"

            return describe
    """
)


def edit(find: str = "", replace: str = "", **kwargs: object) -> Edit:
    return Edit(file="pkg/run.py", find=find, replace=replace, **kwargs)  # type: ignore[arg-type]


def apply(source: str, find: str, replace: str = "", **kwargs: object) -> str:
    return apply_edit(source, edit(find, replace, **kwargs))[0]


def failure(source: str, find: str, replace: str = "", **kwargs: object) -> EditFailure:
    with pytest.raises(EditFailure) as caught:
        apply_edit(source, edit(find, replace, **kwargs))
    return caught.value


def offset(source: str, line: int, column: int) -> int:
    lines = source.splitlines(keepends=True)
    return sum(len(text) for text in lines[: line - 1]) + column - 1


def assert_spliced(source: str, mutated: str, where: Where, new_text: str) -> None:
    """Everything outside the reported span is byte-for-byte the original."""
    assert where.end_line is not None
    assert where.end_column is not None
    start = offset(source, where.line, where.column)
    end = offset(source, where.end_line, where.end_column)
    assert mutated == source[:start] + new_text + source[end:]


# --- expressions -----------------------------------------------------------------------------


def test_an_expression_is_replaced_in_place_and_nothing_else_changes():
    mutated, where, splice = apply_edit(RUN, edit("min($B * $M, _CAP)", "min($B, _CAP)"))
    assert where == Where("pkg/run.py", 9, 12, 9, 43)
    # Only the argument that differs is spliced: the spacing around `_CAP` stays.
    assert_spliced(RUN, mutated, where, "min(base,   _CAP)")
    assert RUN[splice.start : splice.end] == "base *  multiplier"
    assert splice.replacement == "base"


def test_the_replacement_keeps_the_matched_code_formatting():
    mutated = apply(RUN, "min($B * $M, _CAP)", "$B *  $M")
    assert "    return base *  multiplier\n" in mutated


def test_parentheses_around_the_match_are_kept():
    source = "y = (a + b) * c\n"
    assert apply(source, "a + b", "a - b") == "y = (a - b) * c\n"


def test_a_replacement_is_parenthesised_when_its_new_place_needs_it():
    source = "y = abs(a + b) * c\n"
    assert apply(source, "abs($X)", "$X") == "y = (a + b) * c\n"


def test_a_call_with_ellipsis_matches_any_arguments():
    mutated = apply(RUN, "self.sleep(...)", "self.sleep(0)", scope="Runner.on_failure")
    assert "        await self.sleep(0)\n\n" in mutated


def test_a_repeated_metavariable_must_match_equal_code():
    source = "ok = x.size == x.size\nbad = x.size == y.size\n"
    assert apply(source, "$A == $A", "True") == "ok = True\nbad = x.size == y.size\n"


def test_a_mismatched_repeat_is_stale():
    source = "bad = x.size == y.size\n"
    assert failure(source, "$A == $A", "True").kind == "stale"


def test_names_that_are_not_expressions_are_not_matched():
    source = "def streak(streak):\n    return obj.streak(k=streak)\n"
    # Only the parameter use inside the call; not the def name, param, attribute or keyword.
    mutated = apply(source, "streak", "0")
    assert mutated == "def streak(streak):\n    return obj.streak(k=0)\n"


# --- statements and blocks -------------------------------------------------------------------


def test_a_statement_is_replaced_at_the_blocks_indentation():
    mutated = apply(RUN, "self.streak[$K] = $V", "self.streak[$K] = 1\nself.sleep_more()")
    assert "        self.streak[key] = 1\n        self.sleep_more()\n" in mutated


def test_several_statements_match_consecutively():
    find = "streak = self.streak.get(...) + 1\nself.streak[key] = streak"
    mutated, where, _ = apply_edit(RUN, edit(find, "streak = 1"))
    assert (where.line, where.end_line) == (23, 24)
    assert "        streak = 1\n        await self.sleep" in mutated


def test_a_block_pattern_matches_the_whole_block():
    find = "if compaction_recovered(...):\n    ..."
    mutated, where, _ = apply_edit(RUN, edit(find, "self.streak.pop(key, None)"))
    assert (where.line, where.end_line) == (17, 19)
    assert "    def on_success(self, key, before, after):\n" in mutated
    assert "        self.streak.pop(key, None)\n        return None\n" in mutated
    assert "compaction_recovered" not in mutated


def test_a_block_may_be_replaced_by_another_block():
    find = "if compaction_recovered($B, $A):\n    ..."
    replace = "if True:\n    self.streak.pop(key, None)"
    mutated = apply(RUN, find, replace)
    assert "        if True:\n            self.streak.pop(key, None)\n" in mutated


def test_a_statement_keeps_the_comments_above_it():
    source = "def f():\n    x = 1\n\n    # reset it\n    x = 0\n    return x\n"
    assert apply(source, "x = 0", "x = 2") == (
        "def f():\n    x = 1\n\n    # reset it\n    x = 2\n    return x\n"
    )


# --- deletion --------------------------------------------------------------------------------


def test_an_empty_replace_deletes_the_statement():
    mutated = apply(RUN, "log(...)", "")
    assert "log(" not in mutated
    assert "self.streak.pop(key, None)\n        return None" in mutated


def test_deleting_the_only_statement_of_a_block_leaves_pass():
    source = "if ready:\n    go()  # now\nnext_step()\n"
    assert apply(source, "go()") == "if ready:\n    pass\nnext_step()\n"


def test_deleting_a_whole_block_body_run_leaves_pass():
    source = "def f():\n    a()\n    b()\n"
    assert apply(source, "a()\nb()") == "def f():\n    pass\n"


def test_deleting_part_of_an_expression_is_a_pattern_error():
    error = failure(RUN, "self.streak.get(key, 0)", "")
    assert error.kind == "pattern"
    assert "pkg/run.py:23" in error.message


# --- scopes ----------------------------------------------------------------------------------


def test_scope_restricts_the_search_to_a_method():
    source = "x = 1\n\nclass A:\n    def m(self):\n        x = 1\n"
    assert apply(source, "x = 1", "x = 2", scope="A.m").endswith("        x = 2\n")
    assert apply(source, "x = 1", "x = 2", scope="A.m").startswith("x = 1\n")


def test_scope_includes_nested_functions_and_reaches_async_defs():
    mutated = apply(RUN, 'f"{key}: {streak}"', "''", scope="Runner.on_failure")
    assert "            return ''\n" in mutated


def test_a_nested_function_is_a_scope_of_its_own():
    mutated = apply(RUN, "return $X", "return None", scope="Runner.on_failure.describe")
    assert "            return None\n" in mutated


def test_scope_covers_default_arguments():
    source = "def wait(timeout=30):\n    return timeout\n"
    assert apply(source, "30", "0", scope="wait") == "def wait(timeout=0):\n    return timeout\n"


def test_an_unknown_scope_suggests_the_nearest_names():
    error = failure(RUN, "x", "y", scope="Runner.on_failur")
    assert error.kind == "scope"
    assert "`Runner.on_failur` not found in pkg/run.py" in error.message
    assert "Runner.on_failure" in error.details[0]


# --- occurrence, ambiguity, staleness --------------------------------------------------------


SOURCE_TWICE = "a = f(1)\nb = f(2)\nc = g(3)\n"


def test_several_matches_without_occurrence_are_ambiguous():
    error = failure(SOURCE_TWICE, "f($X)", "h($X)")
    assert error.kind == "ambiguous"
    assert "matches 2 places in pkg/run.py, at lines 1, 2" in error.message
    assert error.details == ("match 1: pkg/run.py:1 f(1)", "match 2: pkg/run.py:2 f(2)")
    assert "occurrence" in error.fix


def test_occurrence_picks_a_match_in_source_order():
    assert apply(SOURCE_TWICE, "f($X)", "h($X)", occurrence=2) == "a = f(1)\nb = h(2)\nc = g(3)\n"


def test_an_occurrence_beyond_the_matches_is_reported():
    error = failure(SOURCE_TWICE, "f($X)", "h($X)", occurrence=3)
    assert error.kind == "occurrence"
    assert "occurrence = 3, but `find` matches 2 places in pkg/run.py" in error.message
    assert len(error.details) == 2


def test_a_stale_find_names_the_file_scope_and_nearest_candidates():
    error = failure(RUN, "min($B * $M, CAP_SECONDS, 1)", "0", scope="cooldown_for_failure")
    assert error.kind == "stale"
    assert error.message == "`find` matches nothing in pkg/run.py (scope cooldown_for_failure)"
    assert error.details[0] == "nearest: pkg/run.py:9 min(base * multiplier, _CAP)"
    assert "delete the entry" in error.fix


def test_a_stale_statement_find_shows_statements_of_the_same_kind():
    error = failure(RUN, "self.streak[key] = streak + 1", "pass")
    assert error.kind == "stale"
    assert error.details[0] == "nearest: pkg/run.py:24 self.streak[key] = streak"


def test_a_stale_find_after_a_rename():
    renamed = RUN.replace("multiplier", "factor")
    error = failure(renamed, "min(base * multiplier, _CAP)", "base")
    assert error.kind == "stale"
    assert "min(base * factor, _CAP)" in error.details[0]


# --- pattern errors --------------------------------------------------------------------------


def test_an_unparseable_find_is_a_pattern_error():
    error = failure(RUN, "min(base *", "0")
    assert error.kind == "pattern"
    assert "`find` is not valid Python" in error.message
    assert "pkg/run.py" in error.message


def test_replace_using_an_unbound_metavariable_is_a_pattern_error():
    error = failure(RUN, "min($B * $M, _CAP)", "min($BASE, _CAP)")
    assert error.kind == "pattern"
    assert "$BASE" in error.message


def test_a_source_that_does_not_parse_is_a_file_error():
    assert failure("def broken(:\n", "x", "y").kind == "file"


# --- byte-for-byte preservation --------------------------------------------------------------


def test_odd_formatting_and_crlf_line_endings_survive_untouched():
    source = (
        "# -*- coding: utf-8 -*-\r\n"
        "X = {  'a':1,\r\n"
        "       'b' :2 }   # table\r\n"
        "\r\n"
        "def  f( a ,b ) :\r\n"
        "\treturn a+b  ;  # tabs\r\n"
        "\r\n\r\n"
    )
    mutated, where, splice = apply_edit(source, edit("$A + $B", "$A - $B"))
    assert_spliced(source, mutated, where, "a-b")
    plus = source.index("+")
    assert (splice.start, splice.end, splice.replacement) == (plus, plus + 1, "-")


def test_a_statement_replacement_is_a_splice_of_the_statement():
    mutated, where, _ = apply_edit(RUN, edit("self.streak[$K] = $V", "self.streak[$K] = 0"))
    assert_spliced(RUN, mutated, where, "self.streak[key] = 0")


# --- property --------------------------------------------------------------------------------

LEAVES = st.sampled_from(["a", "b", "self", "0", "17", "0.95", "'x'", '"y"', "None"])
OPERATORS = st.sampled_from(["+", "-", "*", "//", "**", "<", "<=", "==", "and", "or", "in"])


def _compose(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.builds(lambda a, op, b: f"({a} {op} {b})", children, OPERATORS, children),
        st.builds(
            lambda f, args: f"{f}({', '.join(args)})",
            st.sampled_from(["f", "g.h"]),
            st.lists(children, max_size=3),
        ),
        st.builds(lambda a: f"(not {a})", children),
        st.builds(lambda a, b: f"{a}[{b}]", st.sampled_from(["a", "b.c"]), children),
        st.builds(lambda a: f"[{a}, {a}]", children),
    )


EXPRESSIONS = st.recursive(LEAVES, _compose, max_leaves=8)
GAPS = st.sampled_from([" ", "  ", "\n    ", "  # note\n  "])


def _reformat(text: str, gaps: list[str]) -> str:
    tokens = [
        t.string
        for t in tokenize.generate_tokens(io.StringIO(text).readline)
        if t.type not in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER)
    ]
    out = tokens[0]
    for index, token in enumerate(tokens[1:]):
        out += gaps[index % len(gaps)] + token
    return out


@settings(max_examples=60, deadline=None, database=None)
@given(EXPRESSIONS, st.lists(GAPS, min_size=1, max_size=5))
def test_the_text_of_an_expression_matches_it_however_it_is_formatted(text, gaps):
    source = f"result = (\n    {_reformat(text, gaps)}\n)\n"
    mutated, where, _ = apply_edit(source, edit(text, "REPLACED", occurrence=1))
    assert_spliced(source, mutated, where, "REPLACED")
    assert ast.dump(ast.parse(mutated)) == ast.dump(ast.parse("result = REPLACED"))


# --- layout of moved code --------------------------------------------------------------------


def test_a_multiline_binding_keeps_its_continuation_indentation():
    source = (
        "class A:\n"
        "    def f(self):\n"
        "        return guard(\n"
        "            compute(a,\n"
        "                    b)\n"
        "        )\n"
    )
    mutated = apply(source, "guard($X)", "$X")
    assert mutated == (
        "class A:\n    def f(self):\n        return compute(a,\n                    b)\n"
    )


def test_nested_blocks_in_a_replacement_use_the_files_indentation():
    source = "def f():\n\tif a:\n\t\tb()\n"
    mutated = apply(source, "if a:\n    b()", "for x in a:\n    if x:\n        b()")
    assert mutated == "def f():\n\tfor x in a:\n\t\tif x:\n\t\t\tb()\n"


def test_a_file_without_a_final_newline_keeps_it_that_way():
    assert apply("x = 1\ny = 2", "y = 2", "y = 3") == "x = 1\ny = 3"
    assert apply("x = 1\ny = 2", "y = 2") == "x = 1\n"


def test_an_expression_statement_may_be_replaced_by_a_statement():
    mutated = apply(RUN, "log(...)", "raise SystemExit(1)")
    assert "            self.streak.pop(key, None)\n            raise SystemExit(1)\n" in mutated
