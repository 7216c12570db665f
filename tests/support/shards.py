"""Shard reports built from a RunReport, as `run --shard K/N` would record them."""

from __future__ import annotations

from dataclasses import replace

from guardcheck.model import Gate, Provenance, Revision, RunReport
from guardcheck.shard import take_shard

CONFIG = {"source": ["pkg"], "timeout_factor": 2.0, "mutants": "abc", "catalogue": {}}


def provenance(report: RunReport, **overrides: object) -> Provenance:
    base = Provenance(
        version="9.9.9",
        revision=Revision("0123456789abcdef0123456789abcdef01234567", dirty=False),
        config=dict(CONFIG),
        config_hash="hash-of-config",
        gate=Gate(),
        shard=None,
        selected=tuple(r.mutant.id for r in report.results),
    )
    return replace(base, **overrides)  # type: ignore[arg-type]


def shard_reports(full: RunReport, count: int, **overrides: object) -> list[RunReport]:
    """`full` split as `count` shards would run it, each recording its provenance."""
    whole = full.provenance or provenance(full, **overrides)
    shards = []
    for k in range(1, count + 1):
        mine = {m.id for m in take_shard([r.mutant for r in full.results], (k, count))}
        shards.append(
            replace(
                full,
                results=[r for r in full.results if r.mutant.id in mine],
                provenance=replace(whole, shard=(k, count)),
            )
        )
    return shards
