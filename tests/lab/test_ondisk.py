"""A mutant written into the private copy for the runs whose tests read it from disk
(lab/execute/ondisk.py): written as `apply` writes it, restored byte for byte."""

from __future__ import annotations

import os
from pathlib import Path

from support.projects import commit, write_files

from guardcheck.lab.execute.ondisk import OnDisk
from guardcheck.lab.sandbox.projectcopy import private_copy
from guardcheck.model import FileChange, Mutant, Where
from guardcheck.options import load_options

LATIN1 = "# -*- coding: latin-1 -*-\nGREETING = 'héllo'\n"


def _mutant(path: str, original: str, old: str, new: str) -> Mutant:
    change = FileChange(path, original, original.replace(old, new), Where(path, 1))
    return Mutant(f"{path}: {old} -> {new}", "a test mutant", (change,))


def test_a_mutant_is_written_in_its_declared_encoding_and_restored_with_its_mtime(tmp_path):
    target = tmp_path / "pkg" / "greet.py"
    target.parent.mkdir()
    target.write_bytes(LATIN1.encode("latin-1"))
    os.utime(target, ns=(1_000_000_000_000_000_000, 1_000_000_000_000_000_000))
    before = target.read_bytes(), target.stat().st_mtime_ns
    disk = OnDisk(tmp_path)
    disk.write(_mutant("pkg/greet.py", LATIN1, "'héllo'", "'hé'"))
    assert disk.active
    assert target.read_bytes() == "# -*- coding: latin-1 -*-\nGREETING = 'hé'\n".encode("latin-1")
    assert target.stat().st_mtime_ns != before[1]
    disk.restore()
    assert not disk.active
    assert (target.read_bytes(), target.stat().st_mtime_ns) == before


def test_each_mutant_gets_a_later_mtime_by_whole_seconds(tmp_path):
    """Regression guard: two mutants of one file with the same size written within a second
    would share (size, mtime) and so a bytecode cache written from the first."""
    (tmp_path / "m.py").write_text("X = 1\n")
    disk = OnDisk(tmp_path)
    seen = []
    for new in ("2", "3", "4"):
        disk.write(_mutant("m.py", "X = 1\n", "1", new))
        seen.append((tmp_path / "m.py").stat().st_mtime_ns // 1_000_000_000)
        disk.restore()
    assert seen[0] < seen[1] < seen[2]


def test_a_run_killed_with_a_mutant_on_disk_leaves_the_next_copy_original(tmp_path):
    """guardcheck killed between writing a mutant and restoring it: the copy's file no longer
    matches its manifest, so the next run copies it again from the user's tree."""
    source = "def double(x):\n    return x * 2\n"
    root = commit(
        write_files(
            tmp_path / "project",
            {"pyproject.toml": '[tool.guardcheck]\nsource = ["app"]\n', "app/core.py": source},
        )
    )
    options = load_options(root)
    copy = private_copy(options)
    OnDisk(copy).write(_mutant("app/core.py", source, "x * 2", "x + 2"))  # never restored
    assert (copy / "app" / "core.py").read_bytes() != (root / "app" / "core.py").read_bytes()
    again = private_copy(options)
    assert (again / "app" / "core.py").read_bytes() == source.encode()
    assert _mtime(again / "app" / "core.py") == _mtime(root / "app" / "core.py")


def _mtime(path: Path) -> int:
    return path.stat().st_mtime_ns
