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
from guardcheck.refactor.references import CallShape, Reference, scan_all
from guardcheck.refactor.trees import Trees

KEY = "names"
TITLE = "Removed or changed names still in use"


@dataclass(frozen=True)
class Broken:
    dotted: str  # relay.runner.Relay._running_agents
    what: str  # "removed", "parameter removed: timeout", ...
    in_class: bool  # a class member: attribute access by name counts as a use
    kind: griffe.BreakageKind | None = None
    parameter: str | None = None  # for a parameter's breakage: its name ...
    index: int | None = None  # ... and its position at the base, when positional

    def relied_on_by(self, call: CallShape) -> str | None:
        """How a call relies on what changed (None: it does not)."""
        if self.parameter is None:
            return "calls it"
        passes = call.passes(self.parameter, self.index)
        if self.kind is griffe.BreakageKind.PARAMETER_CHANGED_DEFAULT:
            if passes is None:
                return f"may omit `{self.parameter}` (it unpacks arguments)"
            return None if passes else f"omits `{self.parameter}`"
        if self.kind is griffe.BreakageKind.PARAMETER_REMOVED:
            return None if passes is False else f"passes `{self.parameter}`"
        if self.kind in _NOW_REQUIRED:
            return None if passes else f"does not pass `{self.parameter}`"
        return "calls it"


_NOW_REQUIRED = (
    griffe.BreakageKind.PARAMETER_ADDED_REQUIRED,
    griffe.BreakageKind.PARAMETER_CHANGED_REQUIRED,
)
_PARAMETER_KINDS = frozenset(
    {
        griffe.BreakageKind.PARAMETER_MOVED,
        griffe.BreakageKind.PARAMETER_REMOVED,
        griffe.BreakageKind.PARAMETER_CHANGED_KIND,
        griffe.BreakageKind.PARAMETER_CHANGED_DEFAULT,
        griffe.BreakageKind.PARAMETER_CHANGED_REQUIRED,
        griffe.BreakageKind.PARAMETER_ADDED_REQUIRED,
        griffe.BreakageKind.RETURN_CHANGED_TYPE,
    }
)


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
            if not _kept_as_alias(breakage):
                found.append(_broken(breakage, old))
    return found, notes


def _old_index(old_root: griffe.Object | griffe.Alias, path: str, name: str) -> int | None:
    """The parameter's position in the base's signature, when it could be passed by position."""
    try:
        function = old_root[path.split(".", 1)[1]] if "." in path else old_root
        params = list(function.parameters)
    except (KeyError, AttributeError, IndexError):
        return None
    for index, param in enumerate(params):
        if param.name == name:
            positional = str(param.kind.value) in ("positional-only", "positional or keyword")
            first_is_self = bool(function.parent and function.parent.is_class and index)
            return index - first_is_self if positional else None
    return None


def _broken(breakage: griffe.Breakage, old_root: griffe.Object | griffe.Alias) -> Broken:
    obj = breakage.obj
    in_class = bool(obj.parent and obj.parent.is_class)
    if breakage.kind not in _PARAMETER_KINDS:
        return Broken(obj.path, _what(breakage), in_class)
    param = breakage.old_value if breakage.old_value is not None else breakage.new_value
    name = getattr(param, "name", None)
    index = _old_index(old_root, obj.path, name) if isinstance(name, str) else None
    return Broken(obj.path, _what(breakage), in_class, breakage.kind, name, index)


def _refers_to(broken: Broken, ref: Reference) -> bool:
    """A call of the function itself (a method: of any attribute of its name)."""
    if broken.dotted in ref.qualified:
        return True
    return broken.in_class and ref.attr == broken.dotted.rsplit(".", 1)[-1]


def _inside_itself(broken: Broken, ref: Reference) -> bool:
    """In the function's own body, which is no use of its signature."""
    module = ref.path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
    where = f"{module}.{ref.enclosing}"
    return where == broken.dotted or where.startswith(broken.dotted + ".")


def uses(broken: Broken, references: Iterable[Reference]) -> list[tuple[Reference, str]]:
    """The references that rely on what broke, each with how."""
    hits = []
    for ref in references:
        if broken.kind in _PARAMETER_KINDS:
            # Only a call can rely on a signature, and only as the breakage says.
            if ref.kind != "call" or ref.call is None or not _refers_to(broken, ref):
                continue
            if _inside_itself(broken, ref):
                continue
            how = broken.relied_on_by(ref.call)
            if how is not None:
                hits.append((ref, how))
        elif ref.kind != "call" and (
            ref.stands_for(broken.dotted)
            or (broken.in_class and ref.kind == "attribute" and _refers_to(broken, ref))
        ):
            hits.append((ref, "still used"))
    # One finding per line: `from m import x` and `x(...)` on one line are one use.
    return list({(r.path, r.line): (r, how) for r, how in hits}.values())


def _how(how: str) -> str:
    return how if how == "still used" else f"relied on by a call that {how}"


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
        for ref, how in places:
            findings.append(
                Finding(
                    f"{item.dotted} {item.what}, {_how(how)}: {ref.text}",
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
