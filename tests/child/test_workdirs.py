"""Where a child works (child/workdirs.py): the root itself, with a pooled basetemp."""

from __future__ import annotations

from pathlib import Path

import pytest

from guardcheck.child.workdirs import Sandbox, remove


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    (root / "data").mkdir(parents=True)
    (root / "data" / "x.json").write_text("{}")
    return root


@pytest.fixture
def sandbox(root: Path, tmp_path: Path) -> Sandbox:
    return Sandbox(root, tmp_path / "scratch")


def test_a_slot_works_in_the_root_itself_with_an_empty_basetemp(sandbox, root):
    """Issue 22 case 6: the working directory was a folder of symlinks to the root's
    entries, where `git status` showed type changes; it is the real root now."""
    slot = sandbox.take()
    assert slot.cwd == root
    assert not slot.cwd.is_symlink()
    assert slot.tmp.is_dir()
    assert list(slot.tmp.iterdir()) == []


def test_slots_in_use_have_distinct_basetemps_and_a_returned_one_is_reused(sandbox):
    first, second = sandbox.take(), sandbox.take()
    assert first.tmp != second.tmp
    sandbox.give_back(first)
    assert sandbox.take() == first


def test_giving_back_empties_the_basetemp_and_leaves_the_root_alone(sandbox, root):
    slot = sandbox.take()
    (slot.tmp / "basetemp-leftover").mkdir()
    (slot.tmp / "file.txt").write_text("x")
    sandbox.give_back(slot)
    assert list(slot.tmp.iterdir()) == []
    assert (root / "data" / "x.json").read_text() == "{}"


def test_a_basetemp_a_child_removed_is_made_again(sandbox):
    slot = sandbox.take()
    remove(slot.tmp)
    sandbox.give_back(slot)
    assert slot.tmp.is_dir()


def test_remove_never_follows_symlinks(tmp_path, root):
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    (scratch / "link").symlink_to(root / "data")
    remove(scratch)
    assert not scratch.exists()
    assert (root / "data" / "x.json").read_text() == "{}"
