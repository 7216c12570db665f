"""Incremental results: a mutant whose code, tests and environment are unchanged is not re-run.

    report = cached_run(options, chosen, events, run_lab)

`run_lab(mutants, restorer, saver)` runs the lab (baseline included) on the mutants given,
telling `saver` (a listener) each verdict as it is reached, so that its entries are
written while the lab goes on rather than all at the end. With
the cache on, the chosen mutants are split into hits of this exact project state
(restored, announced to `events` as finished) and misses; only the misses go to the lab,
and when there are none and the baseline of this project state is stored too, the lab
does not start at all. In the lab, once the baseline has run, `restorer` restores each
planned miss whose dependency key (`deps.py`: what its selected tests ran) matches a
stored verdict, so editing one function re-runs only the mutants that can see the edit.
The keys are in `keys.py` and `deps.py` (content only, never positions or ids alone), the
files they read in `files.py`, the entries' layout in `codec.py` and `store.py`.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Protocol

from guardcheck.cache import codec, keys
from guardcheck.cache.deps import Coverage, DependencyKeys
from guardcheck.cache.files import project_digests
from guardcheck.cache.store import Store, cache_secret
from guardcheck.model import (
    BaselineTest,
    Mutant,
    MutantResult,
    RunReport,
    Selection,
    Status,
    TestOutcome,
)
from guardcheck.options import RunOptions

__all__ = ["RESTORED_LOG", "Restorer", "ResultCache", "Saver", "cached_run", "open_cache"]

RESTORED_LOG = "restored from the guardcheck cache (--no-cache re-runs it)\n"


class Finished(Protocol):
    """The part of reports.RunEvents this module calls (the cache does not import reports)."""

    def mutant_finished(self, result: MutantResult, log: str) -> None: ...


def open_cache(options: RunOptions) -> ResultCache | None:
    """The cache of the project as it is now (digests read once), or None under --no-cache."""
    return ResultCache(options) if options.cache else None


def cached_run(
    cache: ResultCache | None,
    chosen: Sequence[Mutant],
    events: Finished,
    run_lab: Callable[[Sequence[Mutant], Restorer | None, Saver | None], RunReport],
) -> RunReport:
    """The run of `chosen`, from the cache where it can be and from `run_lab` for the rest."""
    if cache is None:
        return run_lab(chosen, None, None)
    started = time.perf_counter()
    lookup = cache.lookup(chosen)
    for result in lookup.hits.values():
        events.mutant_finished(result, RESTORED_LOG)
    if not lookup.misses and lookup.baseline is not None:
        report = lookup.restored(cache.options)
        report.wall_seconds = time.perf_counter() - started
        return report
    restorer = Restorer(cache)
    saver = Saver(cache, restorer)
    try:
        ran = run_lab([chosen[i] for i in lookup.misses], restorer, saver)
    finally:
        saver.close()
    cache.save(ran, restorer, saved=saver.saved)  # before merging: the hits are stored
    merged = lookup.merged(ran)
    merged.cached += restorer.restored
    return merged


@dataclass
class _Baseline:
    tests: list[BaselineTest]
    seconds: float


@dataclass
class Lookup:
    chosen: list[Mutant]
    hits: dict[int, MutantResult] = field(default_factory=dict)  # index in `chosen`
    misses: list[int] = field(default_factory=list)
    baseline: _Baseline | None = None  # of the unmutated project as it is now

    def restored(self, options: RunOptions) -> RunReport:
        assert self.baseline is not None
        return RunReport(
            root=str(options.root),
            results=[self.hits[i] for i in range(len(self.chosen))],
            baseline=self.baseline.tests,
            baseline_seconds=self.baseline.seconds,
            matrix=options.matrix,
            cached=len(self.chosen),
        )

    def merged(self, ran: RunReport) -> RunReport:
        """The lab's report with the hits put back in the chosen order."""
        by_mutant = {id(r.mutant): r for r in ran.results}
        results: list[MutantResult] = []
        for index, mutant in enumerate(self.chosen):
            result = self.hits.get(index) or by_mutant.get(id(mutant))
            if result is not None:  # an interrupted run lacks some misses
                results.append(result)
        ran.results = results
        ran.cached = len(self.hits)
        return ran


class ResultCache:
    """The cache of one project state: its file digests and keys, computed once per run."""

    def __init__(self, options: RunOptions) -> None:
        self.options = options
        self.store = Store(options.output_dir / "cache", cache_secret())
        self.digests = project_digests(options.root, options.tests, options.output_dir)
        self.environment = keys.environment_key(options)
        self.world_inputs = keys.world_inputs(self.environment, self.digests)
        self.world = keys.key_of("world", self.world_inputs)
        self._others: dict[frozenset[str], str] = {}
        self._nodeids: dict[str, tuple[str, ...]] = {}  # one tuple per list: rows key on it
        self._rows = codec.Rows()

    def key(self, mutant: Mutant) -> str:
        return self.keyed(mutant)[0]

    def keyed(self, mutant: Mutant) -> tuple[str, keys.Inputs]:
        """The mutant's project-state key and the inputs it was computed from."""
        paths = frozenset(c.path for c in mutant.changes)
        others = self._others.get(paths)
        if others is None:
            others = self._others[paths] = keys.files_key(self.digests, paths)
        inputs = keys.mutant_inputs(self.environment, others, mutant)
        return keys.key_of("mutant", inputs), inputs

    def lookup(self, chosen: Sequence[Mutant]) -> Lookup:
        found = Lookup(list(chosen))
        for index, mutant in enumerate(chosen):
            result = self._result(mutant)
            if result is None:
                found.misses.append(index)
            else:
                found.hits[index] = result
        body = self.store.read("baseline", self.world, self.world_inputs)
        if body is not None:
            try:
                tests = [
                    BaselineTest(str(n), float(d), str(p), TestOutcome(o))
                    for n, d, p, o in body["tests"]
                ]
                found.baseline = _Baseline(tests, float(body["seconds"]))
            except (KeyError, TypeError, ValueError) as exc:
                self.store.discard("baseline", self.world, f"malformed: {exc}")
        return found

    def stored(self, mutants: Sequence[Mutant]) -> bool:
        """Is there an entry for every mutant and the baseline? (Not read: `lookup` does.)"""
        has = self.store.has
        return has("baseline", self.world) and all(has("mutant", self.key(m)) for m in mutants)

    def _result(self, mutant: Mutant) -> MutantResult | None:
        return self.read_result("mutant", *self.keyed(mutant), mutant)

    def save(
        self,
        report: RunReport,
        restorer: Restorer | None = None,
        saved: frozenset[int] = frozenset(),
    ) -> None:
        """Every verdict the lab reached, and the baseline it ran; `saved` holds the ids
        of the results a Saver already wrote."""
        entries: list[Entry] = []
        if report.baseline and not report.interrupted:
            tests = [[t.nodeid, t.duration, t.path, t.outcome.value] for t in report.baseline]
            body = {"tests": tests, "seconds": report.baseline_seconds}
            entries.append(("baseline", self.world, body, self.world_inputs))
        for result in report.results:
            if id(result) not in saved:
                entries += self.entries_of(result, restorer)
        self.store.write_many(entries)

    def entries_of(self, result: MutantResult, restorer: Restorer | None) -> list[Entry]:
        """What stores one verdict: under its project-state key and, when the lab planned
        it, under its dependency key too (the same body); its test id list if new."""
        # An error is guardcheck failing to judge (often transient): never replayed.
        if result.status is Status.ERROR:
            return []
        entries: list[Entry] = []
        digest, nodeids = codec.nodeids_blob(result.selection)
        if digest not in self._nodeids:
            entries.append(("tests", digest, nodeids, None))  # named by its own digest
            self._nodeids[digest] = tuple(nodeids)
        body = codec.encode(result, digest)
        dependency = restorer.keys.get(id(result.mutant)) if restorer else None
        if dependency is not None:
            entries.append(("dependency", dependency[0], body, dependency[1]))
            # Named, so that a run restoring this entry keeps the other from eviction.
            body = {**body, "dependency": dependency[0]}
        key, inputs = self.keyed(result.mutant)
        entries.append(("mutant", key, body, inputs))
        return entries

    def read_result(
        self, kind: str, key: str, inputs: keys.Inputs, mutant: Mutant
    ) -> MutantResult | None:
        """The verdict stored under `key` (computed from `inputs`), for `mutant`; an entry
        that is malformed or not computed from `inputs` is discarded."""
        body = self.store.read(kind, key, inputs)
        if body is None:
            return None
        try:
            digest = body["selection"]["nodeids"]
            nodeids = self._nodeids.get(digest)
            if nodeids is None:
                stored = self.store.read("tests", digest)
                if not isinstance(stored, list):
                    raise ValueError(f"its test id list {digest} is missing")
                if codec.nodeids_digest(stored) != digest:  # the list names itself
                    self.store.discard("tests", digest, "its ids do not hash to its name")
                    raise ValueError(f"its test id list {digest} was changed")
                nodeids = self._nodeids[digest] = tuple(str(n) for n in stored)
            result = codec.decode(body, mutant, nodeids, self._rows)
            if isinstance(body.get("dependency"), str):
                self.store.keep("dependency", body["dependency"])
            return result
        except (KeyError, TypeError, ValueError) as exc:
            self.store.discard(kind, key, f"malformed: {exc}")
            return None

    def evict(self, report: RunReport) -> None:
        """After a complete run of the whole selection, drop the entries it did not use.

        Not after a shard, an `--only` run or an interrupted one: those used part of
        what the next full run needs.
        """
        options = self.options
        if options.shard or options.only or report.interrupted or report.incomplete:
            return
        self.store.evict_unused()


Entry = tuple[str, str, object, keys.Inputs | None]  # kind, key, body, the key's inputs


class Saver:
    """A lab listener: writes each verdict's entries in a background thread as it comes.

    A sweep stores two entries per mutant: encoding and appending them here keeps the
    disk off the lab's thread (written at the end, they were a visible part of a short
    sweep's wall time: bench/README.md). `close` waits for the writes;
    `cache.save(..., saved=saver.saved)` then writes the rest.
    """

    def __init__(self, cache: ResultCache, restorer: Restorer) -> None:
        self.cache = cache
        self.restorer = restorer
        # By id, holding each result: a freed one's id could be another's later.
        self._saved: dict[int, MutantResult] = {}
        self._writes: list[Future[None]] = []
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="guardcheck-cache")

    @property
    def saved(self) -> frozenset[int]:
        return frozenset(self._saved)

    def mutant_finished(self, result: MutantResult, log: str) -> None:
        entries = self.cache.entries_of(result, self.restorer)  # here: it updates the cache
        self._saved[id(result)] = result
        if entries:
            self._writes.append(self._pool.submit(self.cache.store.write_many, entries))

    def close(self) -> None:
        self._pool.shutdown(wait=True)
        for write in self._writes:
            write.result()  # write_many warns instead of raising; a bug still surfaces

    # The rest of the listener protocol: nothing to store until a verdict.
    def run_started(self, mutants: Sequence[Mutant]) -> None:
        pass

    def baseline_started(self) -> None:
        pass

    def baseline_finished(self, tests: list[BaselineTest], seconds: float) -> None:
        pass

    def mutant_started(self, mutant: Mutant) -> None:
        pass


class Restorer:
    """The lab's source of verdicts kept from earlier runs, by dependency key (deps.py).

    Asked once per planned mutant, after the baseline: the key is computed from the
    baseline and coverage just measured, so a test that now executes the mutant, or a
    selected test whose code changed, makes it a miss.
    """

    def __init__(self, cache: ResultCache) -> None:
        self.cache = cache
        # id(mutant) -> its dependency key and the inputs it was computed from, for save()
        self.keys: dict[int, tuple[str, keys.Inputs]] = {}
        self.restored = 0
        self._deps: DependencyKeys | None = None
        self._coverage: object = None

    def restore(
        self,
        mutant: Mutant,
        selection: tuple[Selection, ...],
        baseline: Sequence[BaselineTest],
        coverage: Coverage,
    ) -> tuple[MutantResult, str] | None:
        if self._deps is None or self._coverage is not coverage:
            cache = self.cache
            self._coverage = coverage
            self._deps = DependencyKeys(
                cache.environment, cache.options.root, cache.digests, baseline, coverage
            )
        inputs = self._deps.mutant_inputs(mutant, selection)
        key = keys.key_of("dependencies", inputs)
        self.keys[id(mutant)] = key, inputs
        result = self.cache.read_result("dependency", key, inputs, mutant)
        if result is None:
            return None
        self.restored += 1
        # The selection (and its reasons' line numbers) is today's plan, not the stored one.
        return dataclasses.replace(result, selection=selection), RESTORED_LOG
