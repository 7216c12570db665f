"""The lab's hash seed goes in as an interpreter starts, and the user's comes back."""

from __future__ import annotations

import os

import pytest

from guardcheck import messages
from guardcheck.child.hashseed import restore_user_hash_seed
from guardcheck.lab.execute.processes import SESSION_HASH_SEED, one_hash_seed


@pytest.mark.parametrize("own", [None, "", "random"])
def test_without_a_fixed_seed_the_child_starts_with_ours_and_its_tests_see_theirs(monkeypatch, own):
    inherited = {} if own is None else {"PYTHONHASHSEED": own}
    started_with = one_hash_seed(inherited)
    assert started_with["PYTHONHASHSEED"] == SESSION_HASH_SEED
    for name, value in started_with.items():  # the child's environment as it starts
        monkeypatch.setenv(name, value)
    restore_user_hash_seed()
    assert os.environ.get("PYTHONHASHSEED") == own
    assert messages.HASHSEED_ENV not in os.environ


def test_a_seed_the_user_fixed_is_left_alone(monkeypatch):
    assert one_hash_seed({"PYTHONHASHSEED": "0"}) == {}
    monkeypatch.setenv("PYTHONHASHSEED", "0")
    monkeypatch.delenv(messages.HASHSEED_ENV, raising=False)
    restore_user_hash_seed()
    assert os.environ["PYTHONHASHSEED"] == "0"
