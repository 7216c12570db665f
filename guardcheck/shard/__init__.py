"""`--shard K/N`: split one run's mutants over N machines without coordination (pure).

Each mutant goes to shard `1 + sha256(content key) mod N`. The content key is what
the mutant *does* (its id, and per changed file the path and every splice), never its
position in the catalogue or a sweep, so every machine computes the same split from the
same tree, and adding or removing one mutant moves no other. The shards are disjoint
and their union is the full selection.

Balance is by count, statistically: a hash does not know that one mutant runs a
fresh interpreter for a second while another forks for 10 ms. Weighting by the
baseline's test times would need the baseline before the split (every shard runs it
anyway) and a deterministic bin-packing over all mutants; it is left for later.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

from guardcheck.errors import GuardcheckError
from guardcheck.model import Mutant

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


def take_shard(mutants: Sequence[Mutant], shard: Shard | None) -> list[Mutant]:
    """The mutants shard K of N runs, in their original order (all of them for None)."""
    if shard is None:
        return list(mutants)
    k, n = shard
    return [m for m in mutants if shard_of(m, n) == k]


def shard_label(shard: Shard | None) -> str:
    """'shard 2/4', or '' for an unsharded run."""
    return f"shard {shard[0]}/{shard[1]}" if shard else ""
