"""The names check after a signature change: only the calls that rely on what changed."""

from __future__ import annotations

import pytest
from support.refactor import pyproject, run_refactor, two_revisions

pytestmark = pytest.mark.slow

PYPROJECT = pyproject("text")

JOIN = """\
def join(parts: list[str], sep: str = "{default}") -> str:
    sep = sep or "{default}"  # a local of the same name: not a use
    return sep.join(parts)
"""

CALLERS = """\
from text.join import join


def slug(words: list[str]) -> str:
    return join(words)


def plus(words: list[str]) -> str:
    return join(words, sep="+")


def dots(words: list[str]) -> str:
    return join(words, ".")


def passed_on(words: list[str], **options: str) -> str:
    return join(words, **options)
"""

TESTS = """\
from text.join import join


def test_join():
    assert join(["a", "b"], "-") == "a-b"
"""


BASE = {
    "pyproject.toml": PYPROJECT,
    "text/__init__.py": "",
    "text/join.py": JOIN.format(default="-"),
    "text/callers.py": CALLERS,
    "tests/test_join.py": TESTS,
}


def test_a_changed_default_lists_only_the_calls_that_omit_it(tmp_path):
    """Regression (issue 23): after a default change `names` listed the function's own body
    lines (its locals share the parameter's name) and calls that pass the argument."""
    root = two_revisions(tmp_path / "project", BASE, {"text/join.py": JOIN.format(default="_")})
    done = run_refactor(root, "--base", "HEAD~1", "--only", "names")
    assert done.code == 1, done.out + done.err
    findings = done.check("names")["findings"]
    assert [(f["path"], f["line"], f["enclosing"]) for f in findings] == [
        ("text/callers.py", 5, "slug"),
        ("text/callers.py", 17, "passed_on"),
    ]
    omits, unpacks = (f["message"] for f in findings)
    assert omits == (
        "text.join.join parameter default was changed: sep, relied on by a call that "
        "omits `sep`: join(words)"
    )
    assert "may omit `sep` (it unpacks arguments)" in unpacks


def test_a_removed_parameter_lists_only_the_calls_that_pass_it(tmp_path):
    without_sep = 'def join(parts: list[str]) -> str:\n    return "-".join(parts)\n'
    root = two_revisions(tmp_path / "project", BASE, {"text/join.py": without_sep})
    done = run_refactor(root, "--base", "HEAD~1", "--only", "names")
    assert done.code == 1
    places = sorted((f["path"], f["line"]) for f in done.check("names")["findings"])
    assert places == [
        ("tests/test_join.py", 5),
        ("text/callers.py", 9),
        ("text/callers.py", 13),
        ("text/callers.py", 17),
    ]
