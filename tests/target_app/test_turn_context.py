"""The shared progress predicate: `compression_made_progress` and its boundaries."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from target_app.agent import turn_context
from target_app.agent.turn_context import compression_made_progress, estimate_messages_tokens

# Deterministic and history-free: guardcheck runs this suite once per mutant, and a kill
# must not depend on a random seed or on examples saved by an earlier run.
FAST = settings(max_examples=50, deadline=None, derandomize=True, database=None)


def test_fewer_messages_is_progress_even_with_flat_tokens():
    assert compression_made_progress(100, 99, 1000, 1000) is True


def test_fewer_messages_is_progress_even_when_tokens_grow():
    assert compression_made_progress(100, 10, 1000, 1200) is True


def test_same_message_count_and_flat_tokens_is_not_progress():
    """Regression 17: `<=` in the message-count rule would call an unchanged count progress."""
    assert compression_made_progress(100, 100, 1000, 1000) is False


def test_more_messages_without_token_drop_is_not_progress():
    assert compression_made_progress(100, 120, 1000, 990) is False


def test_exact_five_percent_token_drop_is_not_progress():
    """Regression 17: `<=` in the 5% rule would accept 1000 -> 950."""
    assert compression_made_progress(100, 100, 1000, 950) is False


def test_more_than_five_percent_token_drop_is_progress():
    assert compression_made_progress(100, 100, 1000, 940) is True


def test_sub_five_percent_wobble_is_not_progress():
    assert compression_made_progress(100, 100, 1000, 960) is False


def test_zero_original_tokens_is_never_a_token_drop():
    assert compression_made_progress(5, 5, 0, 0) is False
    assert compression_made_progress(5, 5, 0, -1) is False


def test_private_alias_is_the_same_function():
    assert turn_context._compression_made_progress is compression_made_progress


def test_token_estimate_is_a_quarter_of_the_content_characters():
    messages = [{"content": "x" * 40}, {"content": "y" * 8}, {"content": None}, {}]
    assert estimate_messages_tokens(messages) == 12


@FAST
@given(
    orig_len=st.integers(1, 2000),
    drop=st.integers(1, 2000),
    orig_tokens=st.integers(0, 10**6),
    new_tokens=st.integers(0, 10**7),
)
def test_any_drop_in_message_count_is_progress(orig_len, drop, orig_tokens, new_tokens):
    assert compression_made_progress(orig_len, orig_len - drop, orig_tokens, new_tokens)


@FAST
@example(orig_len=100, grow=0, orig_tokens=1000, percent_kept=95)
@example(orig_len=7, grow=0, orig_tokens=20, percent_kept=95)
@given(
    orig_len=st.integers(0, 2000),
    grow=st.integers(0, 2000),
    orig_tokens=st.integers(1, 10**6),
    percent_kept=st.integers(95, 200),
)
def test_keeping_the_count_needs_more_than_a_five_percent_token_cut(
    orig_len, grow, orig_tokens, percent_kept
):
    """Regression 17: the threshold is strict, at any scale (95% kept is not progress)."""
    new_tokens = -(-orig_tokens * percent_kept // 100)  # ceil: at least `percent_kept`%
    assert not compression_made_progress(orig_len, orig_len + grow, orig_tokens, new_tokens)


@FAST
@given(
    orig_len=st.integers(0, 2000),
    orig_tokens=st.integers(20, 10**6),
    percent_kept=st.integers(0, 94),
)
def test_keeping_the_count_with_a_larger_token_cut_is_progress(orig_len, orig_tokens, percent_kept):
    new_tokens = orig_tokens * percent_kept // 100
    assert compression_made_progress(orig_len, orig_len, orig_tokens, new_tokens)


@pytest.mark.parametrize(
    ("orig_tokens", "new_tokens", "expected"),
    [(2000, 1900, False), (2000, 1899, True), (20, 19, False), (20, 18, True)],
)
def test_token_rule_boundary_scales_with_the_original(orig_tokens, new_tokens, expected):
    """Regression 17: exactly 95% is never progress; one token less is."""
    assert compression_made_progress(7, 7, orig_tokens, new_tokens) is expected
