"""Where a lab session's scratch folder goes: into memory when the machine has room.

Every child runs in a scratch working folder with its pytest basetemp beside it
(child/workdirs.py), so the tests' `tmp_path` files, SQLite databases and their
journals are created, synced and deleted there once per mutant. On a disk
filesystem that is kernel work the tests never pay in a plain pytest run of
the same size: on target_app's sweep it made the run markedly slower under
/tmp than under /dev/shm (inode allocation, fdatasync, I/O wait; bench/README.md).

The order, first that applies:
1. `GUARDCHECK_SCRATCH`: a folder the user chose (it must exist);
2. `TMPDIR`, when set: the user already said where temporary files go;
3. /dev/shm, when it is a tmpfs with at least `MIN_FREE_BYTES` free (a
   container's default 64 MiB is not: a test running out of space there would
   fail for a reason that has nothing to do with the mutant);
4. the system's temporary folder.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path

from guardcheck.errors import GuardcheckError

ENV = "GUARDCHECK_SCRATCH"
RAM_FOLDER = Path("/dev/shm")
MIN_FREE_BYTES = 1 << 30
MOUNTS = Path("/proc/self/mounts")


def make_scratch(prefix: str, env: Mapping[str, str] = os.environ) -> Path:
    """A new, empty, private folder for one session (the caller removes it)."""
    parent = scratch_parent(env)
    try:
        return Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
    except OSError as exc:
        where = next((f"{n}={env[n]}" for n in (ENV, "TMPDIR") if env.get(n)), str(parent))
        raise GuardcheckError(
            f"cannot create guardcheck's scratch folder in {where}: {exc.strerror or exc}\n"
            f"  fix: point {ENV} at an existing, writable folder"
        ) from exc


def scratch_parent(
    env: Mapping[str, str] = os.environ,
    ram: Path = RAM_FOLDER,
    mounts: Path = MOUNTS,
    min_free: int = MIN_FREE_BYTES,
) -> Path:
    """The folder to create the scratch folder in."""
    for name in (ENV, "TMPDIR"):
        if chosen := env.get(name):
            return Path(chosen)
    return ram if roomy_tmpfs(ram, mounts, min_free) else Path(tempfile.gettempdir())


def roomy_tmpfs(folder: Path, mounts: Path = MOUNTS, min_free: int = MIN_FREE_BYTES) -> bool:
    """`folder` is a tmpfs mount point we may write to, with room to spare."""
    try:
        table = mounts.read_text("utf-8")
        stats = os.statvfs(folder)
    except OSError:
        return False
    mounted = any(
        fields[1] == str(folder) and fields[2] == "tmpfs"
        for fields in (line.split() for line in table.splitlines())
        if len(fields) >= 3
    )
    free = stats.f_bavail * stats.f_frsize
    return mounted and free >= min_free and os.access(folder, os.W_OK | os.X_OK)
