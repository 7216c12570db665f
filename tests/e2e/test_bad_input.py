"""Bad input and hostile tests: a clear message and the documented exit code, never a traceback.

Real `python -m guardcheck` processes on throwaway git projects (issue 8 §C8, §C11, §C14,
issue 9 §6, clarifications case 15). After each, the user's tree is as it was and no
process is left whose working directory is inside the project.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.processes import wait_until
from support.projects import commit, copy_project, git_status, write_files
from test_isolation import environment, snapshot

from guardcheck import api, applyfile
from guardcheck.errors import GuardcheckError

pytestmark = pytest.mark.slow


def guardcheck(root: Path, *args: str, env: dict[str, str] | None = None):
    return subprocess.run(
        [sys.executable, "-m", "guardcheck", *args],
        cwd=root,
        env={**environment(), **(env or {})},
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


def processes_in(root: Path) -> list[int]:
    """Live processes whose working directory is inside `root` (ours: the lab's copy too)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            try:
                cwd = Path(os.readlink(f"/proc/{entry}/cwd"))
            except OSError:
                continue
            if cwd == root or root in cwd.parents:
                found.append(int(entry))
    return found


def ladder(tmp_path: Path, *overlays: str, files: dict[str, str] | None = None) -> Path:
    root = copy_project(tmp_path / "ladder", "ladder", *overlays)
    write_files(root, files or {})
    return commit(root)


def assert_refused(done: subprocess.CompletedProcess[str], code: int, words: str) -> None:
    assert done.returncode == code, done.stdout + done.stderr
    assert words in done.stderr, done.stderr
    assert "Traceback" not in done.stderr + done.stdout


def test_a_hanging_baseline_test_is_exit_3_naming_it(tmp_path):
    hang = "import time\n\n\ndef test_hangs():\n    while True:\n        time.sleep(1)\n"
    root = ladder(tmp_path, files={"tests/test_hang.py": hang})
    started = time.monotonic()
    done = guardcheck(root, "run", "-q", "--baseline-timeout", "5")
    assert_refused(done, 3, "tests/test_hang.py::test_hangs hangs")
    assert time.monotonic() - started < 60
    assert git_status(root) == ""
    assert wait_until(lambda: not processes_in(root))


@pytest.mark.parametrize(
    ("setting", "words"),
    [
        ("jobs = 0", "jobs must be a whole number >= 1"),
        ("jobs = 1.5", "jobs must be a whole number >= 1"),
        ('source = ["nope"]', "source: nope does not exist"),
        ("baseline_timeout = 0", "baseline_timeout must be a number > 0"),
        ("memory_limit_mb = -1", "memory_limit_mb must be a whole number"),
    ],
)
def test_bad_settings_are_exit_2(tmp_path, setting, words):
    root = copy_project(tmp_path / "ladder", "ladder")
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + f"{setting}\n")
    commit(root)
    assert_refused(guardcheck(root, "run", "-q"), 2, words)
    assert git_status(root) == ""


def test_a_pyproject_that_is_not_utf8_is_exit_2(tmp_path):
    root = ladder(tmp_path)
    with (root / "pyproject.toml").open("ab") as handle:
        handle.write(b"# caf\xe9\n")
    assert_refused(guardcheck(root, "run", "-q"), 2, "not UTF-8")


def test_an_output_folder_that_is_a_file_is_exit_2_for_run_and_apply(tmp_path):
    root = ladder(tmp_path)
    (root / ".guardcheck").write_text("not a folder")
    before = snapshot(root)
    assert_refused(guardcheck(root, "run", "-q"), 2, "is a file, not a folder")
    assert_refused(guardcheck(root, "apply", "flat-cooldown"), 2, "cannot use the output folder")
    assert snapshot(root) == before


@pytest.mark.parametrize(
    ("flag", "target", "words"),
    [
        ("--junit", "tests", "is a folder"),
        ("--markdown", "app/ladder.py", "is a file of your project"),
        ("--json", "pyproject.toml/r.json", "is a file, so no folder can be made"),
    ],
)
def test_bad_report_paths_are_refused_before_anything_runs(tmp_path, flag, target, words):
    root = ladder(tmp_path)
    before = snapshot(root)
    assert_refused(guardcheck(root, "run", "-q", flag, target), 2, words)
    assert snapshot(root) == before
    assert not (root / ".guardcheck" / "baseline.json").exists()  # nothing ran


def test_sigterm_during_validation_is_130(tmp_path):
    mark = tmp_path / "validating"
    slow = (
        "import os\nimport time\n\n"
        "open(os.environ['GC_MARK'], 'w').close()\ntime.sleep(60)\n\n\n"
        "class ZeroCap:\n    pass\n"
    )
    root = ladder(tmp_path, "ladder-transform", files={"tools/mutations.py": slow})
    process = subprocess.Popen(
        [sys.executable, "-m", "guardcheck", "check"],
        cwd=root,
        env={**environment(), "GC_MARK": str(mark)},
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert wait_until(mark.exists, seconds=60)
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130, err
    assert "interrupted" in err
    assert "Traceback" not in err


def test_zero_collected_tests_is_exit_3(tmp_path):
    root = ladder(tmp_path, files={"empty/README.md": "no tests here\n"})
    catalogue = root / "mutations" / "ladder.toml"
    catalogue.write_text(catalogue.read_text().replace("killed_by", "# killed_by"))
    commit(root)
    done = guardcheck(root, "run", "-q", "--root", str(root))
    assert done.returncode == 0, done.stderr  # with tests, the edited catalogue runs
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text().replace('tests = ["tests"]', 'tests = ["empty"]'))
    commit(root)
    assert_refused(guardcheck(root, "run", "-q"), 3, "no tests collected from empty")


def test_apply_refuses_files_under_git_and_rolls_back_a_failed_write(tmp_path, monkeypatch):
    root = ladder(tmp_path)
    write_files(root, {".git/hooks/helper.py": "X = 1\n"})
    entry = (
        '\n[[mutation]]\nid = "in-git"\nsummary = "A file of git\'s."\n'
        'file = ".git/hooks/helper.py"\nfind = "X = 1"\nreplace = "X = 2"\n'
    )
    with (root / "mutations" / "ladder.toml").open("a") as handle:
        handle.write(entry)
    commit(root)
    assert_refused(guardcheck(root, "apply", "in-git"), 2, "writes only Python source files")
    assert (root / ".git/hooks/helper.py").read_text() == "X = 1\n"
    # A write that fails half-way (a read-only file, for a user who is not root): nothing
    # changed, and no state file is left to block every later run.
    options = api.load_options(root)
    real = Path.write_bytes

    def refuse(path: Path, data: bytes) -> int:
        if path.name == "ladder.py":
            raise PermissionError(13, "Permission denied")
        return real(path, data)

    monkeypatch.setattr(Path, "write_bytes", refuse)
    with pytest.raises(GuardcheckError, match="nothing was changed"):
        api.apply(options, "flat-cooldown")
    assert applyfile.applied_ids(options) == []
    assert git_status(root) == ""


def test_pytest_cov_in_addopts_leaves_nothing_behind(tmp_path):
    root = ladder(tmp_path)
    pyproject = root / "pyproject.toml"
    pyproject.write_text(
        pyproject.read_text() + '\n[tool.pytest.ini_options]\naddopts = "--cov=app"\n'
    )
    commit(root)
    done = guardcheck(root, "run", "-q")
    assert done.returncode == 0, done.stdout + done.stderr
    status = subprocess.run(
        ["git", "status", "--porcelain", "--ignored"], cwd=root, capture_output=True, text=True
    ).stdout
    assert status.splitlines() == ["!! .guardcheck/"]
    assert not list((root / ".guardcheck" / "tree").glob(".coverage*"))


def test_every_311_statement_kind_in_a_target_file(tmp_path):
    root = ladder(tmp_path, "ladder-kinds")
    done = guardcheck(root, "run", "-q")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "5 mutants: 5 caught" in done.stdout


def test_a_runaway_allocation_is_caught_by_the_memory_limit(tmp_path):
    root = copy_project(tmp_path / "ladder", "ladder")
    pyproject = root / "pyproject.toml"
    pyproject.write_text(pyproject.read_text() + "memory_limit_mb = 1024\n")
    catalogue = root / "mutations" / "ladder.toml"
    catalogue.write_text(
        catalogue.read_text().replace(
            'replace = "min($BASE, CAP)"', 'replace = "len(bytearray(4 * 1024 ** 3))"'
        )
    )
    commit(root)
    started = time.monotonic()
    done = guardcheck(root, "run", "-q")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 mutant: 1 caught" in done.stdout
    assert time.monotonic() - started < 60


def test_a_broken_conftest_is_exit_3_with_its_import_error(tmp_path):
    """Issue 24 (smaller): a conftest.py that fails to import was "the guardcheck host
    stopped unexpectedly" (exit 2); it is the project's baseline problem, with pytest's
    own account of the import error."""
    root = ladder(tmp_path, files={"conftest.py": "import nonexistent_module_xyz\n"})
    done = guardcheck(root, "run")
    assert_refused(done, 3, "pytest could not load a conftest.py, so no test can run")
    assert "No module named 'nonexistent_module_xyz'" in done.stderr
    assert "stopped unexpectedly" not in done.stderr
