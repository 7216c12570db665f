"""`--shard K/N`: parsing, and a deterministic split whose union is the whole run."""

from __future__ import annotations

import pytest
from support.reports import CALC, change

from guardcheck.errors import GuardcheckError
from guardcheck.model import Mutant
from guardcheck.shard import content_key, parse_shard, shard_label, shard_of, take_shard


def mutant(n: int) -> Mutant:
    return Mutant(f"m{n}", "s", (change("pkg/calc.py", CALC, "a + b", f"a + {n}"),))


MUTANTS = [mutant(n) for n in range(60)]


@pytest.mark.parametrize(
    ("text", "expected"), [("1/1", (1, 1)), ("2/4", (2, 4)), (" 3 / 3", (3, 3))]
)
def test_parse_shard_accepts_k_of_n(text, expected):
    assert parse_shard(text) == expected


@pytest.mark.parametrize("text", ["0/2", "3/2", "1/0", "two", "1/2/3", ""])
def test_parse_shard_rejects_anything_else_with_a_fix(text):
    with pytest.raises(GuardcheckError, match="fix:"):
        parse_shard(text)


@pytest.mark.parametrize("count", [1, 2, 3, 7])
def test_shards_are_disjoint_and_add_up_to_the_whole_selection(count):
    shards = [take_shard(MUTANTS, (k, count)) for k in range(1, count + 1)]
    ids = [m.id for shard in shards for m in shard]
    assert sorted(ids) == sorted(m.id for m in MUTANTS)
    assert len(ids) == len(set(ids))


def test_a_shard_keeps_the_selection_order():
    shard = take_shard(MUTANTS, (1, 3))
    assert shard == [m for m in MUTANTS if m in shard]


def test_the_split_depends_on_content_not_on_position():
    reordered = list(reversed(MUTANTS))[::2]
    for m in reordered:
        assert shard_of(m, 5) == shard_of(mutant(int(m.id[1:])), 5)
    assert {m.id for m in take_shard(reordered, (2, 5))} <= {
        m.id for m in take_shard(MUTANTS, (2, 5))
    }


def test_the_content_key_is_pinned_so_machines_agree():
    # Changing the key would split differently per guardcheck version; the merge checks
    # versions, but the change must be deliberate.
    assert content_key(mutant(1)) == (
        "15c22fcfe057ad926b6596084549159a82156219cdbe65828b5941bacbdfeb35"
    )
    assert content_key(mutant(1)) != content_key(mutant(2))


def test_the_split_is_roughly_balanced():
    sizes = [len(take_shard(MUTANTS, (k, 2))) for k in (1, 2)]
    assert min(sizes) >= 20  # 60 mutants: a hash, not a round-robin, but not lopsided


def test_no_shard_means_everything_and_labels_say_which():
    assert take_shard(MUTANTS, None) == MUTANTS
    assert shard_label((2, 4)) == "shard 2/4"
    assert shard_label(None) == ""
