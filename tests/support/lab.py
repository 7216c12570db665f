"""A throwaway pytest project for the lab tests, and helpers to mutate it.

Each test writes it into tmp_path (as a git repository, so `git status` can
prove the working tree is untouched); guardcheck's own suite never collects it.
"""

from __future__ import annotations

import subprocess
import textwrap
from collections.abc import Sequence
from pathlib import Path

from guardcheck import api
from guardcheck.model import BaselineTest, FileChange, Mutant, MutantResult, RunReport, Where
from guardcheck.options import RunOptions

OPS = "calc/ops.py"

FILES: dict[str, str] = {
    "pyproject.toml": """
        [tool.pytest.ini_options]
        testpaths = ["tests"]
        # The lab must honour addopts and markers: `broken` fails, and only this
        # deselection keeps the baseline green.
        addopts = "-m 'not broken'"
        markers = ["broken: deselected by addopts"]
    """,
    "conftest.py": """
        import pytest


        @pytest.fixture
        def offset():
            # Only defined here: if the lab ignored conftest.py, tests using it would error.
            return 0
    """,
    "calc/__init__.py": "",
    OPS: '''
        """Mutation targets for the lab tests."""

        import functools
        import os

        LIMIT = 10


        def add(a, b):
            return a + b


        def clamp(x):
            if x > LIMIT:
                return LIMIT
            return x


        def total(xs):
            return sum(
                x
                for x in xs
            )


        class Counter:
            step = 1

            def bump(self, n):
                return n + self.step


        def spin(n):
            while n > 0:
                n -= 1
            return n


        def label(x, prefix="n"):
            return f"{prefix}{x}"


        @functools.lru_cache(maxsize=None)
        def square(x):
            return x * x


        def unused(x):
            return x * 2


        def scratch_file(folder):
            path = os.path.join(folder, "data.txt")
            with open(path, "w") as handle:
                handle.write("ok")
            return path


        def _ticks():
            n = 0
            while True:
                n += 1
                yield n


        # Created at import, so before the lab forks: a code swap cannot reach its frame.
        TICKER = _ticks()


        def tick():
            return next(TICKER)
    ''',
    "tests/test_ops.py": """
        import os

        import pytest

        from calc import ops


        def test_add(offset):
            assert ops.add(2, 3) + offset == 5


        def test_add_again():
            assert ops.add(-1, 1) == 0


        def test_clamp():
            assert ops.clamp(11) == 10
            assert ops.clamp(3) == 3


        def test_total():
            assert ops.total([1, 2, 3]) == 6


        def test_counter():
            assert ops.Counter().bump(1) == 2


        def test_spin():
            assert ops.spin(3) == 0


        def test_label():
            assert ops.label(1) == "n1"


        def test_square():
            assert ops.square(4) == 16


        def test_scratch_file(tmp_path):
            path = ops.scratch_file(tmp_path)
            assert open(path).read() == "ok"
            assert os.listdir(tmp_path) == ["data.txt"]


        def test_tick():
            assert ops.tick() >= 1


        @pytest.mark.broken
        def test_broken():
            assert False, "deselected by addopts; runs only if the lab ignores them"
    """,
}

T = "tests/test_ops.py::"


def make_project(root: Path, extra: dict[str, str] | None = None) -> Path:
    """Write the project (plus `extra` files) and commit it, so git status can be checked."""
    for name, text in {**FILES, **(extra or {})}.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    subprocess.run([*git, "-C", str(root), "add", "-A"], check=True)
    subprocess.run([*git, "-C", str(root), "commit", "-qm", "fixture"], check=True)
    return root


def git_status(root: Path) -> str:
    command = ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=all"]
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout


def mutant(
    root: Path,
    ident: str,
    find: str,
    replace: str,
    *,
    killed_by: tuple[str, ...] = (),
    path: str = OPS,
) -> Mutant:
    original = (root / path).read_text(encoding="utf-8")
    assert original.count(find) == 1, f"{find!r} must occur exactly once in {path}"
    mutated = original.replace(find, replace)
    line = original[: original.index(find)].count("\n") + 1
    change = FileChange(path, original, mutated, Where(path, line))
    return Mutant(ident, ident, (change,), killed_by=killed_by)


class Events:
    """Records the lab's callbacks."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.baseline: list[BaselineTest] = []
        self.logs: dict[str, str] = {}

    def run_started(self, mutants: Sequence[Mutant]) -> None:
        self.calls.append(f"run_started {len(mutants)}")

    def baseline_started(self) -> None:
        self.calls.append("baseline_started")

    def baseline_finished(self, tests: list[BaselineTest], seconds: float) -> None:
        self.calls.append("baseline_finished")
        self.baseline = tests

    def mutant_started(self, mutant: Mutant) -> None:
        self.calls.append(f"started {mutant.id}")

    def mutant_finished(self, result: MutantResult, log: str) -> None:
        self.calls.append(f"finished {result.mutant.id}")
        self.logs[result.mutant.id] = log


def run(
    root: Path, mutants: list[Mutant], events: Events | None = None, **options: object
) -> RunReport:
    """The library API's run over `mutants`, in process, with `options` over the defaults."""
    return api.run(RunOptions(root=root).with_overrides(**options), events, mutants=mutants)


def by_id(report: RunReport) -> dict[str, MutantResult]:
    return {r.mutant.id: r for r in report.results}
