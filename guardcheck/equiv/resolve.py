"""`package.module:qualname[@REV]` to the live object it names.

Today's code is imported normally, with the folders of `paths.search_paths`
(the project root, the parents of `[tool.guardcheck] source`, pytest's
`pythonpath`) put on `sys.path` first, so a project that is not installed
resolves too. A `@REV` suffix loads the module, and every other module of the
project it imports, as it was at that commit through `revision.py`'s import hook.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from guardcheck.equiv.paths import put_on_sys_path
from guardcheck.equiv.paths import search_paths as search_paths  # where callers found it
from guardcheck.equiv.revision import GitTree, project_layout, revision_finder
from guardcheck.errors import GuardcheckError

_SPEC = re.compile(r"^(?P<module>[A-Za-z_][\w.]*):(?P<qualname>[A-Za-z_][\w.]*)(?:@(?P<rev>.+))?$")


@dataclass(frozen=True)
class Target:
    """What the user named."""

    text: str
    module: str
    qualname: str
    revision: str | None

    @classmethod
    def parse(cls, text: str, what: str = "target") -> Target:
        match = _SPEC.match(text.strip())
        if match is None:
            raise GuardcheckError(
                f"{what} {text!r} is not of the form package.module:qualname[@REV]\n"
                "  e.g. target_app.gateway.run:hygiene_compaction_recovered@HEAD~3"
            )
        return cls(text, match["module"], match["qualname"], match["rev"])


@dataclass(frozen=True)
class Resolved:
    target: Target
    obj: Any
    module_name: str  # the name it was imported under (aliased for a revision)


def _import(module: str, what: str, shown: str) -> Any:
    try:
        return importlib.import_module(module)
    except GuardcheckError as exc:  # the revision imports a module it cannot serve
        raise GuardcheckError(f"{what} {shown}: {exc}", exc.code) from None
    except ModuleNotFoundError as exc:
        raise GuardcheckError(
            f"{what} {shown}: no module named {exc.name!r} (looked in the project root, its "
            "[tool.guardcheck] source folders and the installed environment)"
        ) from None
    except Exception as exc:
        raise GuardcheckError(
            f"{what} {shown}: importing {module} raised {type(exc).__name__}: {exc}"
        ) from None


def _walk(module_obj: Any, target: Target, what: str) -> Any:
    obj = module_obj
    for depth, part in enumerate(target.qualname.split(".")):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            owner = ".".join([target.module, *target.qualname.split(".")[:depth]])
            raise GuardcheckError(
                f"{what} {target.text}: {owner} has no attribute {part!r}"
            ) from None
    return obj


def _revision_module(
    target: Target, paths: Sequence[Path], sources: Sequence[str], what: str
) -> str:
    """Install the revision's finder for the whole project and return the aliased name."""
    assert target.revision is not None
    tree = GitTree.open(paths[0], target.revision)
    layout = project_layout(tree, paths, [paths[0] / source for source in sources])
    finder = revision_finder(tree, layout)
    top = target.module.partition(".")[0]
    if top in layout:
        stem = "/".join(p for p in (layout[top], *target.module.split(".")) if p)
        if {f"{stem}.py", f"{stem}/__init__.py"} & tree.paths:
            return finder.module_name(target.module)
    raise GuardcheckError(
        f"{what} {target.text}: module {target.module} is not in git at {target.revision} "
        f"({tree.sha[:10]}) under the project root or its source folders\n"
        f"  fix: check the module's name, and that it was committed by {target.revision} "
        f"(`git log --stat {target.revision}`)"
    )


def resolve(
    target: Target, paths: Sequence[Path], what: str = "target", sources: Sequence[str] = ()
) -> Resolved:
    """The object `target` names; `paths` from `search_paths`, `sources` as configured."""
    put_on_sys_path(paths)
    module_name = target.module
    if target.revision is not None:
        module_name = _revision_module(target, paths, sources, what)
    module_obj = _import(module_name, what, target.text)
    return Resolved(target, _walk(module_obj, target, what), module_name)


def resolve_callable(text: str, paths: Sequence[Path], what: str) -> Any:
    """For --strategy / --assume: a callable named module:function (today's code)."""
    resolved = resolve(Target.parse(text, what), paths, what)
    if not callable(resolved.obj):
        raise GuardcheckError(f"{what} {text}: {type(resolved.obj).__name__} is not callable")
    return resolved.obj
