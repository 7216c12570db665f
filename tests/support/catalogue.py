"""Small throwaway projects for the catalogue tests: a module, its tests, a catalogue."""

from __future__ import annotations

import textwrap
from pathlib import Path

from click.testing import CliRunner, Result

from guardcheck.commands.main import main

PYPROJECT = """\
[tool.guardcheck]
catalogue = ["mutations"]
tests = ["tests"]
"""

LADDER = """\
BASE = 60
CAP = 3600


def cooldown(streak, base=BASE):
    multiplier = 3 ** (streak - 1)
    return min(base * multiplier, CAP)


class Gate:
    def __init__(self):
        self.streak = 0

    def record_failure(self):
        self.streak += 1
        return cooldown(self.streak)

    def record_success(self, before, after):
        if after < before:
            self.streak = 0
        return self.streak
"""

LADDER_TESTS = """\
from app.ladder import Gate, cooldown


def test_ladder_escalates():
    assert [cooldown(n) for n in (1, 2, 3)] == [60, 180, 540]


def test_cap():
    assert cooldown(10) == 3600


def test_success_resets_only_on_progress():
    gate = Gate()
    gate.record_failure()
    assert gate.record_success(10, 10) == 1
    assert gate.record_success(10, 5) == 0
"""

FLAT_COOLDOWN = """\
[[mutation]]
id = "flat-cooldown"
summary = "The ladder stops escalating."
file = "app/ladder.py"
scope = "cooldown"
find = "min($BASE * $MULT, CAP)"
replace = "min($BASE, CAP)"
killed_by = ["tests/test_ladder.py::test_ladder_escalates"]
tags = ["ladder"]
"""


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text), encoding="utf-8")
    return root


def make_project(root: Path, catalogue: str | dict[str, str] = FLAT_COOLDOWN) -> Path:
    """pyproject + app/ladder.py + tests + mutations/*.toml (one file, or several by name)."""
    catalogues = catalogue if isinstance(catalogue, dict) else {"ladder.toml": catalogue}
    return write_tree(
        root,
        {
            "pyproject.toml": PYPROJECT,
            "app/__init__.py": "",
            "app/ladder.py": LADDER,
            "tests/test_ladder.py": LADDER_TESTS,
            **{f"mutations/{name}": text for name, text in catalogues.items()},
        },
    )


def run_cli(root: Path, *args: str) -> Result:
    """`guardcheck --root ROOT ARGS...` through click's runner (stdout and stderr apart)."""
    return CliRunner().invoke(main, ["--root", str(root), *args], catch_exceptions=False)


def tree_state(root: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under root with its bytes and mtime: to prove a command wrote nothing."""
    return {
        path.relative_to(root).as_posix(): (path.read_bytes(), path.stat().st_mtime_ns)
        for path in sorted(root.rglob("*"))
        if path.is_file()
    } | {
        f"{path.relative_to(root).as_posix()}/": (b"", 0)
        for path in root.rglob("*")
        if path.is_dir()
    }
