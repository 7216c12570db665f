"""The one set of exit codes every guardcheck command uses (documented in the README)."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0  # all mutants caught / catalogue sound
    GATE_FAILED = 1  # a mutant survived, had no coverage, or was caught elsewhere
    USAGE = 2  # catalogue or usage error: nothing was run
    BASELINE_FAILED = 3  # the unmutated tests are red or flaky
    INCOMPLETE = 4  # internal error: results incomplete (partial reports were written)
    INTERRUPTED = 130  # Ctrl-C / SIGTERM, after children were cleaned up
