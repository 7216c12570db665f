"""The selection of an unchanged project, without building it (no libcst, no mutmut).

Validating a catalogue (libcst) or generating a sweep (mutmut) costs more than the
whole rest of a cached run. When the project state (the world key), the catalogue
files, the sweep's parameters and `--only` are all unchanged, the selection is the
one stored last time: each Mutant is rebuilt from its stored splices over the file
as it is on disk (its digest must equal the stored original's), and nothing is
returned unless every mutant's result and the baseline are stored too, so the caller
either restores the whole run or builds and runs as usual (an entry found unreadable
later only sends its mutant to the lab).

Sharded runs are not replayed: their provenance names the unsharded selection.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

from guardcheck.cache import ResultCache, keys
from guardcheck.catalogue.load import catalogue_files
from guardcheck.errors import GuardcheckError
from guardcheck.model import FileChange, Mutant, RunReport, Where
from guardcheck.options import RunOptions
from guardcheck.splices import Splice, apply_splices, read_source


def run_scope(options: RunOptions) -> list[str]:
    """`guardcheck run`: the catalogue files by content."""
    try:
        files = catalogue_files(options)
    except GuardcheckError:
        return ["run", "no catalogue"]
    digests = [f"{options.display(p)} {hashlib.sha256(p.read_bytes()).hexdigest()}" for p in files]
    return ["run", *digests]


def _key(cache: ResultCache, options: RunOptions, scope: Sequence[str]) -> str:
    return keys.hash_parts(["selection", cache.world, *scope, *(f"only {o}" for o in options.only)])


def replay(cache: ResultCache | None, scope: Sequence[str]) -> tuple[list[Mutant], Any] | None:
    """(the stored selection, the extra value stored with it), or None to build afresh."""
    if cache is None or cache.options.shard is not None:
        return None
    options = cache.options
    body = cache.store.read("selection", _key(cache, options, scope))
    if body is None:
        return None
    try:
        mutants = [_mutant(m, options) for m in body["mutants"]]
    except (KeyError, TypeError, ValueError, OSError):
        return None  # a source file changed under a path the key does not read: build
    # Only that every entry exists: cached_run reads and checks them, and a bad one there
    # costs the lab run of that mutant, not a wrong verdict.
    if not cache.stored(mutants):
        return None
    return mutants, body.get("extra")


def remember(
    cache: ResultCache | None,
    scope: Sequence[str],
    mutants: Sequence[Mutant],
    report: RunReport,
    extra: Any = None,
) -> None:
    """Store the selection of this project state after a complete, unsharded run."""
    if cache is None or cache.options.shard is not None:
        return
    if report.interrupted or report.incomplete or len(report.results) != len(mutants):
        return
    options = cache.options
    body = {"mutants": [_mutant_json(m) for m in mutants], "extra": extra}
    cache.store.write("selection", _key(cache, options, scope), body)


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _where(where: Where | None) -> list[Any] | None:
    if where is None:
        return None
    return [where.path, where.line, where.column, where.end_line, where.end_column]


def _read_where(data: list[Any] | None) -> Where | None:
    return None if data is None else Where(*data)


def _mutant_json(mutant: Mutant) -> dict[str, Any]:
    return {
        "id": mutant.id,
        "summary": mutant.summary,
        "mutator": mutant.mutator,
        "killed_by": list(mutant.killed_by),
        "tags": list(mutant.tags),
        "declared_at": _where(mutant.declared_at),
        "changes": [
            {
                "path": c.path,
                "original": _sha(c.original),
                "span": _where(c.span),
                "splices": [[s.start, s.end, s.replacement] for s in c.splices],
            }
            for c in mutant.changes
        ],
    }


def _mutant(data: dict[str, Any], options: RunOptions) -> Mutant:
    changes = []
    for change in data["changes"]:
        path = change["path"]
        original = read_source(options.root / path)  # as the catalogue and the sweep read it
        if _sha(original) != change["original"]:
            raise ValueError(f"{path} changed")
        splices = tuple(Splice(int(a), int(b), str(text)) for a, b, text in change["splices"])
        span = _read_where(change["span"])
        assert span is not None
        changes.append(FileChange(path, original, apply_splices(original, splices), span, splices))
    return Mutant(
        id=data["id"],
        summary=data["summary"],
        changes=tuple(changes),
        mutator=data["mutator"],
        killed_by=tuple(data["killed_by"]),
        tags=tuple(data["tags"]),
        declared_at=_read_where(data["declared_at"]),
    )
