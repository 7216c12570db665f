"""Which folders make the project's own packages import from the private copy.

A project installed editable (setuptools' `__editable__*.pth` or its finder,
hatchling, pdm, flit, uv) or listed in a `.pth` resolves its packages to the
user's tree, and a test in the copy would then import the user's files: no
mutant would ever run. A checkout with the same editable install pointing at
it imports the checkout's files, so that is what the lab gives the tests: the
copy's import roots first on `PYTHONPATH`, ahead of site-packages and every
`.pth` path, in the host, the fresh runs and every process their tests start
(they inherit the environment). The editable finders are appended to
`sys.meta_path`, after the path finder, so they only answer for names the
copy does not hold. The host checks the outcome after collection
(child/origins.py): a project module that still came from the user's tree
stops the run.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

PYTHONPATH = "PYTHONPATH"


def import_root(path: Path) -> Path:
    """The folder that must be on sys.path to import `path` by its full dotted name.

    A package folder or module file climbs through every enclosing package
    (`src/pkg/sub` gives `src`); a folder that is not a package (`src`) is a
    root itself.
    """
    if path.is_dir() and not (path / "__init__.py").is_file():
        return path
    folder = path if path.is_dir() else path.parent
    while (folder / "__init__.py").is_file() and folder.parent != folder:
        folder = folder.parent
    return folder


def import_roots(source: Iterable[str]) -> list[str]:
    """The distinct import roots of the measured source paths, in their order."""
    roots = (str(import_root(Path(s))) for s in source if Path(s).exists())
    return list(dict.fromkeys(roots))


def foreign_message(foreign: Sequence[str]) -> str:
    """Why the run stops when the tests imported project modules around the copy."""
    listed = "\n".join(f"  {m}" for m in foreign[:10])
    more = f"\n  ... and {len(foreign) - 10} more" if len(foreign) > 10 else ""
    return (
        "the tests imported project modules from your working tree instead of "
        f"guardcheck's private copy, so no mutant would run in them:\n{listed}{more}\n"
        "  fix: list the folder that holds these packages in [tool.guardcheck] source "
        '(e.g. source = ["src/pkg"]): guardcheck puts its import root first on '
        "PYTHONPATH. Code that inserts absolute paths into sys.path must derive them "
        "from __file__ or the working directory"
    )


def with_roots_first(roots: Sequence[str], environ: dict[str, str]) -> dict[str, str]:
    """`{"PYTHONPATH": ...}` with `roots` ahead of whatever the environment had."""
    inherited = [p for p in environ.get(PYTHONPATH, "").split(os.pathsep) if p]
    if not roots:
        return {PYTHONPATH: os.pathsep.join(inherited)} if inherited else {}
    return {PYTHONPATH: os.pathsep.join(dict.fromkeys([*roots, *inherited]))}
