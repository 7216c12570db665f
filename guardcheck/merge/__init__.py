"""`guardcheck merge`: shard reports (`run --shard K/N --json`) back into one RunReport.

A merge must add up to exactly the run it stands for, or say why not. It refuses
(exit 2, naming the files and what differs) when the reports were written by
different guardcheck versions, at different git revisions or tree states, under a
different configuration (`provenance.VERDICT_FIELDS`, the catalogue files' contents
and the mutants themselves), or under different gates; when they come from
different shard counts; and when a shard is duplicated or missing. A missing shard
is a refusal, not a failing gate: a CI merge job that did not receive every shard's
artifact has a broken pipeline, and exit 2 keeps that apart from "a mutant survived".

The merged report lists the mutants in the unsharded selection's order (the order a
single run reports them in) and gets the same gate as a single run: exit 0/1, 4 when
a shard's results were incomplete, 130 when a shard was interrupted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from guardcheck.errors import GuardcheckError
from guardcheck.merge.read import read_report
from guardcheck.model import BaselineTest, Gate, MutantResult, Provenance, RunReport

__all__ = ["MergeRefused", "merge_reports", "read_report"]

Named = tuple[str, RunReport]  # (the path as the user gave it, the report)


class MergeRefused(GuardcheckError):
    """The reports cannot be combined into one run; the message says which and why."""


def merge_reports(
    named: Sequence[Named],
    *,
    allow_caught_elsewhere: bool | None = None,
    fail_under: float | None = None,
) -> RunReport:
    """One report for the shard reports `named`; raises MergeRefused (exit 2).

    The gate options, when given, must equal the gate the shards recorded; the
    merged report's `provenance.gate` is that gate.
    """
    if not named:
        raise MergeRefused("no reports to merge")
    provenances = [(name, _provenance(name, report)) for name, report in named]
    _same_identity(provenances)
    _gate_matches(provenances[0][1].gate, allow_caught_elsewhere, fail_under)
    _complete_set_of_shards(provenances)
    first = provenances[0][1]
    results = _results_in_order(named, first.selected)
    reports = [report for _, report in named]
    incomplete = [f"{name}: {r.incomplete}" for name, r in named if r.incomplete]
    present = {r.mutant.id for r in results}
    missing = [i for i in first.selected if i not in present]
    if missing and not incomplete and not any(r.interrupted for r in reports):
        raise MergeRefused(
            f"{len(missing)} mutant(s) of the selection are in no report: {', '.join(missing)}"
        )
    return RunReport(
        root=named[0][1].root,
        results=results,
        baseline=_baseline(reports),
        # The shards ran side by side: the slowest one is what the merged run took.
        baseline_seconds=max(r.baseline_seconds for r in reports),
        wall_seconds=max(r.wall_seconds for r in reports),
        matrix=named[0][1].matrix,
        interrupted=any(r.interrupted for r in reports),
        incomplete="\n".join(incomplete) or None,
        provenance=replace(first, shard=None, merged_from=len(named)),
        # Each shard drew its own seed unless the user fixed one.
        hash_seed=_one({r.hash_seed for r in reports}),
        randomly_seed=_one({r.randomly_seed for r in reports}),
    )


def _one(values: set[str]) -> str:
    return values.pop() if len(values) == 1 else ""


def _provenance(name: str, report: RunReport) -> Provenance:
    if report.provenance is None:
        raise MergeRefused(
            f"{name}: records no run provenance (revision, configuration, shard), so it "
            "cannot be checked against the others\n"
            "  fix: merge reports written by `guardcheck run --json`"
        )
    return report.provenance


def _identity(p: Provenance) -> dict[str, object]:
    revision = p.revision
    return {
        "guardcheck version": p.version,
        "git revision": revision.sha if revision else "(not a git checkout)",
        "uncommitted changes": revision.dirty if revision else False,
        "shard count": p.shard[1] if p.shard else 1,
        "gate": _gate_text(p.gate),
    }


def _gate_text(gate: Gate) -> str:
    under = f"--fail-under {gate.fail_under:g}" if gate.fail_under is not None else "all caught"
    return under + (", --allow-caught-elsewhere" if gate.allow_caught_elsewhere else "")


def _same_identity(provenances: list[tuple[str, Provenance]]) -> None:
    first_name, first = provenances[0]
    expected = _identity(first)
    problems = []
    for name, provenance in provenances[1:]:
        for what, value in _identity(provenance).items():
            if value != expected[what]:
                problems.append(f"{what}: {expected[what]} in {first_name}, {value} in {name}")
        if provenance.config_hash != first.config_hash:
            keys = sorted(set(first.config) | set(provenance.config))
            differ = [k for k in keys if first.config.get(k) != provenance.config.get(k)]
            problems.append(
                f"configuration: {', '.join(differ) or 'hash'} differ(s) between "
                f"{first_name} and {name}"
            )
    if problems:
        raise MergeRefused(
            "the reports are not shards of one run:\n"
            + "\n".join(f"  {p}" for p in problems)
            + "\n  fix: run every shard on the same commit with the same options"
        )


def _gate_matches(recorded: Gate, allow: bool | None, fail_under: float | None) -> None:
    asked = Gate(
        recorded.allow_caught_elsewhere if allow is None else allow,
        # `--fail-under` not given means "as recorded", not "no score gate".
        recorded.fail_under if fail_under is None else fail_under,
    )
    if asked != recorded:
        raise MergeRefused(
            f"the gate asked for ({_gate_text(asked)}) is not the one the shards ran under "
            f"({_gate_text(recorded)})\n"
            "  fix: pass merge the gate options given to `guardcheck run`, or none"
        )


def _complete_set_of_shards(provenances: list[tuple[str, Provenance]]) -> None:
    count = provenances[0][1].shard[1] if provenances[0][1].shard else 1
    by_index: dict[int, list[str]] = {}
    for name, provenance in provenances:
        index = provenance.shard[0] if provenance.shard else 1
        by_index.setdefault(index, []).append(name)
    problems = [
        f"shard {index}/{count} given {len(names)} times: {', '.join(names)}"
        for index, names in sorted(by_index.items())
        if len(names) > 1
    ]
    missing = [str(k) for k in range(1, count + 1) if k not in by_index]
    if missing:
        problems.append(f"shard(s) {', '.join(missing)} of {count} missing")
    if problems:
        raise MergeRefused(
            "\n".join(problems) + f"\n  fix: pass exactly one report per shard, 1/{count} to "
            f"{count}/{count}"
        )


def _results_in_order(named: Sequence[Named], selected: Sequence[str]) -> list[MutantResult]:
    seen: dict[str, str] = {}
    by_id: dict[str, MutantResult] = {}
    for name, report in named:
        for result in report.results:
            mutant_id = result.mutant.id
            if mutant_id in seen:
                raise MergeRefused(f"mutant {mutant_id} is in both {seen[mutant_id]} and {name}")
            seen[mutant_id] = name
            by_id[mutant_id] = result
    known = set(selected)
    strays = [i for i in by_id if i not in known]
    if strays:
        raise MergeRefused(f"mutant(s) outside the recorded selection: {', '.join(strays)}")
    return [by_id[i] for i in selected if i in by_id]


def _baseline(reports: Sequence[RunReport]) -> list[BaselineTest]:
    # Every shard ran the whole baseline; the first one's timings stand for all.
    merged: dict[str, BaselineTest] = {}
    for report in reports:
        for test in report.baseline:
            merged.setdefault(test.nodeid, test)
    return list(merged.values())
