"""Throwaway projects for the tests: real folder trees under tests/fixtures/projects/.

A project is one tree copied into a scratch folder, optionally with further
trees copied over it (an overlay adds or replaces files: `ladder` plus
`ladder-idle` is the ladder project with one more test file). A test that
needs a small variation (one weakened assertion) edits its copy with `edit`.
See tests/fixtures/projects/README.md for what each tree is.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

PROJECTS = Path(__file__).resolve().parents[1] / "fixtures" / "projects"

_IGNORE = shutil.ignore_patterns("__pycache__", "*.pyc")
# `pkg/recompile.py`: what typeguard's @typechecked does. The function that runs is a copy
# compiled again from its module's text as `inspect.getsource` reads it, without its
# decorators and with a type check added: no live function has the text's code.
RECOMPILING_DECORATOR = (
    "import ast\nimport inspect\nimport sys\nimport types\n\n\n"
    "def recompiled(func):\n"
    "    tree = ast.parse(inspect.getsource(sys.modules[func.__module__]))\n"
    "    (node,) = [n for n in tree.body if getattr(n, 'name', '') == func.__name__]\n"
    "    arg = node.args.args[0].arg\n"
    "    check = f'if not isinstance({arg}, int):\\n    raise TypeError({arg!r})'\n"
    "    node.body.insert(0, ast.parse(check).body[0])\n"
    "    node.decorator_list = []\n"
    "    tree = ast.fix_missing_locations(tree)\n"
    "    module = compile(tree, func.__code__.co_filename, 'exec')\n"
    "    named = [c for c in module.co_consts if getattr(c, 'co_name', '') == func.__name__]\n"
    "    return types.FunctionType(named[0], func.__globals__, func.__name__)\n"
)


def copy_project(root: Path, *trees: str, git: bool = False) -> Path:
    """Copy the `trees` into `root`, later ones over earlier ones; with `git`, commit them."""
    for tree in trees:
        source = PROJECTS / tree
        if not source.is_dir():
            raise FileNotFoundError(f"no fixture project {tree!r} in {PROJECTS}")
        shutil.copytree(source, root, dirs_exist_ok=True, ignore=_IGNORE)
    if git:
        commit(root)
    return root


def fixture_text(tree: str, relative: str) -> str:
    """One file of a fixture tree, without copying it anywhere."""
    return (PROJECTS / tree / relative).read_text(encoding="utf-8")


def edit(path: Path, old: str, new: str) -> str:
    """Replace the one occurrence of `old` in the file with `new`; the new text."""
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} must occur exactly once in {path}"
    text = text.replace(old, new)
    path.write_text(text, encoding="utf-8")
    return text


def write_files(root: Path, files: dict[str, str]) -> Path:
    """Write `files` (path relative to root -> text) into root; returns root."""
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def git(cwd: Path, *args: str) -> str:
    """`git ARGS` in cwd with a fixed identity and no user config; its stdout."""
    env = {
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
        "GIT_CONFIG_NOSYSTEM": "1",
        "HOME": str(cwd),
        "PATH": "/usr/bin:/bin:/usr/local/bin",
    }
    command = ["git", "-c", "commit.gpgsign=false", *args]
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def commit(root: Path, message: str = "fixture") -> Path:
    """Make root a git repository (if it is not one) and commit everything in it."""
    if not (root / ".git").exists():
        git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "--allow-empty", "-m", message)
    return root


def git_status(root: Path) -> str:
    """`git status --porcelain` including untracked files: empty when nothing changed."""
    return git(root, "status", "--porcelain", "--untracked-files=all")
