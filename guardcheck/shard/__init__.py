"""`--shard K/N`: split one run's mutants over N machines without coordination (pure).

Each mutant goes to shard `1 + sha256(content key) mod N`. The content key is what
the mutant *does* (its id, and per changed file the path and every splice), never its
position in the catalogue or a sweep, so every machine computes the same split from the
same tree, and adding or removing one mutant moves no other. The shards are disjoint
and their union is the full selection.

Without times, balance is by count, statistically: a hash does not know that one
mutant run in a fresh interpreter costs far more than one that forks.

With times (`--shard-times REPORT.json`, a guardcheck JSON report of an earlier run
that every shard is given, e.g. the last merged report of the main branch, shipped as
a CI artifact), each mutant's cost is estimated from that report: the baseline times of
the tests it selected there plus the start-up of its path (`costs_from`); a mutant the
report does not hold (new, or its content changed) costs the median of the known ones.
The mutants are then packed greedily, costliest first, each onto the shard with the
least cost so far (ties by content key, then by lowest shard), so every machine
computes the same split from the same mutants and the same report: deterministic, no
coordination, disjoint, and the union is the full selection. Times are only "known"
through that explicit file, never from a machine's own cache: two shards with
different caches would split differently. The report's digest is part of the run's
provenance, so `guardcheck merge` refuses shards balanced on different reports.
"""

from __future__ import annotations

import hashlib
import heapq
import re
import statistics
from collections.abc import Mapping, Sequence

from guardcheck.errors import GuardcheckError
from guardcheck.model import ExecutionPath, Mutant, RunReport

Shard = tuple[int, int]  # (K, N), 1-based: shard K of N

_SPEC = re.compile(r"\s*(\d+)\s*/\s*(\d+)\s*")


def parse_shard(text: str) -> Shard:
    """'2/4' -> (2, 4); anything else (0/4, 5/4, 'two') raises GuardcheckError (exit 2)."""
    match = _SPEC.fullmatch(text)
    if match is None:
        raise GuardcheckError(
            f"--shard {text!r}: expected K/N, e.g. 1/4\n  fix: pass --shard 1/4 ... --shard 4/4"
        )
    k, n = int(match[1]), int(match[2])
    if n < 1 or not 1 <= k <= n:
        raise GuardcheckError(
            f"--shard {text}: K must be between 1 and N (and N at least 1)\n"
            f"  fix: shards are numbered from 1: --shard 1/{max(n, 1)} ... "
            f"--shard {max(n, 1)}/{max(n, 1)}"
        )
    return k, n


def content_key(mutant: Mutant) -> str:
    """A stable digest of what the mutant changes (hex sha256).

    Unambiguous: each part is length-prefixed, so no two different mutants can
    concatenate to the same bytes.
    """
    digest = hashlib.sha256()

    def part(text: str) -> None:
        data = text.encode("utf-8")
        digest.update(f"{len(data)}:".encode())
        digest.update(data)

    part(mutant.id)
    for change in mutant.changes:
        part(change.path)
        for splice in change.splices:
            part(f"{splice.start}-{splice.end}")
            part(splice.replacement)
    return digest.hexdigest()


def shard_of(mutant: Mutant, count: int) -> int:
    """The 1-based shard of `count` that runs `mutant`."""
    return 1 + int(content_key(mutant), 16) % count


# Start-up a mutant costs beside its tests, by path (as measured: bench/README.md), so
# that a report's zero-second tests still weigh something.
PATH_SECONDS = {ExecutionPath.FORK: 0.01, ExecutionPath.FRESH: 1.0}


def costs_from(report: RunReport) -> dict[str, float]:
    """content key -> estimated seconds, for every mutant an earlier run's report holds."""
    seconds = {t.nodeid: t.duration for t in report.baseline}
    costs: dict[str, float] = {}
    for result in report.results:
        tests = sum(seconds.get(nodeid, 0.0) for nodeid in result.covered_by)
        costs[content_key(result.mutant)] = tests + PATH_SECONDS.get(result.path, 0.01)
    return costs


def take_shard(
    mutants: Sequence[Mutant], shard: Shard | None, costs: Mapping[str, float] | None = None
) -> list[Mutant]:
    """The mutants shard K of N runs, in their original order (all of them for None).

    `costs` (content key -> seconds, from `costs_from`): balance the shards by it.
    """
    if shard is None:
        return list(mutants)
    k, n = shard
    if not costs:
        return [m for m in mutants if shard_of(m, n) == k]
    mine = {key for key, index in _packed(mutants, n, costs).items() if index == k}
    return [m for m in mutants if content_key(m) in mine]


def _packed(mutants: Sequence[Mutant], count: int, costs: Mapping[str, float]) -> dict[str, int]:
    """content key -> 1-based shard: longest-processing-time-first onto the least loaded."""
    keys = sorted({content_key(m) for m in mutants})
    known = [costs[key] for key in keys if key in costs]
    default = statistics.median(known) if known else 1.0
    order = sorted(keys, key=lambda key: (-costs.get(key, default), key))
    loads = [(0.0, index) for index in range(1, count + 1)]  # a heap: (load, shard)
    assigned: dict[str, int] = {}
    for key in order:
        load, index = heapq.heappop(loads)
        assigned[key] = index
        heapq.heappush(loads, (load + costs.get(key, default), index))
    return assigned


def shard_label(shard: Shard | None) -> str:
    """'shard 2/4', or '' for an unsharded run."""
    return f"shard {shard[0]}/{shard[1]}" if shard else ""
