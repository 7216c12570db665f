"""Scratch working directories (child/workdirs.py): mirrors of the root, pooled and reset."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from guardcheck.child.workdirs import Sandbox, remove


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    (root / "data").mkdir(parents=True)
    (root / "data" / "x.json").write_text("{}")
    (root / "setup.cfg").write_text("[x]\n")
    (root / ".guardcheck").mkdir()
    return root


@pytest.fixture
def sandbox(root: Path, tmp_path: Path) -> Sandbox:
    return Sandbox(root, {".guardcheck"}, tmp_path / "scratch")


def entries(folder: Path) -> dict[str, str]:
    """name -> the symlink's target, or "file"/"folder" for what is not a symlink."""
    return {
        p.name: os.readlink(p) if p.is_symlink() else ("folder" if p.is_dir() else "file")
        for p in folder.iterdir()
    }


def test_a_slot_mirrors_the_root_with_symlinks_except_the_skipped_names(sandbox, root):
    slot = sandbox.take()
    assert entries(slot.cwd) == {"data": str(root / "data"), "setup.cfg": str(root / "setup.cfg")}
    assert (slot.cwd / "data" / "x.json").read_text() == "{}"  # relative reads still work
    assert slot.tmp.is_dir()
    assert list(slot.tmp.iterdir()) == []


def test_slots_in_use_are_distinct_and_a_returned_one_is_reused(sandbox):
    first, second = sandbox.take(), sandbox.take()
    assert len({first.cwd, second.cwd, first.tmp, second.tmp}) == 4
    sandbox.give_back(first)
    assert sandbox.take() == first


def test_giving_back_undoes_what_a_child_did_to_its_slot(sandbox, root):
    slot = sandbox.take()
    (slot.cwd / "stray.txt").write_text("stray")  # a file created by a relative name
    (slot.cwd / "made").mkdir()
    (slot.cwd / "made" / "inner.txt").write_text("x")
    (slot.cwd / "data").unlink()  # a test removed a symlink...
    (slot.cwd / "setup.cfg").unlink()
    (slot.cwd / "setup.cfg").write_text("replaced")  # ... or replaced one with a file
    (slot.tmp / "basetemp-leftover").mkdir()
    sandbox.give_back(slot)
    assert entries(slot.cwd) == {"data": str(root / "data"), "setup.cfg": str(root / "setup.cfg")}
    assert list(slot.tmp.iterdir()) == []
    assert (root / "setup.cfg").read_text() == "[x]\n"  # the real file was never touched
    assert sorted(p.name for p in root.iterdir()) == [".guardcheck", "data", "setup.cfg"]


def test_a_slot_whose_folders_a_child_removed_is_rebuilt(sandbox, root):
    slot = sandbox.take()
    remove(slot.cwd)
    remove(slot.tmp)
    sandbox.give_back(slot)
    assert entries(slot.cwd) == {"data": str(root / "data"), "setup.cfg": str(root / "setup.cfg")}
    assert slot.tmp.is_dir()


def test_remove_deletes_the_mirror_but_never_follows_its_symlinks(sandbox, root, tmp_path):
    slot = sandbox.take()
    assert (slot.cwd / "data").is_symlink()
    remove(tmp_path / "scratch")
    assert not (tmp_path / "scratch").exists()
    assert (root / "data" / "x.json").read_text() == "{}"
    remove(tmp_path / "scratch")  # already gone: fine
