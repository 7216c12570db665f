"""What `guardcheck list` shows: one row per entry, as plain values and as stable JSON.

The JSON format is a documented contract (docs/catalogue.md, "list --json");
bump LISTING_VERSION on any change that is not a pure addition.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from guardcheck.catalogue.validate import Assessment, Checked
from guardcheck.errors import Problem
from guardcheck.options import RunOptions

LISTING_VERSION = 1


@dataclass(frozen=True)
class Row:
    id: str
    summary: str
    file: str  # the target file: where the mutant changes code, else the declared file
    line: int | None  # None when the entry does not build
    column: int | None
    end_line: int | None
    end_column: int | None
    scope: str | None
    tags: tuple[str, ...]
    killed_by: tuple[str, ...]
    catalogue: str
    catalogue_line: int
    edits: int
    problems: tuple[str, ...]  # kinds of the entry's problems; empty when it builds

    @property
    def valid(self) -> bool:
        return not self.problems

    @property
    def target(self) -> str:
        return f"{self.file}:{self.line}" if self.line is not None else self.file


def rows(assessment: Assessment) -> list[Row]:
    # Problems of the catalogue as a whole that name one entry (the second of two
    # duplicate ids): `check` rejects that entry, so `list` must not show it as valid.
    named: dict[tuple[str, int], list[str]] = {}
    for problem in assessment.catalogue_problems:
        if problem.where is not None and problem.entry_id is not None:
            named.setdefault((problem.where.path, problem.where.line), []).append(problem.kind)
    return [
        _row(checked, named.get((checked.entry.where.path, checked.entry.where.line), []))
        for checked in assessment.checked
    ]


def _row(checked: Checked, extra: list[str]) -> Row:
    entry, mutant = checked.entry, checked.mutant
    first = entry.edits[0]
    span = mutant.span if mutant is not None else None
    return Row(
        id=entry.id,
        summary=entry.summary,
        file=span.path if span is not None else first.file,
        line=span.line if span is not None else None,
        column=span.column if span is not None else None,
        end_line=span.end_line if span is not None else None,
        end_column=span.end_column if span is not None else None,
        scope=first.scope,
        tags=entry.tags,
        killed_by=entry.killed_by,
        catalogue=entry.where.path,
        catalogue_line=entry.where.line,
        edits=len(entry.edits),
        problems=tuple(dict.fromkeys([*extra, *(p.kind for p in checked.problems)])),
    )


def listing_json(settings: RunOptions, assessment: Assessment) -> dict[str, Any]:
    return {
        "version": LISTING_VERSION,
        "root": str(settings.root),
        "mutations": [_row_json(row) for row in rows(assessment)],
        "problems": [_problem_json(p) for p in assessment.problems],
    }


def _row_json(row: Row) -> dict[str, Any]:
    return {
        "id": row.id,
        "summary": row.summary,
        "file": row.file,
        "line": row.line,
        "column": row.column,
        "end_line": row.end_line,
        "end_column": row.end_column,
        "scope": row.scope,
        "tags": list(row.tags),
        "killed_by": list(row.killed_by),
        "catalogue": row.catalogue,
        "catalogue_line": row.catalogue_line,
        "edits": row.edits,
        "valid": row.valid,
    }


def _problem_json(problem: Problem) -> dict[str, Any]:
    return {
        "kind": problem.kind,
        "id": problem.entry_id,
        "catalogue": problem.where.path if problem.where else None,
        "catalogue_line": problem.where.line if problem.where else None,
        "message": problem.message,
        "fix": problem.fix,
        "details": list(problem.details),
    }
