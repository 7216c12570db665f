"""Per-turn helpers shared by the in-agent compressor and the gateway.

`compression_made_progress` is the one definition of "compaction shrank the
transcript". The gateway's recovery gate must call it rather than re-deriving
the comparison: a hand-rolled `new_tokens < orig_tokens` disagreed with it on
row-count wins, more verbose summaries and sub-5% wobbles.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

# A rewrite that keeps the message count must cut at least this share of the
# tokens to count as progress; smaller drops are noise in the estimate.
_TOKEN_PROGRESS_RATIO = 0.95

# Rough characters-per-token ratio for the estimator below.
_CHARS_PER_TOKEN = 4


def compression_made_progress(
    orig_len: int, new_len: int, orig_tokens: int, new_tokens: int
) -> bool:
    """Return True when a compaction really shrank the transcript.

    Fewer messages is always progress. With the same (or a larger) message
    count, the token estimate must drop strictly below 95% of the original:
    an exact 5% drop is not progress (1000 -> 950 is False, 1000 -> 940 is True),
    and nothing counts as a token drop when the original had no tokens.
    """
    if new_len < orig_len:
        return True
    return orig_tokens > 0 and new_tokens < orig_tokens * _TOKEN_PROGRESS_RATIO


# Back-compat alias: callers written before the predicate was made public
# import the private name.
_compression_made_progress = compression_made_progress


def estimate_messages_tokens(messages: Iterable[Mapping[str, Any]]) -> int:
    """Cheap token estimate of a transcript (characters of content / 4, rounded down).

    Only used to compare a transcript with its compacted form, so a stable
    estimate matters more than an exact tokenizer.
    """
    chars = sum(len(str(message.get("content") or "")) for message in messages)
    return chars // _CHARS_PER_TOKEN
