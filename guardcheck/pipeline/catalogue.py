"""The catalogue step: entries built and vetted, listed, and shown by id.

The catalogue's validation loads libcst (slow: bench/README.md): imported when an entry is built,
not at import, so a run served whole by guardcheck/cache/ never pays for it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from guardcheck.catalogue.load import did_you_mean
from guardcheck.errors import CatalogueInvalid, GuardcheckError
from guardcheck.model import Mutant
from guardcheck.options import RunOptions

if TYPE_CHECKING:
    from guardcheck.catalogue.listing import Row
    from guardcheck.catalogue.validate import Assessment


@dataclass(frozen=True)
class Listing:
    """`guardcheck list`: a row per declared entry, its stable JSON, and how many problems."""

    rows: list[Row]
    json: dict[str, Any]
    problems: int


def check(options: RunOptions, *, collect: bool = False) -> list[Mutant]:
    """Every entry built and vetted in memory; raises CatalogueInvalid with every problem.

    With `collect`, each `killed_by` is checked against a `pytest --collect-only`.
    """
    from guardcheck.catalogue.validate import validate

    return validate(options, collect=collect)


def list_entries(options: RunOptions) -> Listing:
    """Every declared entry, buildable or not (a broken catalogue still lists)."""
    from guardcheck.catalogue.listing import listing_json, rows

    assessment = assess(options)
    return Listing(rows(assessment), listing_json(options, assessment), len(assessment.problems))


def show(options: RunOptions, ids: Iterable[str]) -> list[Mutant]:
    """The requested entries' mutants, in the order asked; unknown or invalid ids raise."""
    ids = list(dict.fromkeys(ids))
    return build(assess(options, only=set(ids)), ids)


def assess(options: RunOptions, *, only: set[str] | None = None) -> Assessment:
    """Every declared entry (or those in `only`) built, with the problems of each."""
    from guardcheck.catalogue.validate import assess as assessing

    return assessing(options, only=only)


def check_killers_collected(catalogue: Sequence[Mutant], collected: tuple[str, ...]) -> None:
    """Every `killed_by` is one of the run's collected tests; CatalogueInvalid otherwise."""
    from guardcheck.catalogue.validate import check_killers_collected as checking

    checking(catalogue, collected)


def build(assessment: Assessment, ids: list[str]) -> list[Mutant]:
    """The mutants of `ids`; an unknown id or one with a problem raises."""
    declared = [entry_id for entry_id, _ in assessment.catalogue.declared]
    unknown = [i for i in ids if i not in declared]
    if unknown:
        raise GuardcheckError(_unknown_message(unknown, declared, assessment))
    problems = [p for p in assessment.problems if p.entry_id in ids]
    if problems:
        raise CatalogueInvalid(problems)
    by_id = {c.entry.id: c.mutant for c in assessment.checked if c.mutant is not None}
    return [by_id[i] for i in ids]


def _unknown_message(unknown: list[str], declared: list[str], assessment: Assessment) -> str:
    lines = []
    for entry_id in unknown:
        suggestion = did_you_mean(entry_id, declared)
        hint = f" (did you mean `{suggestion}`?)" if suggestion else ""
        lines.append(f"no mutation with id `{entry_id}`{hint}")
    unreadable = sum(1 for p in assessment.problems if p.entry_id is None)
    if unreadable:
        lines.append(
            f"  note: {unreadable} catalogue problem(s) hide entries: run `guardcheck check`"
        )
    lines.append("  fix: use an id from `guardcheck list`")
    return "\n".join(lines)
