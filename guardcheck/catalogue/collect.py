"""The test ids pytest collects for the project, from one real `--collect-only` run."""

from __future__ import annotations

import subprocess

from guardcheck import pytestrun
from guardcheck.errors import GuardcheckError
from guardcheck.options import RunOptions

COLLECT_TIMEOUT_SECONDS = 300


class CollectFailed(GuardcheckError):
    """pytest could not collect; carries the pieces of a Problem."""

    def __init__(self, reason: str, fix: str, details: tuple[str, ...] = ()) -> None:
        self.reason, self.fix, self.details = reason, fix, details
        lines = [reason, *(f"  {d}" for d in details), f"  fix: {fix}"]
        super().__init__("\n".join(lines))


def _collect_args(settings: RunOptions) -> list[str]:
    return ["--collect-only", "-q", *settings.tests, *settings.pytest_args]


def collect_command(settings: RunOptions) -> list[str]:
    return pytestrun.command(_collect_args(settings))


def collected_test_ids(settings: RunOptions) -> tuple[str, ...]:
    """Node ids as pytest reports them, run in the project root.

    Raises CollectFailed when pytest cannot collect (syntax error in a test,
    missing test path): killed_by cannot be checked against a broken collection.
    """
    command = collect_command(settings)
    # No .pyc files and no cache: collecting must not change the working tree.
    try:
        done = pytestrun.run(
            settings.root, _collect_args(settings), timeout=COLLECT_TIMEOUT_SECONDS
        )
    except subprocess.TimeoutExpired:
        raise CollectFailed(
            f"pytest did not finish collecting within {COLLECT_TIMEOUT_SECONDS} s",
            f"run `python {' '.join(command[1:])}` yourself to see why",
        ) from None
    # 5 is "no tests collected": an empty but valid collection.
    if done.returncode not in (0, 5):
        raise CollectFailed(
            f"pytest could not collect the tests (exit code {done.returncode}), "
            "so `killed_by` cannot be checked",
            f"make `python {' '.join(command[1:])}` succeed in {settings.root}",
            tuple(f"| {line}" for line in pytestrun.tail_lines(done.stdout + done.stderr)),
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
