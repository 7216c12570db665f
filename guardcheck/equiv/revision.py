"""Load a project as it was at a git revision, in this process, beside today's code.

`git show REV:pkg/x.py` is served by a meta-path finder under an alias package,
`__guardcheck_rev_<shortsha>__.pkg.x`, so the revision's modules never touch
the working tree nor today's `pkg.*` entries in `sys.modules`.

Every top-level package and module of the project (`ProjectLayout`: what the
project root and the `source` folders hold, at the revision and today) is
served from the revision, not only the target's own package: a revision's
code never runs today's code. Relative imports resolve inside the alias by
themselves (`__package__` is the aliased name). Absolute imports reach the
alias through the revision modules' own `__builtins__`, whose `__import__`
prefixes project names with the alias and whose `importlib` is a view of the
real one with an `import_module` that does the same. This is local to the
revision's code (every function it defines keeps those builtins), where
replacing `builtins.__import__` would change every other module's imports.

A project module the revision's code imports that git does not have at the
revision but today's tree does (newer, or never committed) would mix two
versions: that is a `RevisionImportError` (exit 2) naming it. A module that
exists neither at the revision nor today raises ModuleNotFoundError, as it
did at the revision (a `try: import x except ImportError` keeps working).
"""

from __future__ import annotations

import builtins
import importlib
import importlib.abc
import linecache
import sys
import types
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib.machinery import ModuleSpec
from pathlib import Path, PurePosixPath
from typing import Any

from guardcheck import git
from guardcheck.errors import GuardcheckError

ALIAS_PREFIX = "__guardcheck_rev_"


@dataclass
class GitTree:
    """The files of one commit, read with git, cached per path."""

    top: Path  # the repository's top-level folder
    sha: str
    label: str  # the revision as the user wrote it (HEAD~3)
    paths: frozenset[str]
    _blobs: dict[str, str] = field(default_factory=dict)

    @classmethod
    def open(cls, start: Path, revision: str) -> GitTree:
        found = git.run(start, "rev-parse", "--show-toplevel")
        if found.returncode != 0:
            raise GuardcheckError(
                f"@{revision}: {start} is not inside a git repository, so no revision can be "
                "loaded\n  fix: drop the @REV suffix, or run guardcheck from the repository"
            )
        top = Path(found.stdout.strip())
        parsed = git.run(top, "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}")
        if parsed.returncode != 0:
            raise GuardcheckError(
                f"@{revision}: not a revision of the repository at {top}\n"
                "  fix: name a commit, branch or tag that `git rev-parse` knows (e.g. HEAD~1)"
            )
        sha = parsed.stdout.strip()
        listed = git.run(top, "ls-tree", "-r", "--name-only", "-z", sha)
        paths = frozenset(p for p in listed.stdout.split("\0") if p)
        return cls(top=top, sha=sha, label=revision, paths=paths)

    def read(self, path: str) -> str:
        if path not in self._blobs:
            shown = git.run(self.top, "show", f"{self.sha}:{path}")
            if shown.returncode != 0:  # pragma: no cover - the path came from ls-tree
                raise GuardcheckError(f"git show {self.sha[:10]}:{path} failed")
            self._blobs[path] = shown.stdout
        return self._blobs[path]

    def is_dir(self, path: str) -> bool:
        prefix = path.rstrip("/") + "/"
        return any(p.startswith(prefix) for p in self.paths)


class RevisionImportError(GuardcheckError):
    """The revision's code imports a project module that git does not have at the revision."""


def top_level_names(tree: GitTree, prefix: str) -> set[str]:
    """The packages and modules directly in `prefix` (a repository folder) at the revision."""
    lead = f"{prefix}/" if prefix else ""
    names = set()
    for path in tree.paths:
        if path.startswith(lead) and path.endswith(".py"):
            first, _, rest = path[len(lead) :].partition("/")
            name = first if rest else first.removesuffix(".py")
            if name.isidentifier():
                names.add(name)
    return names


def _python_folder(folder: Path) -> bool:
    return folder.is_dir() and any(folder.glob("*.py"))


def names_on_disk(folder: Path) -> set[str]:
    """The packages and modules directly in `folder` in today's tree."""
    if not folder.is_dir():
        return set()
    found = {
        entry.stem if entry.is_file() else entry.name
        for entry in folder.iterdir()
        if (entry.suffix == ".py" and entry.is_file()) or (entry / "__init__.py").is_file()
    }
    return {name for name in found if name.isidentifier()}


def project_layout(
    tree: GitTree, folders: Sequence[Path], sources: Sequence[Path] = ()
) -> dict[str, str]:
    """Every top-level name of the project -> its folder in the repository ("" or "src").

    `folders` are where the project's modules are imported from, first wins
    (as on sys.path); `sources` are configured package folders or module files,
    named even when they are namespace packages. Names come from the revision
    and from today's tree, so an import of a name only today's tree has is
    caught rather than served from today's code.
    """
    top = tree.top.resolve()
    layout: dict[str, str] = {}
    for folder in folders:
        try:
            prefix = folder.resolve().relative_to(top).as_posix()
        except ValueError:
            continue  # outside the repository: nothing of it is at any revision
        prefix = "" if prefix == "." else prefix
        for name in sorted(top_level_names(tree, prefix) | names_on_disk(folder)):
            layout.setdefault(name, prefix)
        for source in sources:
            if source.resolve().parent == folder.resolve():
                name = source.name.removesuffix(".py")
                if name.isidentifier():
                    layout.setdefault(name, prefix)
    return layout


class RevisionFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves `<alias>.<project name>...` from one commit; answers for nothing else."""

    def __init__(self, tree: GitTree, layout: dict[str, str]) -> None:
        self.tree = tree
        self.layout = dict(layout)  # top-level name -> its folder in the repository
        self.alias = f"{ALIAS_PREFIX}{tree.sha[:10]}__"
        self._files: dict[str, str | None] = {}  # module name -> blob path (None: namespace)
        self.builtins = _revision_builtins(self)

    def aliased(self, name: str) -> str | None:
        """`pkg.x` -> `<alias>.pkg.x` when `pkg` is the project's; None otherwise."""
        return f"{self.alias}.{name}" if name.partition(".")[0] in self.layout else None

    def _repo_path(self, parts: Sequence[str]) -> str:
        prefix = self.layout[parts[0]]
        return str(PurePosixPath(prefix, *parts)) if prefix else "/".join(parts)

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: types.ModuleType | None = None,
    ) -> ModuleSpec | None:
        if fullname == self.alias:
            spec = ModuleSpec(fullname, self, is_package=True)
            spec.submodule_search_locations = []
            return spec
        if not fullname.startswith(self.alias + "."):
            return None
        parts = fullname[len(self.alias) + 1 :].split(".")
        if parts[0] not in self.layout:
            return None
        base = self._repo_path(parts)
        if f"{base}/__init__.py" in self.tree.paths:
            blob, package = f"{base}/__init__.py", True
        elif f"{base}.py" in self.tree.paths:
            blob, package = f"{base}.py", False
        elif self.tree.is_dir(base):
            blob, package = None, True  # a namespace package at that revision
        else:
            self._refuse_todays(".".join(parts), base)
            return None
        self._files[fullname] = blob
        origin = f"<{self.tree.label} {self.tree.sha[:10]}:{blob or base}>"
        spec = ModuleSpec(fullname, self, origin=origin, is_package=package)
        if package:
            spec.submodule_search_locations = []
        spec.has_location = False
        return spec

    def _refuse_todays(self, dotted: str, base: str) -> None:
        """Today's tree has the module the revision lacks: serving it would mix versions."""
        here = self.tree.top / base
        if (here.parent / f"{here.name}.py").is_file():
            shown = f"{base}.py"
        elif _python_folder(here):
            shown = f"{base}/"
        else:
            return  # not the project's at all: ModuleNotFoundError, as at the revision
        at = f"{self.tree.label} ({self.tree.sha[:10]})"
        raise RevisionImportError(
            f"the code at {at} imports {dotted}, a module of the project that git does not have "
            f"at that revision ({shown} is newer or untracked): it cannot be served from the "
            "revision, and today's would mix two versions\n"
            f"  fix: commit {shown} if the revision's code needs it, or compare a revision that "
            "contains it"
        )

    def create_module(self, spec: ModuleSpec) -> types.ModuleType | None:
        return None

    def exec_module(self, module: types.ModuleType) -> None:
        blob = self._files.get(module.__name__)
        if blob is None:
            return  # the alias root or a namespace package: nothing to run
        source = self.tree.read(blob)
        filename = f"<{self.tree.label} {self.tree.sha[:10]}:{blob}>"
        # Tracebacks and inspect.getsource (the boundary constants) read it from here.
        linecache.cache[filename] = (len(source), None, source.splitlines(keepends=True), filename)
        module.__file__ = filename
        module.__dict__["__builtins__"] = self.builtins
        exec(compile(source, filename, "exec", dont_inherit=True), module.__dict__)

    def module_name(self, name: str) -> str:
        return f"{self.alias}.{name}"


def _importlib_view(finder: RevisionFinder) -> types.ModuleType:
    """`importlib` as the revision's code sees it: `import_module` of a project name is aliased."""
    view = types.ModuleType("importlib", importlib.__doc__)

    def import_module(name: str, package: str | None = None) -> types.ModuleType:
        return importlib.import_module(finder.aliased(name) or name, package)

    view.import_module = import_module  # type: ignore[attr-defined]
    view.__getattr__ = lambda attr: getattr(importlib, attr)  # type: ignore[method-assign]
    return view


def _revision_builtins(finder: RevisionFinder) -> dict[str, Any]:
    """The builtins of the revision's modules: `__import__` reaches the revision's project."""
    real_import = builtins.__import__
    view = _importlib_view(finder)

    def import_(
        name: str,
        globals: dict[str, Any] | None = None,  # __import__'s own parameter names
        locals: dict[str, Any] | None = None,
        fromlist: Sequence[str] | None = (),
        level: int = 0,
    ) -> types.ModuleType:
        aliased = finder.aliased(name) if level == 0 else None
        if aliased is not None:
            module = real_import(aliased, globals, locals, fromlist, 0)
            # `import pkg.x` binds `pkg`: the aliased top package, not the alias root.
            return module if fromlist else sys.modules[f"{finder.alias}.{name.partition('.')[0]}"]
        module = real_import(name, globals, locals, fromlist, level)
        if level == 0 and (name == "importlib" or (name.startswith("importlib.") and not fromlist)):
            return view
        return module

    table = dict(builtins.__dict__)
    table["__import__"] = import_
    return table


_FINDERS: dict[tuple[Path, str], RevisionFinder] = {}


def revision_finder(tree: GitTree, layout: dict[str, str]) -> RevisionFinder:
    """One finder per commit, installed once; its alias modules stay loaded."""
    key = (tree.top, tree.sha)
    finder = _FINDERS.get(key)
    if finder is None:
        finder = _FINDERS[key] = RevisionFinder(tree, layout)
        sys.meta_path.insert(0, finder)
    else:
        for name, prefix in layout.items():
            finder.layout.setdefault(name, prefix)
    return finder


def strip_alias(text: str) -> str:
    """`__guardcheck_rev_abc__.target_app.x.Y` -> `target_app.x.Y`, so both sides compare."""
    while ALIAS_PREFIX in text:
        start = text.index(ALIAS_PREFIX)
        end = text.find("__.", start + len(ALIAS_PREFIX))
        if end < 0:
            break
        text = text[:start] + text[end + 3 :]
    return text
