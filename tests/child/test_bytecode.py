"""keep_bytecode (child/bytecode.py): where the host's and fresh runs' bytecode goes.

Each case runs in a fresh interpreter: the prefix and the finder change how every later
import of the process works.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from guardcheck import messages

SCRIPT = textwrap.dedent(
    """
    import importlib, json, os, sys
    site, project = sys.argv[1], sys.argv[2]
    sys.path[:0] = [project, site]
    from guardcheck.child import bytecode
    interpreter = bytecode.installed_folders()
    if site != "-":  # a fake site-packages beside the interpreter's own folders
        bytecode.installed_folders = lambda: [*interpreter, os.path.join(site, "")]
    bytecode.keep_bytecode()
    names = sys.argv[3:]
    modules = [importlib.import_module(name) for name in names]
    print(json.dumps({
        "cached": {n: m.__cached__ for n, m in zip(names, modules)},
        "values": {n: getattr(m, "VALUE", None) for n, m in zip(names, modules)},
        "finders": [getattr(f, "__name__", type(f).__name__) for f in sys.meta_path],
    }))
    """
)


def _run(prefix: Path, site: str, project: Path, *modules: str) -> dict:
    env = {messages.PYCACHE_ENV: str(prefix), "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, site, str(project), *modules],
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def _pycs(folder: Path) -> list[str]:
    return sorted(p.name.split(".")[0] for p in folder.rglob("*.pyc"))


def test_installed_modules_keep_their_own_bytecode_and_the_project_gets_the_prefix(tmp_path):
    """Regression: once the prefix was set, installed modules imported after our plugin
    (pytest's entry-point plugins, coverage in every baseline worker, the tests' own
    libraries) were compiled from source into <output>/pycache on every fresh output
    folder: importing coverage took 0.25 s in a baseline worker instead of 0.04 s."""
    site, project, prefix = tmp_path / "site", tmp_path / "project", tmp_path / "prefix"
    site.mkdir()
    project.mkdir()
    (site / "fakelib.py").write_text("VALUE = 'installed'\n")
    (project / "projmod.py").write_text("VALUE = 'project'\n")

    seen = _run(prefix, str(site), project, "fakelib", "projmod")

    assert seen["values"] == {"fakelib": "installed", "projmod": "project"}
    # The project's bytecode is kept in the prefix folder, and nothing lands next to it.
    assert _pycs(prefix) == ["projmod"]
    assert not (project / "__pycache__").exists()
    # The installed module is read as if no prefix were set, and nothing is written for
    # it, neither in the prefix folder nor in its own installation.
    assert Path(seen["cached"]["fakelib"]).parent == site / "__pycache__"
    assert not (site / "__pycache__").exists()
    # Earlier finders (pytest's assertion rewriter, guardcheck's import hook) keep priority.
    finders = seen["finders"]
    assert finders.index("InstalledBytecode") == finders.index("PathFinder") - 1


def test_standard_library_modules_load_from_their_installed_bytecode(tmp_path):
    prefix, project = tmp_path / "prefix", tmp_path / "project"
    project.mkdir()

    seen = _run(prefix, "-", project, "colorsys", "wave")

    assert _pycs(prefix) == []  # nothing of the standard library compiled into it
    for cached in seen["cached"].values():
        assert not cached.startswith(str(prefix))
