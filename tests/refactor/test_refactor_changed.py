"""Which functions the differential check compares, and the worker that compares them."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from support.git import git
from support.refactor import two_revisions

from guardcheck.refactor.changed import changed_pairs, literal_calls, read_modules
from guardcheck.refactor.checks.differential import run_worker


def tree(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root


BASE = {
    "pkg/__init__.py": "",
    "pkg/a.py": """
        def same(x: int) -> int:
            return x + 1

        def reformatted(x: int) -> int:
            return x+1

        def body(x: int) -> int:
            return x + 1

        def renamed(x: int) -> int:
            return x * 2

        def moved(x: int) -> int:
            return x - 1

        def listed(x: int) -> int:
            return -x

        def gone(x: int) -> int:
            return 0

        class Box:
            def get(self) -> int:
                return 1
    """,
}

TODAY = {
    "pkg/__init__.py": "",
    "pkg/a.py": """
        from pkg.b import moved  # re-exported for its callers

        def same(x: int) -> int:
            return x + 1

        def reformatted(x: int) -> int:
            # a comment and spaces change nothing
            return x + 1

        def body(x: int) -> int:
            return 1 + x

        def doubled(x: int) -> int:
            return x * 2

        renamed = doubled

        class Box:
            def get(self) -> int:
                return 2
    """,
    "pkg/b.py": """
        def moved(x: int) -> int:
            return x - 1
    """,
    "pkg/c.py": """
        def negated(x: int) -> int:
            return -x
    """,
}


def test_changed_functions_aliases_re_exports_and_moves_are_paired(tmp_path):
    then = read_modules(tree(tmp_path / "then", BASE), ["pkg"])
    today = read_modules(tree(tmp_path / "today", TODAY), ["pkg"])
    pairs, gone = changed_pairs(then, today, [("pkg.a.listed", "pkg.c.negated")])
    found = {(p.old.qualname, p.new_target, p.how) for p in pairs}
    assert found == {
        ("body", "pkg.a:body", "changed"),
        ("Box.get", "pkg.a:Box.get", "changed"),
        ("renamed", "pkg.a:renamed", "alias or re-export"),
        ("moved", "pkg.a:moved", "alias or re-export"),
        ("listed", "pkg.c:negated", "moved (moves file)"),
    }
    located = {p.old.qualname: (p.new.path, p.new.qualname) for p in pairs if p.new}
    assert located["renamed"] == ("pkg/a.py", "doubled")
    assert located["moved"] == ("pkg/b.py", "moved")
    assert [f.qualname for f in gone] == ["gone"]


def test_literal_calls_keep_only_calls_whose_arguments_are_all_literals(tmp_path):
    tests = tree(
        tmp_path,
        {
            "tests/test_x.py": """
                def test_it(value):
                    assert slug(["a", "b"], sep="+") == "a+b"
                    assert slug(value) == ""
                    assert box.slug(("x",)) == "x"
            """
        },
    )
    calls = literal_calls([(tests, ["tests"])])
    assert {(c.args, c.kwargs) for c in calls["slug"]} == {
        (("['a', 'b']",), (("sep", "'+'"),)),
        (("('x',)",), ()),
    }


@pytest.mark.slow  # a worker process, and one that must be killed
def test_a_function_that_hangs_costs_only_itself(tmp_path):
    """A call stuck on one input loses that function alone (retried once with small ints),
    and the functions after it are still compared."""
    base = {
        "loops/__init__.py": "",
        "loops/f.py": (
            "def spin(n: int) -> int:\n"
            "    while n > 5:\n"
            "        pass\n"
            "    return n\n\n\n"
            "def double(n: int) -> int:\n"
            "    return n * 2\n"
        ),
    }
    change = {"loops/f.py": base["loops/f.py"].replace("return n * 2", "return n + n")}
    root = two_revisions(tmp_path / "project", base, change)
    sha = git(root, "rev-parse", "HEAD~1")
    job = {
        "root": str(root),
        "sources": ["loops"],
        "base": sha,
        "examples": 300,
        "packages": ["loops"],
        "functions": [
            {
                "key": k,
                "name": n,
                "old": f"loops.f:{n}",
                "old_qualname": n,
                "new": f"loops.f:{n}",
                "new_qualname": n,
                "calls": [],
            }
            for k, n in enumerate(["spin", "double"])
        ],
    }
    (tmp_path / "cwd").mkdir()
    answers = run_worker(job, tmp_path / "cwd", silence=1.0)
    assert answers[0]["status"] == "not compared"
    assert answers[0]["why"].startswith("a call did not return within 1 CPU s, even with ints")
    assert answers[1]["status"] == "equal"
