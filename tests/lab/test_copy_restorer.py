"""Files of the private copy that a test wrote, created or removed, put back as the copy
made them (lab/sandbox/projectcopy.py `CopyRestorer`, child/copywrites.py)."""

from __future__ import annotations

import os

from support.projects import commit, write_files

from guardcheck.child.copywrites import written_paths
from guardcheck.lab.execute.written import Footprint, WrittenFiles
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
    assert written_paths("os.symlink", ("target", "link", None)) == ["link"]


def test_a_path_relative_to_a_folder_descriptor_is_not_taken_for_the_copys():
    """Regression (jinja2 3.1.4): shutil.rmtree removes a temporary folder's files by name
    relative to its descriptor; those names were taken as files in the copy's root, and
    the runs of the tests that removed them were kept apart for nothing (46 s -> 61 s)."""
    assert written_paths("os.remove", ("dump.txt", 5)) == []
    assert written_paths("os.rename", ("a", "b", 3, None)) == []
    assert written_paths("os.listdir", ("a",)) == []


def test_a_writers_run_clashes_with_runs_that_open_its_files_and_no_others():
    written = WrittenFiles(
        writes={"tests/data.txt": ["t::write"], "out.txt": ["t::dump"]},
        opens={"tests/data.txt": ["t::read", "t::write"], "out.txt": ["t::dump"]},
    )
    writer = written.footprint(["t::write", "t::other"])
    reader = written.footprint(["t::read"])
    dumper = written.footprint(["t::dump"])
    bystander = written.footprint(["t::other"])
    assert writer.writes == {"tests/data.txt"}
    assert writer.clashes(reader)
    assert reader.clashes(writer)
    assert writer.clashes(written.footprint(["t::write"]))
    assert not writer.clashes(dumper)
    assert not writer.clashes(bystander)
    assert not reader.clashes(written.footprint(["t::read"]))  # readers may overlap
    assert WrittenFiles().footprint(["t::write"]) == Footprint()
