"""`--shard K/N`: parsing, and a deterministic split whose union is the whole run."""

from __future__ import annotations

import pytest
from support.reports import CALC, change

from guardcheck.errors import GuardcheckError
from guardcheck.model import (
    BaselineTest,
    ExecutionPath,
    Mutant,
    MutantResult,
    RunReport,
    Selection,
    Status,
)
from guardcheck.shard import (
    content_key,
    costs_from,
    parse_shard,
    shard_label,
    shard_of,
    take_shard,
)


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


def costs_for(mutants: list[Mutant], heavy: dict[str, float]) -> dict[str, float]:
    return {content_key(m): heavy.get(m.id, 0.1) for m in mutants}


@pytest.mark.parametrize("count", [2, 3, 7])
def test_balanced_shards_are_disjoint_add_up_and_agree_on_every_machine(count):
    """Issue 13 §2: the split balanced by times is still a partition every shard computes alike."""
    costs = costs_for(MUTANTS, {"m3": 5.0, "m7": 4.0})
    shards = [take_shard(MUTANTS, (k, count), costs) for k in range(1, count + 1)]
    ids = [m.id for shard in shards for m in shard]
    assert sorted(ids) == sorted(m.id for m in MUTANTS)
    assert len(ids) == len(set(ids))
    shuffled = list(reversed(MUTANTS))  # another machine's order: the same shard contents
    again = [take_shard(shuffled, (k, count), dict(costs)) for k in range(1, count + 1)]
    assert [{m.id for m in s} for s in again] == [{m.id for m in s} for s in shards]


def test_balanced_shards_even_out_the_known_cost():
    """Issue 13 §2: by count, one shard could get both slow mutants; by times it cannot."""
    costs = costs_for(MUTANTS, {"m3": 3.0, "m7": 3.0})
    loads = [sum(costs[content_key(m)] for m in take_shard(MUTANTS, (k, 2), costs)) for k in (1, 2)]
    assert abs(loads[0] - loads[1]) <= 0.1 + 1e-9  # at most the cheapest mutant apart
    slow = [{m.id for m in take_shard(MUTANTS, (k, 2), costs)} & {"m3", "m7"} for k in (1, 2)]
    assert sorted(len(found) for found in slow) == [1, 1]


def test_a_mutant_the_times_do_not_know_still_goes_to_exactly_one_shard():
    """A new mutant (not in the earlier report) is packed at the median cost, not dropped."""
    known = MUTANTS[:-1]
    costs = costs_for(known, {"m3": 9.0})
    shards = [take_shard(MUTANTS, (k, 2), costs) for k in (1, 2)]
    assert sorted(m.id for s in shards for m in s) == sorted(m.id for m in MUTANTS)


def test_costs_come_from_the_report_s_baseline_times_of_the_selected_tests():
    m_fast, m_slow = mutant(1), mutant(2)
    baseline = [BaselineTest("t::fast", 0.01, "t"), BaselineTest("t::slow", 2.0, "t")]

    def ran(m: Mutant, nodeid: str, path: ExecutionPath) -> MutantResult:
        rows = tuple(Selection(t.nodeid, t.nodeid == nodeid, "r") for t in baseline)
        return MutantResult(m, Status.CAUGHT, "", selection=rows, path=path)

    report = RunReport(
        root="/p",
        results=[
            ran(m_fast, "t::fast", ExecutionPath.FORK),
            ran(m_slow, "t::slow", ExecutionPath.FRESH),
        ],
        baseline=baseline,
    )
    costs = costs_from(report)
    assert costs[content_key(m_fast)] == pytest.approx(0.01 + 0.01)
    assert costs[content_key(m_slow)] == pytest.approx(2.0 + 1.0)  # a fresh start-up too
