"""The user's tree, index and HEAD stay byte-identical, whatever the tests and mutants do.

Real `python -m guardcheck run` processes on throwaway git projects: the tests run in a
private copy (guardcheck/lab/sandbox/projectcopy.py), the output folder is locked per run.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.projects import copy_project, git, write_files

from guardcheck.child.workdirs import LARGE

pytestmark = pytest.mark.slow

# A test that does what issue 8 §B6 saw tests do: git in its working directory, writes
# relative to __file__ and to the cwd, rmtree of a data folder. It also asserts that git
# inside the tests sees a clean repository.
HOSTILE_TEST = """\
import pathlib
import shutil
import subprocess

from app.ladder import cooldown

HERE = pathlib.Path(__file__).resolve().parent


def git(*args):
    done = subprocess.run(["git", *args], cwd=HERE, capture_output=True, text=True)
    return done.stdout.strip()


def test_hostile():
    assert cooldown(1) == 60
    assert git("status", "--porcelain") == ""
    (HERE / "written-next-to-the-test.txt").write_text("x")
    (HERE.parent / "app" / "stray.txt").write_text("x")
    open("stray-in-cwd.txt", "w").close()
    shutil.rmtree(HERE.parent / "data")
    git("add", "-A")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "from a test")
"""


def environment() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_") and k != "COLUMNS"}


def guardcheck(root: Path, *args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "guardcheck", *args],
        cwd=root,
        env=environment(),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def snapshot(root: Path) -> dict[str, str]:
    """Every file of the tree and of .git (index, HEAD, refs), as hashes; the output folder
    aside."""
    found = {}
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if not (Path(folder) == root and d == ".guardcheck")]
        for name in names:
            path = Path(folder) / name
            found[path.relative_to(root).as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def hostile_project(tmp_path: Path) -> Path:
    root = copy_project(tmp_path / "ladder", "ladder", git=False)
    write_files(root, {"tests/test_hostile.py": HOSTILE_TEST, "data/input.txt": "x\n"})
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "-c", "commit.gpgsign=false", "commit", "-qm", "fixture")
    # Uncommitted work of the user's: a modified file and an untracked one.
    with (root / "app" / "__init__.py").open("a") as handle:
        handle.write("# being edited\n")
    write_files(root, {"notes.txt": "mine\n"})
    return root


def test_git_and_writes_in_tests_never_reach_the_users_tree_or_index(tmp_path):
    root = hostile_project(tmp_path)
    before, status = snapshot(root), git(root, "status", "--porcelain")
    for _ in range(2):  # the second run reuses (and resets) the private copy
        done = guardcheck(root, "run", "-q")
        assert done.returncode == 0, done.stdout + done.stderr
        assert snapshot(root) == before
        assert git(root, "status", "--porcelain") == status
    copy = root / ".guardcheck" / "tree"
    assert (copy / "notes.txt").read_text() == "mine\n"  # untracked work is tested too
    assert (root / ".guardcheck" / "outcomes.jsonl").is_file()  # reports: the user's root


def test_a_users_git_template_hooks_never_run_in_the_private_copy(tmp_path):
    """The copy's repository is made without git's template: a user's init.templateDir
    (say, a pre-commit hook that formats or uploads) was copied into it and ran when a
    test committed there."""
    home, marker = tmp_path / "home", tmp_path / "hook-ran"
    hooks = home / "template" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "pre-commit").write_text(f"#!/bin/sh\ntouch {marker}\n")
    (hooks / "pre-commit").chmod(0o755)
    (home / ".gitconfig").write_text(f"[init]\n\ttemplateDir = {home / 'template'}\n")
    root = hostile_project(tmp_path)  # its test commits in the copy
    done = subprocess.run(
        [sys.executable, "-m", "guardcheck", "run", "-q"],
        cwd=root,
        env={**environment(), "HOME": str(home)},
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert not marker.exists()
    assert not (root / ".guardcheck" / "tree" / ".git" / "hooks").exists()


def test_a_clean_tree_is_copied_at_the_same_head(tmp_path):
    root = copy_project(tmp_path / "ladder", "ladder", git=True)
    done = guardcheck(root, "run", "-q")
    assert done.returncode == 0, done.stdout + done.stderr
    copy = root / ".guardcheck" / "tree"
    assert git(copy, "rev-parse", "HEAD") == git(root, "rev-parse", "HEAD")
    assert git(copy, "status", "--porcelain") == ""


def test_outside_git_the_tree_is_copied_without_venvs_and_caches(tmp_path):
    root = copy_project(tmp_path / "ladder", "ladder")
    write_files(root, {"venv/pyvenv.cfg": "home = /usr\n", ".mypy_cache/x": "x"})
    done = guardcheck(root, "run", "-q")
    assert done.returncode == 0, done.stdout + done.stderr
    copy = root / ".guardcheck" / "tree"
    assert (copy / "app" / "ladder.py").is_file()
    assert not (copy / "venv").exists()
    assert not (copy / ".mypy_cache").exists()
    assert not (copy / ".guardcheck").exists()


def test_a_project_ignored_by_an_enclosing_repository_keeps_its_configuration(tmp_path):
    """Regression (found by the sweep bench): a project folder that an enclosing
    repository git-ignores lost its pyproject.toml and code from the private copy (git
    lists nothing there), so collection failed or the mutants read as not covered."""
    outer = tmp_path / "outer"
    outer.mkdir()
    git(outer, "init", "-q")
    (outer / ".gitignore").write_text("ladder/\n")
    root = copy_project(outer / "ladder", "ladder")
    done = guardcheck(root, "run", "-q")
    assert done.returncode == 0, done.stdout + done.stderr
    copy = root / ".guardcheck" / "tree"
    assert (copy / "pyproject.toml").is_file()
    assert (copy / "app" / "ladder.py").is_file()


def test_a_second_run_on_the_same_output_folder_is_refused_naming_the_holder(tmp_path):
    root = copy_project(tmp_path / "ladder", "ladder", git=True)
    assert guardcheck(root, "run", "-q").returncode == 0
    # Hold the lock the way a running guardcheck does (same file, same flock).
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_LOCK, str(root / ".guardcheck" / "lock")],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        outcomes = (root / ".guardcheck" / "outcomes.jsonl").read_bytes()
        done = guardcheck(root, "run", "-q")
        assert done.returncode == 2, done.stdout + done.stderr
        assert f"another guardcheck run (pid {holder.pid})" in done.stderr
        assert "Traceback" not in done.stderr
        assert (root / ".guardcheck" / "outcomes.jsonl").read_bytes() == outcomes
    finally:
        holder.kill()
        holder.wait()
    assert guardcheck(root, "run", "-q").returncode == 0  # released with its holder


HOLD_LOCK = f"""
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)
fcntl.flock(fd, {fcntl.LOCK_EX})
os.ftruncate(fd, 0); os.write(fd, f"{{os.getpid()}}\\n".encode())
print("locked", flush=True)
time.sleep(120)
"""


def test_an_edit_in_the_same_second_that_keeps_the_size_is_tested(tmp_path):
    """Regression (bytecode under <output>/pycache): Python checks a .pyc against its
    source's size and whole-second mtime, so an edit like this one would have run the
    previous run's bytecode and reported a green baseline for red code."""
    root = copy_project(tmp_path / "ladder", "ladder", git=False)
    assert guardcheck(root, "run", "-q", "--no-cache").returncode == 0
    # The tests' rewritten bytecode is kept for the next run, in the output folder only.
    assert list((root / ".guardcheck" / "pycache").rglob("test_ladder.*-pytest-*.pyc"))
    assert not [p for p in root.rglob("__pycache__") if ".guardcheck" not in p.parts]
    source = root / "app" / "ladder.py"
    before = source.stat()
    edited = source.read_text().replace("BASE = 60", "BASE = 61")
    source.write_text(edited)
    # Same size, same second, a different nanosecond count: the copy refreshes it.
    second, fraction = divmod(before.st_mtime_ns, 10**9)
    os.utime(source, ns=(before.st_atime_ns, second * 10**9 + (fraction + 1) % 10**9))
    assert source.stat().st_size == before.st_size
    done = guardcheck(root, "run", "-q", "--no-cache")
    assert done.returncode == 3, done.stdout + done.stderr  # the baseline is red now


def test_a_large_untracked_file_is_copied_but_never_committed_in_the_copy(tmp_path):
    """Issue 22 case 11: a 200 MB untracked (not ignored) file was also committed into
    the copy's git: twice its size on disk, a 19 s first run, peak memory about its size.
    Large files now stay out of the copy's commit; the tests still find them."""
    root = copy_project(tmp_path / "ladder", "ladder", git=True)
    big = root / "data.bin"
    with big.open("wb") as out:
        out.truncate(LARGE + 1)
    done = guardcheck(root, "run", "-q")
    assert done.returncode == 0, done.stdout + done.stderr
    copy = root / ".guardcheck" / "tree"
    assert (copy / "data.bin").stat().st_size == LARGE + 1
    assert git(copy, "ls-files", "data.bin") == ""  # not committed
    assert git(copy, "status", "--porcelain") == ""  # and not reported either


def _plain_collection(root: Path, *args: str) -> tuple[int, list[str]]:
    """Plain pytest's exit status and the node ids it collects, from the project root."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--collect-only", *args],
        cwd=root,
        env=environment(),
        capture_output=True,
        text=True,
        check=False,
    )
    return done.returncode, sorted(line for line in done.stdout.splitlines() if "::" in line)


@pytest.mark.parametrize("mode", ["prepend", "importlib"])
def test_plain_pytest_collects_the_same_tests_after_a_run_whatever_norecursedirs_says(
    tmp_path, mode
):
    """Found on jaraco.text 4.0.0 (bench/corpus): its `norecursedirs = dist build .tox
    .eggs` drops pytest's default `.*`, so after a sweep a plain `pytest` in the project
    collected the private copy in .guardcheck/tree too: every test twice (importlib
    mode), or an import-file mismatch and a red suite (prepend, with --doctest-modules
    and a conftest.py at the root). `--collect-in-virtualenv` sets the output folder's
    pyvenv.cfg aside, so its conftest.py alone keeps pytest out."""
    if mode == "importlib" and pytest.version_tuple < (8, 1):
        pytest.skip("pytest < 8.1 cannot import a conftest.py under a folder named with a dot")
    root = write_files(
        tmp_path / "project",
        {
            "pyproject.toml": (
                '[tool.guardcheck]\nsource = ["calc.py"]\ntests = ["tests"]\n'
                "[tool.pytest.ini_options]\n"
                'norecursedirs = ["build", "dist"]\npythonpath = ["."]\n'
                f'addopts = "--import-mode={mode} --doctest-modules"\n'
            ),
            "calc.py": "def double(x):\n    return x * 2\n",
            "conftest.py": "import pytest\n\n\n@pytest.fixture\ndef two():\n    return 2\n",
            "tests/test_calc.py": (
                "from calc import double\n\n\ndef test_double(two):\n    assert double(two) == 4\n"
            ),
        },
    )
    git(root, "init", "-q", "-b", "main")
    before = _plain_collection(root)
    assert before == (0, ["tests/test_calc.py::test_double"])
    done = guardcheck(root, "sweep", "-q")
    assert done.returncode in (0, 1), done.stdout + done.stderr  # 1: a survivor, fine here
    assert (root / ".guardcheck" / "tree" / "tests" / "test_calc.py").is_file()
    assert _plain_collection(root) == before
    assert _plain_collection(root, "--collect-in-virtualenv") == before
