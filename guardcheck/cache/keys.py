"""Content keys: nothing positional (catalogue line, mutant index, mutant id alone).

    world key  = H(environment, every project file's digest)
    mutant key = H(environment, digests of every project file *except* the mutated
                   ones, the mutated files' mutated text, what the mutant is)

Each key is `key_of(kind, inputs)`, a hash of a few named digests (`Inputs`); an entry
records its inputs, and a reader believes it only when they are its own.

So a mutant hits when the code its tests run under it is byte-identical to last time:
editing `a.py` re-tests every mutant of `a.py` whose mutated text changed (all of them:
the mutated text is the whole file) and every mutant of other files (their "other
files" changed). The world key stands for the unmutated run (the baseline); when it
and every mutant key match, nothing runs at all.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
from collections.abc import Iterable, Mapping
from importlib import metadata
from pathlib import Path

from guardcheck import __version__
from guardcheck.model import Mutant
from guardcheck.options import Effect, RunOptions, as_json, fields_with
from guardcheck.shard import content_key

FORMAT = 4  # bump when an entry's layout or the key's recipe changes

# The named digests a key is computed from: stored in the entry, and compared with the
# reader's own before the entry is believed (store.py), so an entry placed under a key it
# was not computed for says which input differs instead of being replayed.
Inputs = dict[str, str]

# RunOptions fields that can change a verdict or what it is judged from: those options.py
# classifies as Effect.VERDICT (the provenance records them too).
KEYED_FIELDS = fields_with(Effect.VERDICT)
# Environment variables pytest or Python read that change what a test sees.
KEYED_ENVIRON = ("PYTEST_ADDOPTS", "PYTEST_PLUGINS", "PYTHONPATH", "PYTHONHASHSEED")


def hash_parts(parts: Iterable[str]) -> str:
    digest = hashlib.sha256()
    for text in parts:  # length-prefixed: no two part lists concatenate alike
        data = text.encode("utf-8", "surrogatepass")
        digest.update(f"{len(data)}:".encode())
        digest.update(data)
    return digest.hexdigest()


def environment_key(options: RunOptions) -> str:
    """guardcheck, Python, installed distributions, the keyed options and environment."""
    # Installed distributions only: sys.path entries inside the project (the working folder
    # under `python -m`, with its *.egg-info) would make the key depend on how it started.
    root = str(options.root)
    installed = [p for p in sys.path if p and _installed(os.path.abspath(p), root)]
    dists = sorted(
        {f"{d.metadata['Name']}=={d.version}" for d in metadata.distributions(path=installed)}
    )
    settings = {name: as_json(getattr(options, name)) for name in KEYED_FIELDS}
    environ = {name: os.environ.get(name) for name in KEYED_ENVIRON}
    return hash_parts(
        [
            f"format {FORMAT}",
            __version__,
            _own_code(),
            sys.version,
            # The interpreter and environment, not the name it was started by (`guardcheck`
            # runs .venv/bin/python3.11, `python -m guardcheck` .venv/bin/python).
            os.path.realpath(sys.executable),
            sys.prefix,
            json.dumps(settings, sort_keys=True),
            json.dumps(environ, sort_keys=True),
            *dists,
        ]
    )


@functools.cache
def _own_code() -> str:
    return code_digest(Path(__file__).resolve().parents[1])


def code_digest(package: Path) -> str:
    """A digest of a package's Python files: guardcheck's own code, so that a guardcheck
    installed from a branch, or edited in place, at an unchanged version number replays
    no verdict its code might no longer give (~200 small files, a few milliseconds)."""
    files = sorted(package.rglob("*.py"))
    return hash_parts(
        f"{path.relative_to(package).as_posix()}\0{path.read_text('utf-8', 'surrogateescape')}"
        for path in files
    )


def _installed(entry: str, root: str) -> bool:
    """A sys.path entry outside the project, or a virtualenv's site-packages inside it."""
    inside = entry == root or entry.startswith(root + os.sep)
    return not inside or os.path.basename(entry) in ("site-packages", "dist-packages")


def files_key(digests: Mapping[str, str], without: frozenset[str] = frozenset()) -> str:
    return hash_parts(f"{path}\0{digests[path]}" for path in sorted(digests) if path not in without)


def key_of(kind: str, inputs: Mapping[str, str]) -> str:
    """The key of `inputs` (name -> digest): what an entry records and a reader re-checks."""
    return hash_parts([kind, *(f"{name}={inputs[name]}" for name in sorted(inputs))])


def world_inputs(environment: str, digests: Mapping[str, str]) -> Inputs:
    return {"environment": environment, "files": files_key(digests)}


def world_key(environment: str, digests: Mapping[str, str]) -> str:
    return key_of("world", world_inputs(environment, digests))


def mutant_inputs(environment: str, others: str, mutant: Mutant) -> Inputs:
    """`others`: files_key of the project without this mutant's files."""
    parts = [content_key(mutant), mutant.summary, mutant.mutator]
    parts += [f"killed_by {k}" for k in mutant.killed_by]
    parts += [f"tag {t}" for t in mutant.tags]
    for change in mutant.changes:
        parts += [
            change.path,
            hashlib.sha256(change.mutated.encode("utf-8", "surrogatepass")).hexdigest(),
        ]
    return {"environment": environment, "files": others, "mutant": hash_parts(parts)}


def mutant_key(environment: str, others: str, mutant: Mutant) -> str:
    return key_of("mutant", mutant_inputs(environment, others, mutant))
