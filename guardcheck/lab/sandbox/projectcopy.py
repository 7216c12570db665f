"""The private copy of the project that every test of a run executes in.

Tests and mutants do what tests do: `git add -A`, `shutil.rmtree("data/")`,
writes relative to `__file__`. Run in the user's tree (or a mirror of
symlinks to it), those reach the user's files and index. So the lab runs in a
copy, as cargo-mutants does: what git would see (`git ls-files -co
--exclude-standard`: tracked plus untracked-not-ignored) and whatever the
configuration names (catalogue, source, tests), or, outside git, the tree
minus the output folder, virtualenvs and caches.

The copy has git metadata of its own: `git init`, an `alternates` file that
borrows the user's object store read-only (no object is copied), its branch
set to the user's HEAD and the index read from it. When the working tree has
uncommitted changes they are committed in the copy on top of that HEAD, so
`git status` inside tests is always clean; `git rev-parse HEAD` then differs
from the user's (it equals it for a clean tree). A project root below the
repository's top level gets a plain `git init` and one commit.

It lives at `<output>/tree/` and is reused: a manifest of (size, mtime) per
file, of the user's file and of the copy's, decides which files are copied
again; files a previous run's tests created in the copy are removed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from guardcheck import git
from guardcheck.child.workdirs import LARGE
from guardcheck.errors import GuardcheckError
from guardcheck.options import RunOptions

TREE = "tree"
MANIFEST = "tree.json"
PYCACHE = "pycache"  # where the host and fresh runs keep bytecode (child/bytecode.py)
FORMAT = 1
# Never copied outside git: caches and tool folders that are not the project.
_SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "__pycache__",
        ".pytest_cache",
        ".mypy_cache",
        ".ruff_cache",
        ".tox",
        ".nox",
        ".eggs",
        "node_modules",
        ".hypothesis",
    }
)
_IDENTITY = [
    "-c",
    "user.name=guardcheck",
    "-c",
    "user.email=guardcheck@localhost",
    "-c",
    "commit.gpgsign=false",
    "-c",
    "core.hooksPath=/dev/null",
]

Stat = tuple[int, int]  # size, mtime in ns


def private_copy(options: RunOptions) -> Path:
    """The up-to-date copy of `options.root`; raises GuardcheckError when it cannot be made."""
    try:
        return _sync(options)
    except (OSError, subprocess.CalledProcessError) as exc:
        detail = getattr(exc, "stderr", None) or exc
        raise GuardcheckError(
            f"cannot make the private copy of the project in "
            f"{options.display(options.output_dir / TREE)}: {detail}\n"
            "  fix: check the output folder is writable; delete it to start afresh"
        ) from None


def _sync(options: RunOptions) -> Path:
    root = options.root
    dest = options.output_dir / TREE
    repo, head = _repository(root)
    files = sorted(set(_listing(root, options, repo)))
    manifest_path = options.output_dir / MANIFEST
    key = {"format": FORMAT, "git": repo is not None, "head": head}
    previous = _read_manifest(manifest_path)
    if previous.get("key") != key or not dest.is_dir():
        shutil.rmtree(dest, ignore_errors=True)
        shutil.rmtree(pycache_dir(options), ignore_errors=True)
        previous = {}
        dest.mkdir(parents=True)
        if repo is not None:
            _init_git(root, dest, repo, head)
    known: dict[str, list[int]] = previous.get("files", {})
    record: dict[str, Stat] = {}
    wanted = set(files)
    stale = []
    for rel in files:
        stat = _stat(root / rel)
        if stat is None:
            continue  # listed by git, deleted from the working tree
        if tuple(known.get(rel, ())) != stat or _stat(dest / rel) != stat:
            stale.append(rel)
        record[rel] = stat
    # Creating files is what costs, on a loaded overlayfs most: overlap the syscalls.
    for folder in {(dest / rel).parent for rel in stale}:
        folder.mkdir(parents=True, exist_ok=True)
    with ThreadPoolExecutor(max_workers=8) as pool:
        copied = pool.map(lambda rel: _copy(root / rel, dest / rel, root, dest), stale)
        repointed = [rel for rel, moved in zip(stale, copied, strict=True) if moved]
    removed = _remove_extras(dest, wanted)
    _forget_bytecode(pycache_dir(options), dest, [*stale, *removed])
    if repo is not None:
        _exclude_large(dest, [rel for rel, (size, _) in record.items() if size > LARGE])
        _hide_repointed(dest, repointed)
        _commit_changes(dest)
    manifest_path.write_text(json.dumps({"key": key, "files": record}), encoding="utf-8")
    return dest


def _repository(root: Path) -> tuple[str | None, str | None]:
    """(top level, HEAD) when `root` is inside a git work tree, else Nones; one git call."""
    try:
        lines = _git(root, "rev-parse", "--show-toplevel", "HEAD", check=False).splitlines()
    except OSError:
        return None, None
    if not lines or not Path(lines[0]).is_absolute():
        return None, None  # not a repository (git printed nothing useful)
    head = lines[1].strip() if len(lines) > 1 and len(lines[1].strip()) >= 40 else None
    top = lines[0].strip()
    # A project folder that the enclosing repository ignores has nothing git would list:
    # copy it as if it were outside git.
    if Path(top).resolve() != root.resolve() and _git(root, "check-ignore", "-v", ".", check=False):
        return None, None
    return top, head


def _listing(root: Path, options: RunOptions, repo: str | None) -> Iterator[str]:
    skip = _output_part(options)
    if repo is not None:
        out = _git(root, "ls-files", "-z", "-co", "--exclude-standard")
        for rel in out.split("\0"):
            if rel and (skip is None or rel.split("/")[0] != skip):
                yield rel
    else:
        yield from _walk(root, root, skip)
    # Whatever the configuration names, even if git ignores it.
    named = [*options.catalogue, *map(Path, options.source), *map(Path, options.tests)]
    for path in named:
        full = options.resolve(path)
        try:
            inside = full.resolve().relative_to(root)
        except (ValueError, OSError):
            continue
        if full.is_file():
            yield inside.as_posix()
        elif full.is_dir():
            yield from _walk(root, full, skip)


def _output_part(options: RunOptions) -> str | None:
    try:
        return options.output_dir.resolve().relative_to(options.root).parts[0]
    except (ValueError, IndexError):
        return None


def _walk(root: Path, top: Path, skip: str | None) -> Iterator[str]:
    for folder, dirs, names in os.walk(top):
        here = Path(folder)
        dirs[:] = [
            d
            for d in dirs
            if d not in _SKIP_DIRS
            and not (here == root and d == skip)
            and not (here / d / "pyvenv.cfg").exists()  # a virtualenv
        ]
        for name in names:
            if not name.endswith((".pyc", ".pyo")):
                yield (here / name).relative_to(root).as_posix()


def _stat(path: Path) -> Stat | None:
    try:
        st = path.lstat()
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def _copy(source: Path, target: Path, root: Path, dest: Path) -> bool:
    """Copy one entry; True when it is a symlink re-pointed from the project into the copy."""
    if target.is_dir() and not target.is_symlink():
        shutil.rmtree(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    if source.is_dir() and not source.is_symlink():  # a submodule: its files, not its .git
        shutil.copytree(source, target, symlinks=True, ignore=shutil.ignore_patterns(".git"))
        return False
    target.unlink(missing_ok=True)
    if source.is_symlink():
        # An absolute link into the project would let a test write the user's file.
        pointed = os.readlink(source)
        inside = _inside(Path(os.path.normpath(source.parent / pointed)), root)
        if os.path.isabs(pointed) and inside is not None:
            os.symlink(dest / inside, target)  # remade each run: its lstat differs
            return True
    # copy2 keeps the mtime, which the next run's comparison relies on.
    shutil.copy2(source, target, follow_symlinks=False)
    return False


def _hide_repointed(dest: Path, rels: list[str]) -> None:
    """A committed absolute link, re-pointed into the copy, is not a change to report:
    `git status` in a test stays as clean as in the user's checkout."""
    if not rels:
        return
    tracked = [t for t in _git(dest, "ls-files", "-z", "--", *rels).split("\0") if t]
    if tracked:
        _git(dest, "update-index", "--skip-worktree", "--", *tracked)


def _inside(path: Path, root: Path) -> Path | None:
    try:
        return path.relative_to(root)
    except ValueError:
        return None


def _exclude_large(dest: Path, large: list[str]) -> None:
    """Large files stay out of the copy's commit: hashing a data file of hundreds of
    megabytes into git cost more than the rest of the copy. Tracked ones are unaffected;
    untracked ones stay untracked, as in the user's checkout."""
    exclude = dest / ".git" / "info" / "exclude"
    exclude.parent.mkdir(parents=True, exist_ok=True)
    lines = ["/" + "".join("\\" + c if c in "*?[\\ #!" else c for c in rel) for rel in large]
    exclude.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")


class CopyRestorer:
    """Puts files of the copy that tests wrote, created or removed back as the copy made
    them (child/copywrites.py): from the user's tree if the copy holds them, else gone.

    Each mutant then starts from the files a fresh checkout would have."""

    def __init__(self, options: RunOptions) -> None:
        self._dest = options.root
        self._origin = options.origin
        self._pycache = pycache_dir(options)
        manifest = _read_manifest(options.output_dir / MANIFEST)
        self._copied = set(manifest.get("files", {}))

    def restore(self, rels: Iterable[str]) -> None:
        if self._origin is None:
            return  # not a private copy: nothing to restore from
        for rel in rels:
            target = self._dest / rel
            source = self._origin / rel
            if rel in self._copied and _stat(source) is not None:
                if _stat(target) != _stat(source):
                    _copy(source, target, self._origin, self._dest)
            elif target.is_dir() and not target.is_symlink():
                if not any(c.startswith(rel + "/") for c in self._copied):
                    shutil.rmtree(target, ignore_errors=True)
            else:
                target.unlink(missing_ok=True)
        _forget_bytecode(self._pycache, self._dest, rels)


def pycache_dir(options: RunOptions) -> Path:
    """Where the lab's processes keep bytecode and pytest's rewritten test modules."""
    return options.output_dir.resolve() / PYCACHE


def _forget_bytecode(pycache: Path, dest: Path, rels: Iterable[str]) -> None:
    """Drop the cached bytecode of files the copy replaced or removed.

    Python checks a .pyc against its source's size and whole-second mtime; an
    edit in the same second that keeps the size would otherwise run the old code.
    """
    for base in {dest, dest.resolve()}:
        mirror = pycache.joinpath(*base.parts[1:])
        for rel in rels:
            if rel.endswith(".py"):
                path = Path(rel)
                for pyc in (mirror / path.parent).glob(f"{path.stem}.*.pyc"):
                    pyc.unlink(missing_ok=True)


def _remove_extras(dest: Path, wanted: set[str]) -> list[str]:
    """Whatever an earlier run's tests left in the copy: it is not the user's tree."""
    removed: list[str] = []
    prefixes = {p for rel in wanted for p in _parents(rel)}
    for folder, dirs, names in os.walk(dest, topdown=True):
        here = Path(folder)
        rel_here = here.relative_to(dest).as_posix()
        if rel_here == ".":
            dirs[:] = [d for d in dirs if d != ".git"]
        for name in names:
            rel = name if rel_here == "." else f"{rel_here}/{name}"
            if rel not in wanted:
                (here / name).unlink()
                removed.append(rel)
        for name in list(dirs):
            rel = name if rel_here == "." else f"{rel_here}/{name}"
            if rel in wanted:  # a submodule copied whole
                dirs.remove(name)
            elif rel not in prefixes:
                removed.extend(
                    (Path(rel) / p.relative_to(here / name)).as_posix()
                    for p in (here / name).rglob("*.py")
                )
                shutil.rmtree(here / name)
                dirs.remove(name)
    return removed


def _parents(rel: str) -> Iterable[str]:
    parts = rel.split("/")
    return ("/".join(parts[:n]) for n in range(1, len(parts)))


def _init_git(root: Path, dest: Path, repo: str, head: str | None) -> None:
    # No template: a user's init.templateDir hooks must never run when a test commits in
    # the copy, and git's sample hooks are files a fresh copy need not create.
    init = ["init", "-q", "--template="]
    if Path(repo).resolve() != root.resolve() or head is None:
        _git(dest, *init)  # root below the top level, or no commit yet
        return
    branch = _git(root, "symbolic-ref", "-q", "--short", "HEAD", check=False).strip()
    _git(dest, *init, *(["-b", branch] if branch else []))
    objects = Path(_git(root, "rev-parse", "--path-format=absolute", "--git-common-dir").strip())
    alternates = dest / ".git" / "objects" / "info" / "alternates"
    alternates.parent.mkdir(parents=True, exist_ok=True)
    alternates.write_text(f"{objects / 'objects'}\n", encoding="utf-8")
    _git(dest, "update-ref", "HEAD", head)
    _git(dest, "read-tree", "HEAD")


def _commit_changes(dest: Path) -> None:
    _git(dest, "add", "-A")
    if _git(dest, "status", "--porcelain", "--untracked-files=no").strip():
        _git(
            dest,
            *_IDENTITY,
            "commit",
            "-q",
            "--no-verify",
            "-m",
            "guardcheck: the working tree's uncommitted changes",
        )


def _read_manifest(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _git(cwd: Path, *args: str, check: bool = True) -> str:
    # The user's GIT_DIR & co. (e.g. inside a git hook) must not redirect us to their repo.
    return git.run(cwd, *args, check=check, scrub_env=True).stdout
