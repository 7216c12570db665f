"""Inside a process a test started, against a mutant: serve it, and report what ran.

The bootstrap `sitecustomize` (bootstrap.py) calls `serve_mutant` in every
Python a mutant's test starts, while `site` initialises, before any user
code. Whatever this module imports, that process imports too, on top of
what plain pytest's would: so it stays small (no dataclasses, no
`guardcheck.messages`), and what it needs from there (the marker's name,
the variable naming the test) comes in as arguments. A CLI suite that
starts hundreds of interpreters paid ~45 ms each for the heavier import
(sqlparse 0.5.1: `python -m sqlparse.cli --help`, 57 ms plain).

The files the processes write (one line per event, appended) are named
here, for the child that reads them back (follow.py) and for the baseline's
measuring processes (followcov.py).
"""

from __future__ import annotations

import atexit
import base64
import builtins
import json
import marshal
import os
import sys
import types
from typing import TypedDict

from guardcheck.child.importhook import ServedModules
from guardcheck.child.preloaded import ImportsOf, imported_from, not_served_reason
from guardcheck.child.sourcereads import watch_text_reads

EVIDENCE = "evidence"  # one line per marker or served module first seen in a process
PROBLEMS = "problems"  # "test<TAB>why" per process that could not start guardcheck
FROM_DISK = "from-disk"  # "test<TAB>why" per process that ran or read a mutated file from disk
SOURCE_READS = "source-reads"  # baseline: "test<TAB>real path" per source file a process read
STARTED = "started"  # "pid<TAB>test" per measured process: one without coverage is unfollowed
COVERAGE_PREFIX = "cov-"  # baseline: one "cov-<pid>.json" per measured process


class FollowSpec(TypedDict):
    """What every Python process a child's tests start does: the JSON file the
    bootstrap reads (its path in `GUARDCHECK_FOLLOW`)."""

    mode: str  # "baseline": measure coverage; "mutant": serve the mutated modules
    out: str  # folder they write coverage, evidence and problems into
    source: list[str]  # baseline: folders and files coverage measures
    trees: dict[str, str]  # mutant: real path -> b64 marshalled code
    texts: dict[str, str]  # mutant: real path -> mutated source text
    on_disk: bool  # the mutated files are on disk too: a script run by path is the mutant


def read_spec(path: str) -> FollowSpec:
    with open(path, encoding="utf-8") as spec:
        loaded: FollowSpec = json.load(spec)
    return loaded


def append_line(path: str, line: str) -> None:
    """One write with O_APPEND: lines from many processes never tear into each other.

    Called from inside the code under test (the marker): it must never raise there,
    or the test would fail because of guardcheck. A line lost costs evidence only,
    which can only turn a verdict into `error`.
    """
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            os.write(fd, (line.replace("\n", " ") + "\n").encode())
        finally:
            os.close(fd)
    except OSError:
        pass


class FileMarker:
    """The evidence marker in a followed process: the first call per name reaches the file."""

    def __init__(self, path: str) -> None:
        self._path = path
        self._seen: set[str] = set()

    def __call__(self, name: str) -> None:
        if name not in self._seen:
            self._seen.add(name)
            append_line(self._path, name)


def serve_mutant(spec: FollowSpec, test: str, marker: str) -> None:
    """Mutated modules from memory, and evidence to the shared file.

    `test` is the node id of the test that started this process; `marker` the name of
    the builtin the lab compiles into mutated code (messages.MARKER)."""
    evidence = os.path.join(spec["out"], EVIDENCE)
    modules: dict[str, types.CodeType | str] = {
        real: marshal.loads(base64.b64decode(tree)) for real, tree in spec["trees"].items()
    }
    modules.update(spec["texts"])
    texts = set(spec["texts"])

    def executed(real: str) -> None:
        # A served text (module-level mutant) counts once run; a tree has markers inside.
        if real in texts:
            append_line(evidence, f"served {real}")

    from_disk = os.path.join(spec["out"], FROM_DISK)
    if spec["on_disk"]:
        # The files hold the mutant: imported as usual (rewritten by pytest, for a pytest
        # plugin in a pytest subprocess), not served; an import of one is the evidence.
        imports = ImportsOf(modules)
        atexit.register(_imported_on_disk, imports, evidence)
    else:
        ServedModules(modules, on_exec=executed).install()
        # Imported at start by a .pth file, before this bootstrap: the original.
        if preloaded := imported_from(modules):
            append_line(from_disk, f"{test}\t{not_served_reason(preloaded)} (in a subprocess)")

        # A linter or a test's helper reading the file's text reads the original.
        def read(real: str) -> None:
            why = f"read {real} from disk, which holds the original (in a subprocess)"
            append_line(from_disk, f"{test}\t{why}")

        watch_text_reads(modules.__contains__, read)
    setattr(builtins, marker, FileMarker(evidence))
    script = sys.argv[0] if sys.argv and sys.argv[0] not in ("", "-c", "-m") else ""
    real_script = os.path.realpath(script) if script else ""
    if real_script in modules and spec["on_disk"]:
        # The lab wrote the mutant on disk for this run: the script about to run is it.
        # (Its code has no markers: running the file is the evidence, as for a text.)
        append_line(evidence, f"served {real_script} (run as a script, from disk)")
    elif real_script in modules:
        # `python pkg/cli.py`: Python reads the script from disk, which holds the
        # original; the import hook never sees it. A pass of this test proves nothing,
        # until the lab runs the mutant again written on disk (lab/execute/ondisk.py).
        why = f"ran {real_script} as a script, from disk, which holds the original"
        append_line(from_disk, f"{test}\t{why}")


def _imported_on_disk(imports: ImportsOf, evidence: str) -> None:
    for real in imports.seen():
        append_line(evidence, f"imported from the mutant on disk: {real}")
