"""Files of the private copy that a test wrote, created or removed, put back as the copy
made them (lab/sandbox/projectcopy.py `CopyRestorer`, child/copywrites.py)."""

from __future__ import annotations

import os

from support.projects import commit, write_files

from guardcheck.child.copywrites import written_paths
from guardcheck.lab.sandbox.projectcopy import CopyRestorer, private_copy
from guardcheck.options import load_options

FILES = {
    "pyproject.toml": '[tool.guardcheck]\nsource = ["app"]\n',
    "app/core.py": "X = 1\n",
    "tests/data.txt": "original\n",
    "tests/kept.txt": "kept\n",
}


def test_written_created_and_removed_files_are_put_back_from_the_users_tree(tmp_path):
    root = commit(write_files(tmp_path / "project", FILES))
    options = load_options(root)
    copy = private_copy(options)
    (copy / "tests" / "data.txt").write_text("hello!\n")
    (copy / "tests" / "kept.txt").unlink()
    (copy / "tests" / "new.txt").write_text("made by a test\n")
    (copy / "tests" / "out").mkdir()
    (copy / "tests" / "out" / "a.txt").write_text("a\n")
    lab = options.with_overrides(root=copy, output=options.output_dir, origin=root)
    CopyRestorer(lab).restore(
        ["tests/data.txt", "tests/kept.txt", "tests/new.txt", "tests/out", "tests/out/a.txt"]
    )
    assert (copy / "tests" / "data.txt").read_text() == "original\n"
    assert (copy / "tests" / "kept.txt").read_text() == "kept\n"
    assert not (copy / "tests" / "new.txt").exists()
    assert not (copy / "tests" / "out").exists()
    # As the copy made it: the next run's manifest check finds nothing to copy again.
    for rel in ("tests/data.txt", "tests/kept.txt"):
        assert (copy / rel).stat().st_mtime_ns == (root / rel).stat().st_mtime_ns


def test_opens_for_writing_renames_and_removals_are_writes_and_reads_are_not():
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    assert written_paths("open", ("data.txt", "w", flags)) == ["data.txt"]
    assert written_paths("open", ("data.txt", "r+", os.O_RDWR)) == ["data.txt"]
    assert written_paths("open", ("data.txt", "r", os.O_RDONLY)) == []
    assert written_paths("os.rename", ("a", "b", None, None)) == ["a", "b"]
    assert written_paths("os.remove", ("a", None)) == ["a"]
    assert written_paths("os.listdir", ("a",)) == []
