"""A sweep's counts as the cache stores them beside its mutants (pipeline/inputs.py)."""

from __future__ import annotations

import json

import pytest

from guardcheck.pipeline.inputs import SweepCounts


def test_counts_come_back_from_the_cache_as_they_were_stored():
    counts = SweepCounts(12, {"exclude": 3, "arid:logging": 2}, 4, ("app.py: no function",))
    stored = json.loads(json.dumps(counts.to_json()))  # the cache's entries are JSON
    assert SweepCounts.from_json(stored) == counts


@pytest.mark.parametrize(
    "stored",
    [
        # What an older guardcheck stored: a positional list. Its sweep is built afresh.
        [12, {"exclude": 3}, 4, []],
        None,
        {"generated": 12, "skipped": {"exclude": 3}, "files": 4},  # a key missing
        {"generated": "twelve", "skipped": {}, "files": 4, "warnings": []},
    ],
)
def test_counts_stored_in_another_shape_are_not_replayed(stored):
    """Guards the replay: counts the sweep cannot read make it build its mutants again
    instead of reporting numbers it does not have (the cache used to store a list)."""
    assert SweepCounts.from_json(stored) is None
