"""The `ladder` fixture project (tests/fixtures/projects/ladder) for the catalogue tests:
its catalogue swapped for the one a test needs, the CLI run in process, the tree's state."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from click.testing import CliRunner, Result

from guardcheck.commands.main import main
from support.projects import fixture_text, write_files

# The fixture's own texts, for tests that write a variation of them.
FLAT_COOLDOWN = fixture_text("ladder", "mutations/ladder.toml")
LADDER = fixture_text("ladder", "app/ladder.py")


def set_catalogue(root: Path, catalogue: str | dict[str, str]) -> Path:
    """Replace the project's mutations/ with one ladder.toml, or several files by name."""
    catalogues = catalogue if isinstance(catalogue, dict) else {"ladder.toml": catalogue}
    for old in (root / "mutations").glob("*.toml"):
        old.unlink()
    return write_files(root, {f"mutations/{name}": text for name, text in catalogues.items()})


def ladder(project: Callable[..., Path], catalogue: str | dict[str, str] | None = None) -> Path:
    """The ladder project from the `project` fixture, with `catalogue` when one is given."""
    root = project("ladder")
    return root if catalogue is None else set_catalogue(root, catalogue)


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
