"""The test ids pytest collects for the project, from one real `--collect-only` run."""

from __future__ import annotations

import os
import subprocess
import sys

from guardcheck.errors import GuardcheckError
from guardcheck.options import RunOptions

COLLECT_TIMEOUT_SECONDS = 300


class CollectFailed(GuardcheckError):
    """pytest could not collect; carries the pieces of a Problem."""

    def __init__(self, reason: str, fix: str, details: tuple[str, ...] = ()) -> None:
        self.reason, self.fix, self.details = reason, fix, details
        lines = [reason, *(f"  {d}" for d in details), f"  fix: {fix}"]
        super().__init__("\n".join(lines))


def collect_command(settings: RunOptions) -> list[str]:
    return [
        sys.executable,
        "-m",
        "pytest",
        "--collect-only",
        "-q",
        "-p",
        "no:cacheprovider",
        *settings.tests,
        *settings.pytest_args,
    ]


def collected_test_ids(settings: RunOptions) -> tuple[str, ...]:
    """Node ids as pytest reports them, run in the project root.

    Raises CollectFailed when pytest cannot collect (syntax error in a test,
    missing test path): killed_by cannot be checked against a broken collection.
    """
    command = collect_command(settings)
    # No .pyc files and no cache: collecting must not change the working tree.
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    try:
        done = subprocess.run(
            command,
            cwd=settings.root,
            env=env,
            capture_output=True,
            text=True,
            timeout=COLLECT_TIMEOUT_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise CollectFailed(
            f"pytest did not finish collecting within {COLLECT_TIMEOUT_SECONDS} s",
            f"run `python {' '.join(command[1:])}` yourself to see why",
        ) from None
    # 5 is "no tests collected": an empty but valid collection.
    if done.returncode not in (0, 5):
        output = (done.stdout + done.stderr).splitlines()
        raise CollectFailed(
            f"pytest could not collect the tests (exit code {done.returncode}), "
            "so `killed_by` cannot be checked",
            f"make `python {' '.join(command[1:])}` succeed in {settings.root}",
            tuple(f"| {line}" for line in output[-15:]),
        )
    return tuple(_node_ids(done.stdout))


def _node_ids(output: str) -> list[str]:
    # `-q` prints one node id per line, then a blank line and a summary.
    ids = []
    for line in output.splitlines():
        if not line.strip():
            break
        if "::" in line and not line.startswith(" "):
            ids.append(line.strip())
    return ids
