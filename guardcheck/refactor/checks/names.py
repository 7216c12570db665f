"""Check 2: names removed or incompatibly changed since the base, and who still uses them.

griffe loads each source package at the base (from its worktree) and today,
statically (no import), and `griffe.find_breaking_changes` compares them.
griffe skips private names, and a refactor's old names are mostly private
(`_running_agents`, `_cooldown_seconds`), so every loaded object is marked
public first. A name kept as a plain alias (`_old = new_function`: griffe
sees a function become an attribute) passes when the alias names an object
of the same kind. Every reference today (source and tests: imports,
attribute access, names and patch targets) to a broken name is a finding.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import griffe

from guardcheck.refactor.findings import CheckResult, Finding, Outcome
from guardcheck.refactor.layout import python_files, source_paths, test_paths
from guardcheck.refactor.references import Reference, scan_all
from guardcheck.refactor.trees import Trees

KEY = "names"
TITLE = "Removed or changed names still in use"


@dataclass(frozen=True)
class Broken:
    dotted: str  # relay.runner.Relay._running_agents
    what: str  # "removed", "parameter removed: timeout", ...
    in_class: bool  # a class member: attribute access by name counts as a use


def _load(root: Path, source: str) -> griffe.Object | griffe.Alias | None:
    path = Path(source)
    name = path.stem if path.suffix == ".py" else path.name
    try:
        return griffe.load(
            name,
            search_paths=[str(root / path.parent)],
            allow_inspection=False,  # never import the user's code to read its API
            try_relative_path=False,
        )
    except (ImportError, OSError, SyntaxError):  # griffe raises ModuleNotFoundError
        return None


def _expose(obj: griffe.Object | griffe.Alias, seen: set[str]) -> None:
    """Mark `obj` and everything it holds public, so griffe compares private names too."""
    if obj.path in seen:
        return
    seen.add(obj.path)
    obj.public = True
    if obj.is_alias:
        return
    for member in list(obj.members.values()):
        _expose(member, seen)


def _kept_as_alias(breakage: griffe.Breakage) -> bool:
    """`_old = new` at the same level, where `new` is what `_old` was (function, class)."""
    if breakage.kind is not griffe.BreakageKind.OBJECT_CHANGED_KIND:
        return False
    new = breakage.obj
    if not new.is_attribute or new.value is None or new.parent is None:
        return False
    target = new.parent.members.get(str(new.value).strip())
    return target is not None and not target.is_alias and target.kind is breakage.old_value


def _what(breakage: griffe.Breakage) -> str:
    kind = breakage.kind.value.lower().replace("public object", "object")
    name = getattr(breakage.old_value, "name", None) or getattr(breakage.new_value, "name", None)
    if breakage.kind is griffe.BreakageKind.OBJECT_CHANGED_KIND:
        return f"{kind}: {breakage.old_value.value} -> {breakage.new_value.value}"
    return f"{kind}: {name}" if isinstance(name, str) and name != breakage.obj.name else kind


def broken_names(trees: Trees) -> tuple[list[Broken], list[str]]:
    """What broke between the base and today, and notes on packages new or gone."""
    found: list[Broken] = []
    notes: list[str] = []
    sources = dict.fromkeys([*source_paths(trees.then), *source_paths(trees.today)])
    for source in sources:
        old = _load(trees.then.root, source)
        if old is None:
            notes.append(f"{source} is new since the base: nothing to compare")
            continue
        new = _load(trees.today.root, source)
        _expose(old, set())
        if new is None:
            found.append(Broken(old.path, "removed (the whole package)", False))
            continue
        _expose(new, set())
        for breakage in griffe.find_breaking_changes(old, new):
            if _kept_as_alias(breakage):
                continue
            obj = breakage.obj
            in_class = bool(obj.parent and obj.parent.is_class)
            found.append(Broken(obj.path, _what(breakage), in_class))
    return found, notes


def uses(broken: Broken, references: Iterable[Reference]) -> list[Reference]:
    last = broken.dotted.rsplit(".", 1)[-1]
    hits = []
    for ref in references:
        by_attribute = broken.in_class and ref.kind == "attribute" and ref.attr == last
        if by_attribute or ref.stands_for(broken.dotted):
            hits.append(ref)
    # One finding per line: `from m import x` and `x(...)` on one line are one use.
    return list({(r.path, r.line): r for r in hits}.values())


def check_names(trees: Trees) -> CheckResult:
    broken, notes = broken_names(trees)
    if not broken:
        return CheckResult(
            KEY,
            TITLE,
            Outcome.PASSED,
            "no name was removed or changed incompatibly since the base",
            [],
            notes,
        )
    root = trees.today.root
    files = list(python_files(root, [*source_paths(trees.today), *test_paths(trees.today)]))
    references = list(scan_all(root, files))
    findings = []
    unused = []
    for item in broken:
        places = uses(item, references)
        if not places:
            unused.append(f"{item.dotted} ({item.what})")
        for ref in places:
            findings.append(
                Finding(
                    f"{item.dotted} {item.what}, still used: {ref.text}",
                    path=ref.path,
                    line=ref.line,
                    enclosing=ref.enclosing,
                )
            )
    if unused:
        notes.append(
            f"{len(unused)} removed or changed name(s) no longer used anywhere: "
            + ", ".join(unused)
        )
    outcome = Outcome.FAILED if findings else Outcome.PASSED
    used = len(broken) - len(unused)
    summary = (
        f"{used} removed or changed name(s) still used in {len(findings)} place(s)"
        if findings
        else f"{len(broken)} removed or changed name(s), none still used"
    )
    return CheckResult(KEY, TITLE, outcome, summary, findings, notes)
