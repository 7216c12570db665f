"""Validation: every hard error of the catalogue, found and reported together.

`validate` is the gate before anything runs: it loads the catalogue, builds
every entry's mutant with the engine (which reports stale, ambiguous, no-op and
unviable entries), checks ids, and with `collect=True` checks each `killed_by`
against what pytest really collects. Either every entry is sound and the
mutants come back, or CatalogueInvalid carries every problem at once.
"""

from __future__ import annotations

import ast
import sys
import traceback
from collections import defaultdict
from collections.abc import Collection, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from guardcheck.catalogue.collect import CollectFailed, collect_command, collected_test_ids
from guardcheck.catalogue.load import Catalogue, did_you_mean, load_catalogue
from guardcheck.edit.mutate import build_mutant
from guardcheck.errors import CatalogueInvalid, Problem
from guardcheck.model import Entry, Mutant, Where
from guardcheck.options import RunOptions


@dataclass(frozen=True)
class Checked:
    """One well-formed entry and what building it gave: a mutant, or its problems."""

    entry: Entry
    mutant: Mutant | None
    problems: tuple[Problem, ...]


@dataclass(frozen=True)
class Assessment:
    catalogue: Catalogue
    checked: tuple[Checked, ...]  # in catalogue order
    problems: tuple[Problem, ...]  # every problem, in catalogue order

    @property
    def catalogue_problems(self) -> list[Problem]:
        """Problems not found by building an entry: TOML, keys, duplicate ids, collection."""
        built = {id(p) for checked in self.checked for p in checked.problems}
        return [p for p in self.problems if id(p) not in built]

    @property
    def mutants(self) -> list[Mutant]:
        return [c.mutant for c in self.checked if c.mutant is not None]


def validate(settings: RunOptions, *, collect: bool) -> list[Mutant]:
    """Every entry's mutant, or CatalogueInvalid with every problem found."""
    assessment = assess(settings, collect=collect)
    if assessment.problems:
        raise CatalogueInvalid(list(assessment.problems))
    return assessment.mutants


def assess(
    settings: RunOptions, *, collect: bool = False, only: Collection[str] | None = None
) -> Assessment:
    """Load and check the catalogue without raising for its problems.

    `only` restricts building (the slow part) to those ids; problems of the
    catalogue as a whole (TOML, keys, duplicates) are still reported.
    """
    catalogue = load_catalogue(settings)
    problems = [*catalogue.problems, *duplicate_problems(catalogue.declared)]
    if catalogue.tables == 0 and not problems:
        problems.append(empty_problem(settings, catalogue))
    entries = [e for e in catalogue.entries if only is None or e.id in only]
    with _no_bytecode():
        checked = tuple(check_entry(entry, settings.root) for entry in entries)
    problems.extend(p for c in checked for p in c.problems)
    if collect:
        problems.extend(killed_by_problems(settings, entries))
    return Assessment(catalogue, checked, tuple(_in_catalogue_order(problems, settings, catalogue)))


@contextmanager
def _no_bytecode() -> Iterator[None]:
    # A `transform` is imported from the project: that must not leave __pycache__ behind.
    before = sys.dont_write_bytecode
    sys.dont_write_bytecode = True
    try:
        yield
    finally:
        sys.dont_write_bytecode = before


def check_entry(entry: Entry, root: Path) -> Checked:
    try:
        mutant = build_mutant(entry, root)
    except CatalogueInvalid as exc:
        back = bug_back(entry, root) if any(p.kind == "stale" for p in exc.problems) else None
        if back is not None:
            return Checked(entry, None, (back,))
        return Checked(entry, None, tuple(_attributed(p, entry) for p in exc.problems))
    except Exception as exc:  # a crashing transform or engine bug must not hide the others
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        problem = Problem(
            kind="error",
            message=f"building the mutant raised {type(exc).__name__}: {exc}",
            fix="fix the entry's transform; if the entry looks right, report a guardcheck bug",
            entry_id=entry.id,
            where=entry.where,
            details=(f"raised at {frame.filename}:{frame.lineno}",),
        )
        return Checked(entry, None, (problem,))
    if mutant.declared_at is None:
        mutant = replace(mutant, declared_at=entry.where)
    return Checked(entry, mutant, ())


def _undone(entry: Entry) -> Entry | None:
    """The entry run backwards (each `replace` as the `find`), when every edit can be."""
    edits = []
    for edit in reversed(entry.edits):
        if edit.transform is not None or not edit.replace.strip():
            return None
        edits.append(replace(edit, find=edit.replace, replace=edit.find, occurrence=None))
    return replace(entry, edits=tuple(edits))


def bug_back(entry: Entry, root: Path) -> Problem | None:
    """A stale entry whose `replace` is exactly what today's code says: the bug is back.

    "Stale" would advise deleting the entry, the worst advice when the guarded bug
    has returned; this names the line instead.
    """
    undone = _undone(entry)
    if undone is None:
        return None
    try:
        reverted = build_mutant(undone, root)
    except Exception:  # not buildable backwards: an ordinary stale entry
        return None
    first = entry.edits[0]
    change = next((c for c in reverted.changes if c.path == first.file), reverted.changes[0])
    if _inside_its_own_kind(first.find, change.mutated):
        return None
    span = change.span
    return Problem(
        kind="bug-back",
        message=f"today's code already contains mutation {entry.id} (the bug it guards is "
        f"back) at {span.path}:{span.line}",
        fix=f"restore the guarded code at {span.path}:{span.line} (the entry's `find`); "
        "its `replace` is what the code does now",
        entry_id=entry.id,
        where=entry.where,
        details=(f"at: {span.path}:{span.line}",),
    )


def _inside_its_own_kind(find: str, undone_text: str) -> bool:
    """Put back, does `find` land inside an expression of its own kind?

    `replace = "base"` for `find = "base * multiplier"` also matches the `base` of
    `base * factor` (a rename: the code moved on); put back there it reads
    `base * multiplier * factor`, a product inside a product. Where the bug is
    back (`min(base, CAP)`), it lands in the call, as it once was. A block header
    does the same: `replace = "self.streak = 0"` for `find = "if after < before:
    ..."` also matches the reset still guarded by a changed `if after <= before:`;
    put back it reads `if ...: if after < before:`, an `if` nested in an `if`.
    Other patterns with wildcards are not plain Python and are not checked.
    """
    wanted = _find_node(find)
    try:
        tree = ast.parse(undone_text)
    except SyntaxError:
        return False
    if wanted is None:
        return False
    shape = _header(wanted)
    for parent in ast.walk(tree):
        if type(parent) is not type(wanted):
            continue
        for child in ast.iter_child_nodes(parent):
            if type(child) is type(wanted) and _header(child) == shape:
                return True
    return False


def _find_node(find: str) -> ast.AST | None:
    """`find` as one expression, or as one statement (a block header with `...`)."""
    text = find.strip()
    for mode in ("eval", "exec"):
        try:
            tree = ast.parse(text, mode=mode)
        except SyntaxError:
            continue
        if isinstance(tree, ast.Expression):
            return tree.body
        if isinstance(tree, ast.Module) and len(tree.body) == 1:
            return tree.body[0]
    return None


def _header(node: ast.AST) -> str:
    """What a pattern says of a node: all of an expression; a block's header only."""
    if isinstance(node, ast.If | ast.While):
        return ast.dump(node.test)
    if isinstance(node, ast.For | ast.AsyncFor):
        return ast.dump(node.target) + ast.dump(node.iter)
    if isinstance(node, ast.With | ast.AsyncWith):
        return "".join(ast.dump(item) for item in node.items)
    return ast.dump(node)


def _attributed(problem: Problem, entry: Entry) -> Problem:
    # Every problem must name the entry and where it is declared.
    return replace(
        problem,
        entry_id=problem.entry_id or entry.id,
        where=problem.where or entry.where,
    )


def duplicate_problems(declared: Iterable[tuple[str, Where]]) -> list[Problem]:
    places: dict[str, list[Where]] = defaultdict(list)
    for entry_id, where in declared:
        places[entry_id].append(where)
    problems = []
    for entry_id, wheres in places.items():
        for later in wheres[1:]:
            problems.append(
                Problem(
                    kind="duplicate",
                    message=f"id `{entry_id}` is declared {len(wheres)} times: "
                    + ", ".join(str(w) for w in wheres),
                    fix="give each entry its own id (ids key reports, caches and `show`)",
                    entry_id=entry_id,
                    where=later,
                )
            )
    return problems


def empty_problem(settings: RunOptions, catalogue: Catalogue) -> Problem:
    searched = ", ".join(settings.display(settings.resolve(p)) for p in settings.catalogue)
    found = f"{len(catalogue.files)} file(s)" if catalogue.files else "no *.toml files"
    return Problem(
        kind="empty",
        message=f"the catalogue has no [[mutation]] entries ({found} under {searched})",
        fix="add [[mutation]] tables (see docs/catalogue.md), or point `--catalogue` / "
        "[tool.guardcheck] catalogue at your catalogue",
    )


def killed_by_problems(settings: RunOptions, entries: Iterable[Entry]) -> list[Problem]:
    """Each `killed_by` id that pytest does not collect; pytest runs once, only if needed."""
    claims = [
        (entry.id, entry.where, test)
        for entry in entries
        for test in (*entry.killed_by, *entry.killed_by_any)
    ]
    if not claims:
        return []
    try:
        collected = collected_test_ids(settings)
    except CollectFailed as exc:
        return [Problem(kind="collect", message=exc.reason, fix=exc.fix, details=exc.details)]
    command = " ".join(["python", *collect_command(settings)[1:]])
    return unknown_killers(claims, collected, f"collected {len(collected)} tests with: {command}")


def check_killers_collected(mutants: Iterable[Mutant], collected: tuple[str, ...]) -> None:
    """`check --collect`'s killed_by rule, against ids a run's own pytest collected.

    Every entry is checked, not only those `--only` selected: the catalogue is
    sound or it is not. Raises CatalogueInvalid.
    """
    claims = [(m.id, m.declared_at, test) for m in mutants for test in m.named_killers]
    problems = unknown_killers(claims, collected, f"collected {len(collected)} tests for this run")
    if problems:
        raise CatalogueInvalid(problems)


def unknown_killers(
    claims: Iterable[tuple[str, Where | None, str]], collected: tuple[str, ...], how: str
) -> list[Problem]:
    """A problem for each (entry id, catalogue line, killed_by id) naming no collected test.

    `how` says where `collected` came from; `guardcheck run` passes the ids its
    own pytest session collected, so it need not start a second pytest.
    """
    known = _collected_names(collected)
    problems = []
    for entry_id, where, test in claims:
        if test in known:
            continue
        suggestion = nearest_test(test, collected)
        details = [f"did you mean: {suggestion}"] if suggestion else []
        details.append(how)
        problems.append(
            Problem(
                kind="killed_by",
                message=f"`killed_by` names {test}, which pytest does not collect",
                # The nearest collected id is a spelling guess, not a test known to kill it.
                fix=f"did you mean {suggestion}? name a collected test that catches this mutant, "
                "or remove it"
                if suggestion
                else "name a collected test id, or remove it",
                entry_id=entry_id,
                where=where,
                details=tuple(details),
            )
        )
    return problems


def _collected_names(collected: Iterable[str]) -> set[str]:
    """Collected ids, plus what may stand for them: a class, a test without its parameters."""
    names: set[str] = set()
    for node in collected:
        names.add(node)
        names.add(node.split("[", 1)[0])
        parts = node.split("[", 1)[0].split("::")
        names.update("::".join(parts[:n]) for n in range(2, len(parts)))
    return names


def nearest_test(test: str, collected: tuple[str, ...]) -> str | None:
    suggestion = did_you_mean(test, collected)
    if suggestion:
        return suggestion
    # Moved to another file or class: the function name is the best clue.
    name = test.rsplit("::", 1)[-1].split("[", 1)[0]
    same_name = [c for c in collected if c.rsplit("::", 1)[-1].split("[", 1)[0] == name]
    return same_name[0] if same_name else None


def _in_catalogue_order(
    problems: list[Problem], settings: RunOptions, catalogue: Catalogue
) -> list[Problem]:
    order = {settings.display(path): index for index, path in enumerate(catalogue.files)}
    last = len(order)

    def position(problem: Problem) -> tuple[int, int]:
        if problem.where is None:
            return (last, 0)
        return (order.get(problem.where.path, last), problem.where.line)

    return sorted(problems, key=position)
