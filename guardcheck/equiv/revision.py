"""Load a package as it was at a git revision, in this process, beside today's code.

`git show REV:target_app/x.py` is served by a meta-path finder under an alias
package, `__guardcheck_rev_<shortsha>__.target_app.x`, so the revision's modules
never touch the working tree nor today's `target_app.*` entries in `sys.modules`.

Relative imports resolve inside the alias by themselves (`__package__` is the
aliased name). Absolute imports of the revision's own top-level packages
(`import target_app.x`, `from target_app.x import y`) are rewritten in the
revision's syntax tree before it is compiled, to the aliased name. We rewrite
rather than intercept at import time because a finder cannot give one name
(`target_app.x`) two meanings in one process, and replacing `builtins.__import__`
would change every other module's imports too; a rewrite is local to the
revision's own code. Limit: a dynamic import by string
(`importlib.import_module("target_app.x")`) inside revision code still reaches
today's module.
"""

from __future__ import annotations

import ast
import importlib.abc
import linecache
import subprocess
import sys
import types
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib.machinery import ModuleSpec
from pathlib import Path, PurePosixPath

from guardcheck.errors import GuardcheckError

ALIAS_PREFIX = "__guardcheck_rev_"


def _git(cwd: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=False)


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
        found = _git(start, "rev-parse", "--show-toplevel")
        if found.returncode != 0:
            raise GuardcheckError(
                f"@{revision}: {start} is not inside a git repository, so no revision can be "
                "loaded\n  fix: drop the @REV suffix, or run guardcheck from the repository"
            )
        top = Path(found.stdout.decode().strip())
        parsed = _git(top, "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}")
        if parsed.returncode != 0:
            raise GuardcheckError(
                f"@{revision}: not a revision of the repository at {top}\n"
                "  fix: name a commit, branch or tag that `git rev-parse` knows (e.g. HEAD~1)"
            )
        sha = parsed.stdout.decode().strip()
        listed = _git(top, "ls-tree", "-r", "--name-only", "-z", sha)
        paths = frozenset(p for p in listed.stdout.decode().split("\0") if p)
        return cls(top=top, sha=sha, label=revision, paths=paths)

    def read(self, path: str) -> str:
        if path not in self._blobs:
            shown = _git(self.top, "show", f"{self.sha}:{path}")
            if shown.returncode != 0:  # pragma: no cover - the path came from ls-tree
                raise GuardcheckError(f"git show {self.sha[:10]}:{path} failed")
            self._blobs[path] = shown.stdout.decode("utf-8")
        return self._blobs[path]

    def is_dir(self, path: str) -> bool:
        prefix = path.rstrip("/") + "/"
        return any(p.startswith(prefix) for p in self.paths)


class _AliasImports(ast.NodeTransformer):
    """Points absolute imports of the revision's own packages at the alias."""

    def __init__(self, alias: str, own: frozenset[str]) -> None:
        self.alias = alias
        self.own = own

    def _ours(self, name: str | None) -> bool:
        return name is not None and name.split(".", 1)[0] in self.own

    def visit_ImportFrom(self, node: ast.ImportFrom) -> ast.AST:
        if node.level == 0 and self._ours(node.module):
            node.module = f"{self.alias}.{node.module}"
        return node

    def visit_Import(self, node: ast.Import) -> ast.AST | list[ast.stmt]:
        if not any(self._ours(a.name) for a in node.names):
            return node
        statements: list[ast.stmt] = []
        for item in node.names:
            if not self._ours(item.name):
                statements.append(ast.Import(names=[item]))
            elif item.asname is not None:
                statements.append(
                    ast.Import(names=[ast.alias(f"{self.alias}.{item.name}", item.asname)])
                )
            else:
                # `import target_app.x` binds `target_app`: bind it to the aliased
                # top package without also binding the alias name in the module.
                top = item.name.split(".", 1)[0]
                call = ast.parse(
                    f"{top} = __import__({self.alias + '.' + item.name!r}, globals(), None, (), 0)"
                    f".{top}"
                ).body[0]
                statements.append(call)
        for statement in statements:
            ast.copy_location(statement, node)
            ast.fix_missing_locations(statement)
        return statements


def rewrite_own_imports(
    source: str, filename: str, alias: str, own: frozenset[str]
) -> types.CodeType:
    tree = ast.parse(source, filename=filename)
    tree = _AliasImports(alias, own).visit(tree)
    ast.fix_missing_locations(tree)
    return compile(tree, filename, "exec", dont_inherit=True)


class RevisionFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves `<alias>.<own package>...` from one commit; answers for nothing else."""

    def __init__(self, tree: GitTree, prefix: str, own: frozenset[str]) -> None:
        self.tree = tree
        self.prefix = prefix  # folder of the packages inside the repository ("" or "src")
        self.own = own
        self.alias = f"{ALIAS_PREFIX}{tree.sha[:10]}__"
        self._files: dict[str, str | None] = {}  # module name -> blob path (None: namespace)

    def _repo_path(self, parts: Sequence[str]) -> str:
        return str(PurePosixPath(self.prefix, *parts)) if self.prefix else "/".join(parts)

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
        if parts[0] not in self.own:
            return None
        base = self._repo_path(parts)
        if f"{base}/__init__.py" in self.tree.paths:
            blob, package = f"{base}/__init__.py", True
        elif f"{base}.py" in self.tree.paths:
            blob, package = f"{base}.py", False
        elif self.tree.is_dir(base):
            blob, package = None, True  # a namespace package at that revision
        else:
            return None
        self._files[fullname] = blob
        origin = f"<{self.tree.label} {self.tree.sha[:10]}:{blob or base}>"
        spec = ModuleSpec(fullname, self, origin=origin, is_package=package)
        if package:
            spec.submodule_search_locations = []
        spec.has_location = False
        return spec

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
        code = rewrite_own_imports(source, filename, self.alias, self.own)
        exec(code, module.__dict__)

    def module_name(self, name: str) -> str:
        return f"{self.alias}.{name}"


_FINDERS: dict[tuple[Path, str, str], RevisionFinder] = {}


def revision_finder(tree: GitTree, prefix: str, own: frozenset[str]) -> RevisionFinder:
    """One finder per commit and folder, installed once; its alias modules stay loaded."""
    key = (tree.top, tree.sha, prefix)
    finder = _FINDERS.get(key)
    if finder is None:
        finder = _FINDERS[key] = RevisionFinder(tree, prefix, own)
        sys.meta_path.insert(0, finder)
    else:
        finder.own = finder.own | own
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
