"""Running git: the one helper every part of guardcheck that reads a repository calls.

Output is text, decoded as UTF-8 (what git writes for paths and the blobs of a Python
project). Callers differ in what a failure means, so the choices are theirs: `check`
raises `subprocess.CalledProcessError` on a non-zero status; `missing` turns git absent
from PATH into a `GuardcheckError` with that message (otherwise `FileNotFoundError`
propagates); `scrub_env` drops the caller's `GIT_*` variables, so a `GIT_DIR` set by a
git hook cannot redirect git to the user's repository when it should read a copy.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from guardcheck.errors import GuardcheckError


def run(
    cwd: Path,
    *args: str,
    check: bool = False,
    missing: str | None = None,
    scrub_env: bool = False,
    errors: str = "strict",
    timeout: float | None = None,
) -> subprocess.CompletedProcess[str]:
    """`git ARGS` in `cwd`, its stdout and stderr captured as text."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")} if scrub_env else None
    try:
        return subprocess.run(
            ["git", *args],
            cwd=cwd,
            env=env,
            capture_output=True,
            encoding="utf-8",
            errors=errors,
            check=check,
            timeout=timeout,
        )
    except FileNotFoundError:
        if missing is None:
            raise
        raise GuardcheckError(missing) from None
