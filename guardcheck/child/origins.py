"""Did the tests import the project from the private copy? (lab/sandbox/importroots.py)

After collection the host looks at every loaded module: one whose file lies in
the user's own tree, under a measured source path, was imported around the
copy (an editable finder the copy's import roots did not shadow, a
`sys.path.insert` of an absolute path, a namespace package split across
both). Mutants of it would never run, so the lab stops before any verdict.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence


def foreign_modules(origin: str, copy: str, source: Sequence[str]) -> list[str]:
    """`name (path)` of each loaded module whose file is the user's, not the copy's."""
    if not origin:
        return []
    copy_real = os.path.realpath(copy)
    watched = []
    for path in source:
        real = os.path.realpath(path)
        inside = os.path.relpath(real, copy_real)
        if not inside.startswith(os.pardir):
            watched.append(os.path.normpath(os.path.join(os.path.realpath(origin), inside)))
    found = []
    for name, module in list(sys.modules.items()):
        filename = getattr(module, "__file__", None)
        if not isinstance(filename, str):
            continue
        real = os.path.realpath(filename)
        if real.startswith(copy_real + os.sep) or _installed(real):
            continue
        if any(real == w or real.startswith(w + os.sep) for w in watched):
            found.append(f"{name} ({real})")
    return sorted(found)


def _installed(path: str) -> bool:
    """A virtualenv inside the project holds installed packages, not the project's own."""
    parts = path.split(os.sep)
    return "site-packages" in parts or "dist-packages" in parts
