"""Code reached only in a subprocess or multiprocessing workers (issue 8 §A5).

Each case keeps one test file of the `subprocs` fixture project, runs
`python -m guardcheck run` on a committed copy, and checks every verdict
against the mutant applied by hand to a second copy with the whole suite run
there by plain pytest: guardcheck must agree, or say `error` with the reason.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support.projects import commit, copy_project, edit, git_status
from support.verdicts import suite_outcomes

from guardcheck.reports.stryker import nodeids_by_id

pytestmark = pytest.mark.slow

SUBPROCESS = "test_a_subprocess.py"
FORK_POOL = "test_b_fork_pool.py"
SPAWN_POOL = "test_c_spawn_pool.py"
MIXED = "test_d_mixed.py"
NO_SITE = "test_e_no_site.py"
# entry id -> (file, find, replace), as in the fixture's catalogue
ENTRIES = {
    "double-triple": ("pkg/core.py", "x * 2", "x * 3"),
    "double-sum": ("pkg/core.py", "x * 2", "x + x"),
    "factor-three": ("pkg/scale.py", "FACTOR = 2", "FACTOR = 3"),
}


def one_case(root: Path, keep: str, *, git: bool) -> Path:
    """The `subprocs` project with `keep` as its only test file."""
    copy_project(root, "subprocs")
    for test_file in (root / "tests").glob("test_*.py"):
        if test_file.name != keep:
            test_file.unlink()
    if git:
        commit(root)
    return root


def by_hand(tmp_path: Path, keep: str, entry: str) -> dict[str, str]:
    """The whole (one-file) suite's outcomes with the entry's mutant written into a copy."""
    path, old, new = ENTRIES[entry]
    root = one_case(tmp_path / f"by-hand-{entry}", keep, git=False)
    edit(root / path, old, new)
    return suite_outcomes(root)


def guardcheck(root: Path, *only: str) -> tuple[subprocess.CompletedProcess[str], dict]:
    """`guardcheck run --no-cache --json`; the JSON's per-mutant guardcheck fields by id."""
    report = root.parent / f"{root.name}.json"
    flags = [arg for entry in only for arg in ("--only", entry)]
    done = subprocess.run(
        [sys.executable, "-m", "guardcheck", "run", "--no-cache", "--json", str(report), *flags],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert report.exists(), done.stdout + done.stderr
    data = json.loads(report.read_text(encoding="utf-8"))
    mutants = {
        m["guardcheck"]["id"]: m["guardcheck"] for f in data["files"].values() for m in f["mutants"]
    }
    names = nodeids_by_id(data)  # a mutant's tests are named by their testFiles ids
    for fields in mutants.values():
        fields["tests"] = [{**t, "id": names[t["id"]]} for t in fields["tests"]]
    return done, mutants


def named_semaphores() -> set[str]:
    """multiprocessing's named semaphores on this machine (Linux keeps them in /dev/shm)."""
    shm = Path("/dev/shm")
    return {p.name for p in shm.glob("sem.mp-*")} if shm.is_dir() else set()


def run_case(tmp_path: Path, keep: str, *only: str, exit_code: int = 1) -> dict:
    root = one_case(tmp_path / "project", keep, git=True)
    done, mutants = guardcheck(root, *only)
    assert done.returncode == exit_code, done.stdout + done.stderr
    assert git_status(root) == "", "guardcheck changed the user's tree"
    return mutants


def test_a_subprocess_run_is_measured_activated_and_judged(tmp_path):
    """Regression (issue 8 §A5a): a mutant reached only through
    `subprocess.run([sys.executable, "-c", ...])` was `no-coverage`."""
    mutants = run_case(tmp_path, SUBPROCESS)
    test = f"tests/{SUBPROCESS}::test_double_in_a_subprocess"
    assert by_hand(tmp_path, SUBPROCESS, "double-triple") == {test: "failed"}
    assert mutants["double-triple"]["verdict"] == "caught"
    ran = {t["id"]: t["outcome"] for t in mutants["double-triple"]["tests"]}
    assert ran == {test: "failed"}
    # Module level: the fresh-interpreter path serves the mutated text to the subprocess too.
    assert by_hand(tmp_path, SUBPROCESS, "factor-three") == {test: "failed"}
    assert mutants["factor-three"]["verdict"] == "caught"
    # Same results: a survivor, with the evidence coming from the subprocess.
    assert by_hand(tmp_path, SUBPROCESS, "double-sum") == {test: "passed"}
    assert mutants["double-sum"]["verdict"] == "survived", mutants["double-sum"]["reason"]


@pytest.mark.parametrize(
    ("keep", "test"),
    [
        (FORK_POOL, "test_double_in_fork_workers"),
        (SPAWN_POOL, "test_double_in_spawn_workers"),
    ],
    ids=["fork", "spawn"],
)
def test_bc_pool_workers_run_the_mutant_and_their_evidence_counts(tmp_path, keep, test):
    """Regression (issue 8 §A5b, §A5c): a kill in fork-pool workers was `error` "mutated
    code never ran" (the evidence marker fired in the grandchild's memory only), and a
    mutant reached only in spawn-pool workers was `no-coverage` (spawned interpreters
    were never measured, and imported the original module)."""
    before = named_semaphores()
    mutants = run_case(tmp_path, keep, "double-*")
    # Regression: each forked child's spawn pool left its locks' named semaphores behind.
    assert named_semaphores() - before == set()
    nodeid = f"tests/{keep}::{test}"
    assert by_hand(tmp_path, keep, "double-triple") == {nodeid: "failed"}
    assert mutants["double-triple"]["verdict"] == "caught", mutants["double-triple"]["reason"]
    assert by_hand(tmp_path, keep, "double-sum") == {nodeid: "passed"}
    assert mutants["double-sum"]["verdict"] == "survived", mutants["double-sum"]["reason"]


def test_d_an_in_process_call_blind_to_the_mutant_no_longer_hides_the_subprocess_kill(tmp_path):
    """Regression (issue 8 §A5d): `double(0) == 0` in the test's own process plus a
    subprocess that notices the mutant gave a false `survived`."""
    mutants = run_case(tmp_path, MIXED, "double-triple", exit_code=0)
    test = f"tests/{MIXED}::test_double_here_and_in_a_subprocess"
    assert by_hand(tmp_path, MIXED, "double-triple") == {test: "failed"}
    assert mutants["double-triple"]["verdict"] == "caught", mutants["double-triple"]["reason"]


def test_e_a_python_without_site_cannot_be_followed_so_a_pass_is_an_error(tmp_path):
    """Issue 8 §A5, the unsound case: `python -S` never loads the bootstrap, so the
    mutant is not active there; the by-hand suite fails, guardcheck must not say
    `survived` (nor `no-coverage` for code only that process runs)."""
    mutants = run_case(tmp_path, NO_SITE, "double-triple", "factor-three")
    test = f"tests/{NO_SITE}::test_double_here_and_in_python_without_site"
    assert by_hand(tmp_path, NO_SITE, "double-triple") == {test: "failed"}
    for entry in ("double-triple", "factor-three"):
        assert mutants[entry]["verdict"] == "error"
        assert "-S (no site)" in mutants[entry]["reason"]
        assert "proves nothing" in mutants[entry]["reason"]
