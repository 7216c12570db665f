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


def worker_job(root: Path, package: str, names: list[str], examples: int) -> dict:
    """The differential check's job for functions `names` of `package.f`, base HEAD~1."""
    return {
        "root": str(root),
        "sources": [package],
        "base": git(root, "rev-parse", "HEAD~1"),
        "examples": examples,
        "packages": [package],
        "functions": [
            {
                "key": key,
                "name": name,
                "old": f"{package}.f:{name}",
                "old_qualname": name,
                "new": f"{package}.f:{name}",
                "new_qualname": name,
                "calls": [],
            }
            for key, name in enumerate(names)
        ],
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
    job = worker_job(root, "loops", ["spin", "double"], 300)
    (tmp_path / "cwd").mkdir()
    answers = run_worker(job, tmp_path / "cwd", silence=1.0)
    assert answers[0]["status"] == "not compared"
    assert answers[0]["why"].startswith("a call did not return within 1 CPU s, even with ints")
    assert answers[1]["status"] == "equal"


@pytest.mark.slow  # a worker process
def test_answers_that_change_from_call_to_call_are_not_a_finding(tmp_path):
    """A function that reads the clock or a random number disagrees with itself; that is
    listed as not compared, never as a behaviour change. Objects that compare by identity
    (a fresh instance, a function) are compared by their type and attributes instead."""
    base = {
        "noisy/__init__.py": "",
        "noisy/f.py": (
            "import random\n\n\n"
            "class Token:\n"
            "    def __init__(self, n: int) -> None:\n"
            "        self.n = n\n\n\n"
            "def roll(n: int) -> float:\n"
            "    return random.random() + n\n\n\n"
            "def token(n: int) -> Token:\n"
            "    return Token(n)\n"
        ),
    }
    change = {
        "noisy/f.py": base["noisy/f.py"]
        .replace("random.random() + n", "n + random.random()")
        .replace("return Token(n)", "made = Token(n)\n    return made")
    }
    root = two_revisions(tmp_path / "project", base, change)
    job = worker_job(root, "noisy", ["roll", "token"], 200)
    (tmp_path / "cwd").mkdir()
    answers = run_worker(job, tmp_path / "cwd", silence=10.0)
    assert answers[0]["status"] == "not compared"
    assert "answers the same call (n=" in answers[0]["why"]
    assert answers[0]["why"].endswith(") differently each time")
    assert answers[1]["status"] == "equal"


def test_a_src_layout_names_modules_as_they_are_imported(tmp_path):
    """`source = ["src/pkg"]`: the module is `pkg.a`, not `src.pkg.a`."""
    files = {"src/pkg/__init__.py": "", "src/pkg/a.py": "def f(x: int) -> int:\n    return x\n"}
    then = read_modules(tree(tmp_path / "then", files), ["src/pkg"])
    changed = {**files, "src/pkg/a.py": "def f(x: int) -> int:\n    return +x\n"}
    today = read_modules(tree(tmp_path / "today", changed), ["src/pkg"])
    (pair,), _ = changed_pairs(then, today)
    assert (pair.old.target, pair.old.path) == ("pkg.a:f", "src/pkg/a.py")
