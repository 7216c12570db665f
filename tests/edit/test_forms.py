"""The pattern forms of the patterns-and-honesty issue: wildcards, headers, clauses, items."""

from __future__ import annotations

from pathlib import Path

import pytest

from guardcheck.edit.engine import BOM, EditFailure, apply_edit
from guardcheck.edit.mutate import build_mutant
from guardcheck.errors import CatalogueInvalid
from guardcheck.model import Edit, Entry, Where
from guardcheck.splices import unified_diff


def apply(source: str, find: str, replace: str = "", **kwargs: object) -> str:
    return apply_edit(source, Edit(file="m.py", find=find, replace=replace, **kwargs))[0]  # type: ignore[arg-type]


def failure(source: str, find: str, replace: str = "", **kwargs: object) -> EditFailure:
    with pytest.raises(EditFailure) as caught:
        apply(source, find, replace, **kwargs)
    return caught.value


F = "def f(x=1):\n    a()  # keep me\n    return x\n"


def test_a_body_wildcard_changes_only_the_default():
    """Regression: `...` in replace emptied the body, so `run` caught it for the wrong reason."""
    mutated, _, splice = apply_edit(
        F, Edit(file="m.py", find="def f(x=1):\n    $$$BODY", replace="def f(x=2):\n    $$$BODY")
    )
    assert mutated == "def f(x=2):\n    a()  # keep me\n    return x\n"
    assert unified_diff("m.py", F, [splice]) == (
        "--- a/m.py\n+++ b/m.py\n@@ -1,3 +1,3 @@\n"
        "-def f(x=1):\n+def f(x=2):\n     a()  # keep me\n     return x\n"
    )


@pytest.mark.parametrize(
    ("find", "replace"),
    [
        ("def f(x=1):\n    ...", "def f(x=2):\n    ..."),
        ("if $C:\n    ...\nelse:\n    ...", "if $C:\n    ...\nelse:\n    pass"),
        ("f($$$A)", "f(...)"),
        ("def f(x=1):", "def f(x=2):\n    ..."),
    ],
)
def test_a_bare_ellipsis_in_replace_next_to_a_wildcard_is_a_pattern_error(find, replace):
    error = failure("def f(x=1):\n    pass\nif c:\n    a\nelse:\n    b\nf(1)\n", find, replace)
    assert error.kind == "pattern"
    assert "`...` in replace would replace the matched code with a literal `...`" in error.message
    assert "$$$BODY" in error.fix
    assert "Ellipsis" in error.fix


def test_a_literal_ellipsis_is_still_possible_as_ellipsis():
    assert apply(F, "def f(x=1):\n    $$$BODY", "def f(x=1):\n    Ellipsis") == (
        "def f(x=1):\n    Ellipsis\n"
    )


def test_a_header_only_signature_keeps_the_body_and_the_decorators():
    source = "@cache\ndef lru_cache(maxsize=128, typed=False):\n    return 1  # body\n"
    mutated = apply(
        source, "def lru_cache(maxsize=128, $$$REST):", "def lru_cache(maxsize=100, $$$REST):"
    )
    assert mutated == source.replace("128", "100")


def test_a_signature_that_does_not_match_is_stale():
    error = failure(
        "def g(maxsize=64):\n    pass\n",
        "def g(maxsize=128, $$$REST):",
        "def g(maxsize=1, $$$REST):",
    )
    assert error.kind == "stale"


@pytest.mark.parametrize(
    ("find", "replace", "expected"),
    [
        ("def g($$$P):", "def g($$$P, c=None):", "def g(a, *args, b=1, c=None):\n    pass\n"),
        ("def g(a, $$$P):", "def g($$$P):", "def g(*args, b=1):\n    pass\n"),
        ("def g($$$P) -> int:", "def g($$$P) -> str:", None),
    ],
)
def test_parameters_are_added_and_removed_in_place(find, replace, expected):
    source = "def g(a, *args, b=1):\n    pass\n"
    if expected is None:
        source = "def g(a) -> int:\n    pass\n"
        expected = "def g(a) -> str:\n    pass\n"
    assert apply(source, find, replace) == expected


def test_async_methods_are_reached_through_scope():
    source = "class C:\n    async def m(self, t=3):\n        pass\n"
    assert apply(source, "async def m(self, t=3):", "async def m(self, t=0):", scope="C") == (
        source.replace("t=3", "t=0")
    )
    assert failure(source, "def m(self, t=3):", "def m(self, t=0):", scope="C").kind == "stale"


DECORATED = "@cache\n@log  # why\ndef g(a):\n    pass\n"


def test_a_decorator_left_out_of_replace_is_removed():
    """Regression: this was reported as "no-op: same AST", and the decorator stayed."""
    assert apply(DECORATED, "@cache\n@log\ndef g($$$P):", "@log\ndef g($$$P):") == (
        "@log  # why\ndef g(a):\n    pass\n"
    )


def test_a_decorator_is_replaced_or_added():
    assert apply(DECORATED, "@cache\n@log\ndef g($$$P):", "@lru_cache(1)\n@log\ndef g($$$P):") == (
        DECORATED.replace("@cache", "@lru_cache(1)")
    )
    assert apply("def g(a):\n    pass\n", "def g($$$P):", "@cache\ndef g($$$P):") == (
        "@cache\ndef g(a):\n    pass\n"
    )


IFS = (
    "def f():\n    if ok(a):  # why\n        go()\n    elif b:\n        x()\n"
    "    else:\n        y()\n"
)


def test_a_block_header_changes_and_its_body_and_branches_stay():
    expected = IFS.replace("if ok(a)", "if not ok(a)")
    assert apply(IFS, "if $C:", "if not $C:") == expected
    assert (
        apply(
            IFS,
            "if $C:\n    $$$BODY\nelif b:\n    $$$E\nelse:\n    $$$F",
            "if not $C:\n    $$$BODY\nelif b:\n    $$$E\nelse:\n    $$$F",
        )
        == expected
    )


def test_an_explicit_body_wildcard_does_not_match_a_block_with_branches():
    assert failure(IFS, "if $C:\n    $$$BODY", "if not $C:\n    $$$BODY").kind in (
        "stale",
        "pattern",
    )


@pytest.mark.parametrize(
    ("source", "find", "replace", "expected"),
    [
        ("while ok():\n    go()\n", "while $C:", "while not $C:", "while not ok():\n    go()\n"),
        ("for x in xs:\n    go()\n", "for $X in xs:", "for $X in ys:", "for x in ys:\n    go()\n"),
        (
            "with open(p) as h:\n    go()\n",
            "with open($P) as h:",
            "with open($P, 'w') as h:",
            "with open(p, 'w') as h:\n    go()\n",
        ),
        (IFS, "elif b:", "elif not b:", IFS.replace("elif b", "elif not b")),
        (IFS, "else:\n    $$$E", "else:\n    $$$E\n    z()", IFS + "        z()\n"),
        (
            "try:\n    a()\nexcept KeyError:  # c\n    b()\n",
            "except KeyError:",
            "except Exception:",
            "try:\n    a()\nexcept Exception:  # c\n    b()\n",
        ),
    ],
)
def test_headers_and_clauses(source, find, replace, expected):
    assert apply(source, find, replace) == expected


def test_a_clause_that_is_not_there_is_stale():
    assert failure(IFS, "except KeyError:", "except Exception:").kind == "stale"


def test_two_branches_swap_with_their_comments():
    source = "if c:\n    a()  # one\nelse:\n    # two\n    b()\n    b2()\n"
    assert apply(
        source, "if $C:\n    $$$A\nelse:\n    $$$B", "if $C:\n    $$$B\nelse:\n    $$$A"
    ) == ("if c:\n    # two\n    b()\n    b2()\nelse:\n    a()  # one\n")


CALL = "r = f(1, 2, key=3,  other=4)\n"


@pytest.mark.parametrize(
    ("find", "replace", "expected"),
    [
        ("f($A, ...)", "f($A)", "r = f(1)\n"),
        ("f($$$A, key=$K, $$$B)", "f($$$A, key=0, $$$B)", "r = f(1, 2, key=0,  other=4)\n"),
        ("f(..., other=$O, key=$K)", "f(1, 2, other=$K, key=$O)", "r = f(1, 2, other=3, key=4)\n"),
    ],
)
def test_partial_argument_lists_and_keywords_in_any_order(find, replace, expected):
    assert apply(CALL, find, replace) == expected


def test_keywords_in_any_order_still_need_every_named_keyword():
    assert failure(CALL, "f(..., missing=$M)", "f()").kind == "stale"
    assert failure(CALL, "f(key=$K, other=$O)", "f()").kind == "stale"  # positionals unmatched


def test_one_collection_entry_changes_in_the_original_text():
    source = "cfg = {\n    'a': 1,  # c\n    'timeout': 30,\n}\nxs = [1, 2, 3]\n"
    assert apply(source, "{$$$A, 'timeout': $T, $$$B}", "{$$$A, 'timeout': 0, $$$B}") == (
        source.replace("30", "0")
    )
    assert apply(source, "[$$$A, 3]", "[$$$A]") == source.replace("[1, 2, 3]", "[1, 2]")
    assert apply("s = {1, 2}\nt = (1, 2)\n", "($$$A, 2)", "($$$A, 3)") == "s = {1, 2}\nt = (1, 3)\n"


def test_a_statement_in_a_one_line_body():
    assert apply("if x: y()\n", "y()", "z()") == "if x: z()\n"
    assert apply("if x: y(); w()\n", "y()", "") == "if x: w()\n"
    assert apply("if x: y()\n", "y()", "") == "if x: pass\n"


def test_a_multiline_call_keeps_its_line_breaks_and_comments():
    source = "r = g(\n    a,  # first\n    b,\n)\n"
    assert apply(source, "g($A, $B)", "g($A, -$B)") == "r = g(\n    a,  # first\n    -b,\n)\n"
    assert apply(source, "g($A, $B)", "h($A, $B)") == source.replace("g(", "h(")


def test_no_redundant_parentheses():
    assert apply("x = (1,)\n", "x = $V", "x = (-1,)") == "x = (-1,)\n"


@pytest.mark.parametrize("find", ["x.$A", "def $F():\n    $$$B", "f($K=1)"])
def test_an_inexpressible_pattern_is_a_pattern_error_pointing_at_transform(find):
    error = failure("x.a\ndef g():\n    pass\nf(k=1)\n", find, "x")
    assert error.kind == "pattern"
    assert "transform" in error.fix


def test_replace_must_bind_what_find_binds():
    error = failure("f(1)\n", "f($$$A)", "g($$$B)")
    assert error.kind == "pattern"
    assert "$$$B" in error.message


# --- building mutants ------------------------------------------------------------------------


def _entry(edit: Edit) -> Entry:
    return Entry(id="e", summary="s", edits=(edit,), where=Where("m.toml", 1))


def test_a_bom_is_kept_and_offsets_include_it(tmp_path: Path):
    """Regression: a target starting with a UTF-8 BOM made every entry "unviable: U+FEFF"."""
    (tmp_path / "m.py").write_bytes(b"\xef\xbb\xbfx = 1\n")
    [change] = build_mutant(
        _entry(Edit(file="m.py", find="x = 1", replace="x = 2")), tmp_path
    ).changes
    assert change.original == BOM + "x = 1\n"
    assert change.mutated == BOM + "x = 2\n"
    [splice] = change.splices
    assert change.original[splice.start : splice.end] == "1"


def test_a_no_op_message_says_the_text_is_unchanged(tmp_path: Path):
    (tmp_path / "m.py").write_text("x = f(a)\n")
    with pytest.raises(CatalogueInvalid) as caught:
        build_mutant(_entry(Edit(file="m.py", find="f($A)", replace="f( $A )")), tmp_path)
    [problem] = caught.value.problems
    assert problem.kind == "no-op"
    assert "m.py is unchanged" in problem.message


def test_a_transform_that_is_a_function_is_never_called(tmp_path: Path):
    """Regression: `transform = "sys:exit"` ended `guardcheck check` with exit 0."""
    (tmp_path / "m.py").write_text("x = 1\n")
    with pytest.raises(CatalogueInvalid) as caught:
        build_mutant(_entry(Edit(file="m.py", transform="sys:exit")), tmp_path)
    [problem] = caught.value.problems
    assert problem.kind == "transform"
    assert "not a libcst.CSTTransformer subclass" in problem.message


def test_a_transform_raising_system_exit_is_a_transform_problem(tmp_path: Path):
    (tmp_path / "m.py").write_text("x = 1\n")
    (tmp_path / "gc_exiting_transform.py").write_text(
        "import libcst as cst\n\n\nclass Quit(cst.CSTTransformer):\n"
        "    def visit_Module(self, node):\n        raise SystemExit(3)\n"
    )
    with pytest.raises(CatalogueInvalid) as caught:
        build_mutant(_entry(Edit(file="m.py", transform="gc_exiting_transform:Quit")), tmp_path)
    [problem] = caught.value.problems
    assert problem.kind == "transform"
    assert "SystemExit: 3" in problem.message
