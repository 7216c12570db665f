"""guardcheck's library API: every command calls only this module.

Each capability (run, check, list, show, apply, lint-tests, equiv, ...) is one
function here that takes plain values and returns plain values; the click
commands parse flags, call one of these, render the result and map it to an
exit code.
"""

from __future__ import annotations

# --- equiv (guardcheck/equiv/: differential fuzzing across revisions) ---------------------
# Hypothesis is imported when `equiv` runs, not when a command imports this module.
from typing import TYPE_CHECKING

from guardcheck.equiv.request import DEFAULT_EXAMPLES, EquivRequest  # noqa: F401

if TYPE_CHECKING:
    from guardcheck.equiv.check import EquivResult


def equiv(request: EquivRequest) -> EquivResult:
    """Compare OLD and NEW (functions, or with `stateful` zero-argument factories) on the
    same generated inputs; the result says whether they agree and renders text or JSON."""
    from guardcheck.equiv.check import check

    return check(request)


# --- end equiv
