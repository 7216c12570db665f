"""`sys.path` in a test process as plain pytest has it: each folder once.

The lab puts the copy's import roots first on `PYTHONPATH` (lab/sandbox/importroots.py)
so that every process the tests start imports the copy. In a flat layout the root is
also the working folder, which `python -m pytest` puts first on `sys.path` itself, so
the folder is listed twice. Importing is the same either way (the first entry answers),
but a tool that reads `sys.path` is not: mypy (pytest-mypy, or `mypy.api` in a test)
skips the first entry, the script's own folder, and counts a module found under any
other entry as an installed package whose errors it silences. With the folder listed a
second time, mypy silenced every error inside the project's own modules, where by hand
it reports them, and a mutant only mypy catches survived. Dropping the repeats gives
mypy the `sys.path` of a plain session.
"""

from __future__ import annotations

import os
import sys


def drop_repeated_entries() -> None:
    """Keep the first of the `sys.path` entries that name the same folder."""
    seen: set[str] = set()
    kept: list[str] = []
    for entry in sys.path:
        folder = os.path.abspath(entry) if entry else os.getcwd()
        if folder not in seen:
            seen.add(folder)
            kept.append(entry)
    sys.path[:] = kept
