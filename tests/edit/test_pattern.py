"""The pattern language on its own: parsing, structural matching, substitution."""

from __future__ import annotations

import libcst as cst
import pytest

from guardcheck.edit.matching import equal, match, match_statements
from guardcheck.edit.pattern import PatternError, display, parse_pattern
from guardcheck.edit.substitute import substitute


def expr(text: str) -> cst.BaseExpression:
    return parse_pattern(text).expression


def stmts(text: str) -> tuple[cst.BaseStatement, ...]:
    return parse_pattern(text).statements


def code(node: cst.CSTNode) -> str:
    return cst.Module(body=[]).code_for_node(node)


# --- parsing ---------------------------------------------------------------------------------


def test_a_lone_expression_is_an_expression_pattern():
    pattern = parse_pattern("min($BASE * $MULT, CAP)")
    assert pattern.kind == "expression"
    assert pattern.metavars == {"BASE", "MULT"}


def test_statements_and_blocks_are_statement_patterns():
    assert parse_pattern("x = 1").kind == "statements"
    assert parse_pattern("a()\nb()").kind == "statements"
    assert parse_pattern("if f(...):\n    ...").kind == "statements"


def test_indented_multiline_text_is_dedented():
    pattern = parse_pattern("\n    if x:\n        y = 1\n")
    assert pattern.kind == "statements"
    assert isinstance(pattern.statements[0], cst.If)


def test_empty_text_is_the_empty_pattern():
    assert parse_pattern("").kind == "empty"
    assert parse_pattern("  \n").kind == "empty"


def test_dollar_inside_strings_is_not_a_metavariable():
    pattern = parse_pattern("log('$COST', $X)")
    assert pattern.metavars == {"X"}
    assert equal(pattern.expression.args[0].value, expr("'$COST'"))  # type: ignore[attr-defined]


@pytest.mark.parametrize("text", ["f($)", "$ X", "x = $1"])
def test_a_dollar_without_a_name_is_rejected(text):
    with pytest.raises(PatternError, match=r"\$"):
        parse_pattern(text)


def test_invalid_python_is_rejected_naming_the_field():
    with pytest.raises(PatternError, match="`replace` is not valid Python"):
        parse_pattern("min(a,", "replace")


def test_display_shows_metavariables_as_written():
    assert display(code(expr("f($X)"))) == "f($X)"


# --- structural matching ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "target"),
    [
        ("min(a * b, CAP)", "min( a*b ,CAP )"),
        ("min(a * b, CAP)", "min(\n    a * b,  # why\n    CAP,\n)"),
        ("a + b", "((a + b))"),
        ("f((x))", "f(x)"),
        ("'text'", '"text"'),
        ("1000", "1_000"),
        ("0xff", "0XFF"),
        ("x[1]", "x[ 1 ]"),
        ("not a", "not(a)"),
        ("lambda x: x + 1", "lambda  x :x+1"),
    ],
)
def test_formatting_does_not_matter(pattern, target):
    assert equal(expr(pattern), expr(target))


@pytest.mark.parametrize(
    ("pattern", "target"),
    [
        ("a + b", "a - b"),
        ("a < b", "a <= b"),
        ("f(x)", "g(x)"),
        ("0.95", "0.9"),
        ("1", "1.0"),
        ("'a'", "b'a'"),
        ("x.y", "x.z"),
        ("f(x)", "f(x, y)"),
        ("f(k=1)", "f(1)"),
        ("(a + b) * c", "a + b * c"),
    ],
)
def test_names_operators_and_literals_do_matter(pattern, target):
    assert not equal(expr(pattern), expr(target))


def test_a_metavariable_matches_any_expression_and_binds_it():
    bindings: dict[str, cst.CSTNode] = {}
    assert match(expr("min($B * $M, CAP)"), expr("min(base * (s - 1), CAP)"), bindings)
    assert code(bindings["B"]) == "base"
    assert code(bindings["M"]) == "(s - 1)"


def test_a_repeated_metavariable_must_match_equal_code():
    pattern = expr("$X == $X")
    assert match(pattern, expr("a.b == a . b"), {})
    assert not match(pattern, expr("a.b == a.c"), {})


def test_a_failed_match_leaves_bindings_untouched():
    bindings: dict[str, cst.CSTNode] = {}
    assert not match(expr("f($X, 1)"), expr("f(a, 2)"), bindings)
    assert bindings == {}


def test_ellipsis_as_the_only_argument_matches_any_arguments():
    pattern = expr("record(...)")
    for target in ("record()", "record(a)", "record(a, *b, k=1, **kw)"):
        assert match(pattern, expr(target), {})
    assert not match(pattern, expr("other(a)"), {})


def test_ellipsis_among_other_arguments_matches_the_rest():
    """`...` is a wildcard wherever an argument may be; a literal is spelled `Ellipsis`."""
    assert match(expr("f(a, ...)"), expr("f(a, b, k=1)"), {})
    assert match(expr("f(a, ...)"), expr("f(a)"), {})
    assert not match(expr("f(a, ...)"), expr("f(b, a)"), {})
    assert not match(expr("f(a, Ellipsis)"), expr("f(a, b)"), {})


def test_ellipsis_statement_matches_any_block_body():
    pattern = stmts("if recovered(...):\n    ...")
    target = stmts("if recovered(key):\n    a = 1\n    b()\n    return a")
    assert match_statements(pattern, target, {})


def test_ellipsis_statement_matches_part_of_a_block():
    pattern = stmts("for x in $ITEMS:\n    ...\n    total += x")
    assert match_statements(pattern, stmts("for x in xs:\n    total += x"), {})
    assert match_statements(pattern, stmts("for x in xs:\n    log(x)\n    total += x"), {})
    assert not match_statements(pattern, stmts("for x in xs:\n    total += x\n    log(x)"), {})


def test_line_breaks_between_statements_do_not_matter():
    assert match_statements(stmts("a = 1\nb = 2"), stmts("a = 1; b = 2"), {})
    assert match_statements(stmts("if x:\n    y()"), stmts("if x: y()"), {})


def test_an_else_branch_is_part_of_the_shape():
    assert not match_statements(stmts("if x:\n    ..."), stmts("if x:\n    a\nelse:\n    b"), {})


# --- substitution ----------------------------------------------------------------------------


def test_substitution_keeps_the_matched_code_formatting():
    bindings: dict[str, cst.CSTNode] = {}
    assert match(expr("min($B, CAP)"), expr("min(cfg [ 'base' ], CAP)"), bindings)
    assert code(substitute(expr("max($B, 0)"), bindings)) == "max(cfg [ 'base' ], 0)"


@pytest.mark.parametrize(
    ("replace", "bound", "expected"),
    [
        ("$X * 2", "a + b", "(a + b) * 2"),
        ("2 - $X", "a - b", "2 - (a - b)"),
        ("$X - 2", "a - b", "a - b - 2"),
        ("-$X", "a + b", "-(a + b)"),
        ("$X.attr", "a + b", "(a + b).attr"),
        ("$X()", "lambda: 1", "(lambda: 1)()"),
        ("not $X", "a and b", "not (a and b)"),
        ("$X and c", "a or b", "(a or b) and c"),
        ("$X < 3", "a < b", "(a < b) < 3"),
        ("f($X)", "a + b", "f(a + b)"),
        ("$X ** 2", "-a", "(-a) ** 2"),
    ],
)
def test_substitution_parenthesises_only_where_grouping_would_change(replace, bound, expected):
    bindings: dict[str, cst.CSTNode] = {"X": expr(bound)}
    assert code(substitute(expr(replace), bindings)) == expected
