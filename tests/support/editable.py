"""Real editable installs, the way users set projects up, in venvs made by the test.

`editable_project` copies the fidelity fixture, lays it out for one build
backend (src/ or flat), makes a venv that sees this environment's packages
(guardcheck, pytest, the build backends) through a `.pth` line, and runs
`pip install -e` with that backend: the `.pth` or finder module it writes is
the backend's own. `hand_verdict` applies a catalogue entry by hand with
`guardcheck apply` and runs the whole suite with plain pytest in that venv.
"""

from __future__ import annotations

import shutil
import site
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from support.projects import PROJECTS, commit

# Each backend: (layout, the build-system and packaging tables for pyproject.toml).
BACKENDS: dict[str, tuple[str, str]] = {
    # setuptools writes a .pth holding the src path.
    "setuptools-src": (
        "src",
        '[build-system]\nrequires = ["setuptools>=64"]\n'
        'build-backend = "setuptools.build_meta"\n'
        '[tool.setuptools.packages.find]\nwhere = ["src"]\n',
    ),
    # setuptools' flat layout: a .pth that imports `__editable___*_finder` (a meta path finder).
    "setuptools-flat-finder": (
        "flat",
        '[build-system]\nrequires = ["setuptools>=64"]\n'
        'build-backend = "setuptools.build_meta"\n[tool.setuptools]\npackages = ["fidlib"]\n',
    ),
    "hatchling-src": (
        "src",
        '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n'
        '[tool.hatch.build.targets.wheel]\npackages = ["src/fidlib"]\n',
    ),
    # hatchling's exact mode: the `editables` redirecting finder instead of a path.
    "hatchling-exact-finder": (
        "flat",
        '[build-system]\nrequires = ["hatchling"]\nbuild-backend = "hatchling.build"\n'
        '[tool.hatch.build.targets.wheel]\npackages = ["fidlib"]\ndev-mode-exact = true\n',
    ),
    "flit-src": (
        "src",
        '[build-system]\nrequires = ["flit_core>=3.4"]\nbuild-backend = "flit_core.buildapi"\n',
    ),
    "pdm-src": (
        "src",
        '[build-system]\nrequires = ["pdm-backend"]\nbuild-backend = "pdm.backend"\n',
    ),
}


@dataclass(frozen=True)
class EditableProject:
    root: Path
    python: Path

    def run(self, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(self.python), *args],
            cwd=self.root,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )

    def guardcheck(self, *args: str) -> subprocess.CompletedProcess[str]:
        return self.run("-m", "guardcheck", *args)

    def suite_passes(self) -> bool:
        return self.run("-m", "pytest", "-q", "-p", "no:cacheprovider").returncode == 0


def editable_project(tmp: Path, backend: str, tree: str = "fidelity-src") -> EditableProject:
    layout, build = BACKENDS[backend]
    root = tmp / "project"
    shutil.copytree(PROJECTS / tree, root, ignore=shutil.ignore_patterns("__pycache__"))
    if layout == "flat":
        _flatten(root)
    pyproject = root / "pyproject.toml"
    text = pyproject.read_text(encoding="utf-8")
    text = text.replace('version = "0.1"', 'version = "0.1"\ndescription = "a fixture"')
    pyproject.write_text(text + "\n" + build, encoding="utf-8")
    commit(root)
    python = venv_over_this_one(tmp / "venv")
    done = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-build-isolation", "--no-deps", "-e", "."],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return EditableProject(root, python)


def _flatten(root: Path) -> None:
    """src/fidlib -> fidlib, and every path that named it."""
    shutil.move(root / "src" / "fidlib", root / "fidlib")
    (root / "src").rmdir()
    for name in ("pyproject.toml", "mutations/fidlib.toml"):
        path = root / name
        text = path.read_text(encoding="utf-8").replace("src/fidlib", "fidlib")
        path.write_text(text.replace('"tests", "src"', '"tests", "fidlib"'), encoding="utf-8")


def venv_over_this_one(folder: Path) -> Path:
    """A venv without pip of its own that sees this environment's site-packages."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True)
    python = folder / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    # addsitedir, not a plain path: this environment's own .pth files (guardcheck's
    # editable install) must be processed too. It comes after the venv's own site dir.
    outer = site.getsitepackages()[0]
    Path(purelib, "outer.pth").write_text(f"import site; site.addsitedir({outer!r})\n")
    return python


def hand_verdict(project: EditableProject, entry: str) -> str:
    """ "caught" or "not caught": the entry written into the tree, the whole suite, reverted."""
    applied = project.guardcheck("apply", entry)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    try:
        return "not caught" if project.suite_passes() else "caught"
    finally:
        reverted = project.guardcheck("apply", "--revert", entry)
        assert reverted.returncode == 0, reverted.stdout + reverted.stderr
