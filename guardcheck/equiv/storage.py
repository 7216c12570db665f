"""Where Hypothesis keeps its files while equiv runs: outside the user's project."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager

from hypothesis.configuration import set_hypothesis_home_dir


@contextmanager
def hypothesis_files_outside_the_project() -> Iterator[None]:
    """Hypothesis writes `.hypothesis/` (its example database, a cache of the constants in
    the source files it reads) under the working directory, which for equiv is the
    user's project; guardcheck leaves nothing there. A storage directory the user chose
    (HYPOTHESIS_STORAGE_DIRECTORY) stands."""
    if os.environ.get("HYPOTHESIS_STORAGE_DIRECTORY"):
        yield
        return
    with tempfile.TemporaryDirectory(prefix="guardcheck-hypothesis-") as folder:
        set_hypothesis_home_dir(folder)
        try:
            yield
        finally:
            set_hypothesis_home_dir(None)  # back to Hypothesis' own choice
