"""Property-based tests in a mutant's run stop at their first failing example.

A verdict needs to know that a test failed, not the smallest input that makes
it fail. Hypothesis spends most of a failing property test's time shrinking
and explaining that input (bench/README.md), so in
mutant and control runs the shrink and explain phases are dropped from each
selected test's settings. Whether the test fails is unchanged: Hypothesis
stops generating at its first failing example and replays it to raise the
failure (a replay that passes raises `Flaky`, a failure too). The baseline
keeps the full phases, so a red baseline still shows the minimal example.

Only tests whose module already imported hypothesis are touched; a project
without it pays one dictionary lookup.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any

import pytest

# Hypothesis keeps a `@given` test's settings here and reads them at each call
# (hypothesis/core.py, stable since 3.x); a version without it is left alone.
_SETTINGS_ATTRIBUTE = "_hypothesis_internal_use_settings"


def stop_at_first_failure(items: Iterable[pytest.Item]) -> int:
    """Drop shrinking and explaining from the `@given` tests among `items`; how many."""
    hypothesis = sys.modules.get("hypothesis")
    if hypothesis is None:
        return 0
    settings_class = getattr(hypothesis, "settings", None)
    phase = getattr(hypothesis, "Phase", None)
    if settings_class is None or phase is None:
        return 0
    dropped = {getattr(phase, "shrink", None), getattr(phase, "explain", None)} - {None}
    changed = 0
    for item in items:
        test = _given_test(item)
        if test is None:
            continue
        current = getattr(test, _SETTINGS_ATTRIBUTE)
        phases = tuple(p for p in current.phases if p not in dropped)
        if phases == tuple(current.phases):
            continue
        try:
            setattr(test, _SETTINGS_ATTRIBUTE, settings_class(parent=current, phases=phases))
        except Exception:  # an unexpected settings object: keep the test as it is
            continue
        changed += 1
    return changed


def _given_test(item: pytest.Item) -> Any | None:
    """The function object Hypothesis reads the settings from, or None."""
    function = getattr(item, "obj", None)
    function = getattr(function, "__func__", function)  # a test method
    if not getattr(function, "is_hypothesis_test", False):
        return None
    if getattr(function, _SETTINGS_ATTRIBUTE, None) is None:
        return None
    return function
