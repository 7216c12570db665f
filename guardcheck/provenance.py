"""What a run was run against: guardcheck's version, the git revision, the configuration.

Recorded in every JSON report (`guardcheck.run`) so that `guardcheck merge` can
refuse to combine shard reports that would not add up to one run. The
configuration is the set of settings that can change a verdict, in a form that
is the same on every machine (catalogue files by content, not by absolute path),
plus a digest of the mutants themselves: two checkouts whose catalogue or target
files differ produce different mutants and therefore a different hash, even when
their HEADs agree.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
from collections.abc import Sequence
from pathlib import Path

from guardcheck import __version__
from guardcheck.catalogue.load import catalogue_files
from guardcheck.errors import GuardcheckError
from guardcheck.model import Mutant, Provenance, Revision
from guardcheck.options import RunOptions
from guardcheck.shard import content_key

# RunOptions fields that can change a verdict. Not: root (differs per machine), jobs and
# output (how, not what), gate (recorded and checked on its own), shard (differs per shard).
VERDICT_FIELDS = (
    "source",
    "tests",
    "pytest_args",
    "timeout_factor",
    "timeout_constant",
    "baseline_runs",
    "matrix",
    "only",
)


def git_revision(root: Path) -> Revision | None:
    """HEAD and whether tracked files differ from it; None outside a git checkout.

    Untracked files do not count as dirty: a shard's own `--json a.json` in the
    tree would otherwise make the next shard on the same checkout dirty.
    """
    try:
        head = _git(root, "rev-parse", "HEAD")
        status = _git(root, "status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.CalledProcessError, subprocess.TimeoutExpired):
        return None
    return Revision(sha=head.strip(), dirty=bool(status.strip()))


def _git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, capture_output=True, text=True, check=True, timeout=30
    ).stdout


def run_config(options: RunOptions, selected: Sequence[Mutant]) -> dict[str, object]:
    """The verdict-affecting configuration as JSON-ready values (the same on every machine)."""
    config: dict[str, object] = {}
    for name in VERDICT_FIELDS:
        value = getattr(options, name)
        config[name] = list(value) if isinstance(value, tuple) else value
    config["catalogue"] = _catalogue_hashes(options)
    if options.shard is not None and options.shard_times is not None:
        # The split depends on it: shards balanced on different reports do not add up.
        times = options.resolve(options.shard_times)
        config["shard_times"] = hashlib.sha256(times.read_bytes()).hexdigest()
    mutants = hashlib.sha256()
    for mutant in selected:
        mutants.update(content_key(mutant).encode())
    config["mutants"] = mutants.hexdigest()
    return config


def _catalogue_hashes(options: RunOptions) -> dict[str, str]:
    try:
        files = catalogue_files(options)
    except GuardcheckError:  # mutants given directly (a sweep): no catalogue needed
        return {}
    return {options.display(path): hashlib.sha256(path.read_bytes()).hexdigest() for path in files}


def config_hash(config: dict[str, object]) -> str:
    return hashlib.sha256(json.dumps(config, sort_keys=True).encode()).hexdigest()


def run_provenance(options: RunOptions, selected: Sequence[Mutant]) -> Provenance:
    """The provenance of a run of `selected` (the selection before sharding) under `options`."""
    config = run_config(options, selected)
    return Provenance(
        version=__version__,
        revision=git_revision(options.root),
        config=config,
        config_hash=config_hash(config),
        gate=options.gate,
        shard=options.shard,
        selected=tuple(m.id for m in selected),
    )
