"""Where the lab's scratch folder goes (guardcheck/lab/sandbox/scratchdir.py).

The choice is checked on a fake mount table naming a real folder; the last test
runs the lab for real with `GUARDCHECK_SCRATCH` and finds the children's
`tmp_path` inside the chosen folder, which is empty again afterwards.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from support.lab import by_id, mutant, run
from support.projects import copy_project, git_status, write_files

from guardcheck.errors import GuardcheckError
from guardcheck.lab.sandbox import scratchdir
from guardcheck.model import Status


def mount_table(tmp_path: Path, folder: Path, kind: str) -> Path:
    table = tmp_path / "mounts"
    table.write_text(
        "/dev/vda / ext4 rw,relatime 0 0\n"
        f"{kind} {folder} {kind} rw,nosuid,nodev 0 0\n"
        "proc /proc proc rw 0 0\n",
        encoding="utf-8",
    )
    return table


@pytest.fixture
def ram(tmp_path: Path) -> Path:
    folder = tmp_path / "shm"
    folder.mkdir()
    return folder


def test_a_roomy_tmpfs_is_chosen(tmp_path, ram):
    mounts = mount_table(tmp_path, ram, "tmpfs")
    assert scratchdir.scratch_parent({}, ram, mounts, min_free=0) == ram


def test_a_folder_that_is_not_a_tmpfs_mount_is_not_chosen(tmp_path, ram):
    mounts = mount_table(tmp_path, ram, "ext4")
    chosen = scratchdir.scratch_parent({}, ram, mounts, min_free=0)
    assert chosen == Path(tempfile.gettempdir())


def test_a_tmpfs_without_room_is_not_chosen(tmp_path, ram):
    """Regression guard: a container's 64 MiB /dev/shm must not hold the tests' files."""
    mounts = mount_table(tmp_path, ram, "tmpfs")
    chosen = scratchdir.scratch_parent({}, ram, mounts, min_free=1 << 60)
    assert chosen == Path(tempfile.gettempdir())


def test_a_missing_mount_table_means_no_tmpfs(tmp_path, ram):
    chosen = scratchdir.scratch_parent({}, ram, tmp_path / "absent", min_free=0)
    assert chosen == Path(tempfile.gettempdir())


def test_tmpdir_and_the_guardcheck_variable_win_in_that_order(tmp_path, ram):
    mounts = mount_table(tmp_path, ram, "tmpfs")
    tmpdir, own = str(tmp_path / "t"), str(tmp_path / "g")
    assert scratchdir.scratch_parent({"TMPDIR": tmpdir}, ram, mounts, 0) == Path(tmpdir)
    env = {"TMPDIR": tmpdir, scratchdir.ENV: own}
    assert scratchdir.scratch_parent(env, ram, mounts, 0) == Path(own)


def test_make_scratch_creates_a_private_folder_in_the_chosen_one(tmp_path):
    made = scratchdir.make_scratch("guardcheck-lab-", {scratchdir.ENV: str(tmp_path)})
    assert made.parent == tmp_path
    assert made.is_dir()
    assert not any(made.iterdir())
    assert made.stat().st_mode & 0o077 == 0


def test_a_chosen_folder_that_does_not_exist_is_a_clear_error(tmp_path):
    missing = tmp_path / "nowhere"
    with pytest.raises(GuardcheckError) as raised:
        scratchdir.make_scratch("guardcheck-lab-", {scratchdir.ENV: str(missing)})
    message = str(raised.value)
    assert f"{scratchdir.ENV}={missing}" in message
    assert "fix: point GUARDCHECK_SCRATCH at an existing, writable folder" in message


RECORDING_TEST = """\
import os
import pathlib

from calc.ops import add


def test_add_records_where_it_ran(tmp_path):
    (tmp_path / "made-by-the-test.txt").write_text("x")
    with open(os.environ["RECORD_TMP_PATH"], "a") as out:
        out.write(str(tmp_path) + "\\n")
    assert add(2, 3) == 5
"""


def test_children_run_in_the_chosen_scratch_and_leave_it_empty(tmp_path, monkeypatch):
    root = copy_project(tmp_path / "calc", "calc", git=True)
    write_files(root, {"tests/test_recording.py": RECORDING_TEST})
    chosen, record = tmp_path / "chosen", tmp_path / "tmp-paths.txt"
    chosen.mkdir()
    monkeypatch.setenv(scratchdir.ENV, str(chosen))
    monkeypatch.setenv("RECORD_TMP_PATH", str(record))
    report = run(root, [mutant(root, "add", "return a + b", "return a - b")], jobs=1)
    assert by_id(report)["add"].status is Status.CAUGHT
    seen = record.read_text(encoding="utf-8").split()
    assert seen
    assert all(Path(p).is_relative_to(chosen) for p in seen), seen
    assert list(chosen.iterdir()) == []
    assert git_status(root) == "?? tests/test_recording.py"
