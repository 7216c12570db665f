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
from collections.abc import Callable, Sequence
from pathlib import Path

from guardcheck import __version__, git
from guardcheck.catalogue.load import catalogue_files
from guardcheck.errors import GuardcheckError
from guardcheck.model import Mutant, Provenance, Revision
from guardcheck.options import Effect, RunOptions, as_json, fields_with
from guardcheck.shard import content_key

# RunOptions fields that can change a verdict or which mutants a run covers (options.py's
# Effect). Not: root (differs per machine), jobs and output (how, not what), gate and
# shard (recorded and checked on their own).
VERDICT_FIELDS = fields_with(Effect.VERDICT, Effect.SELECTION)


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
    return git.run(root, *args, check=True, timeout=30).stdout


def run_config(options: RunOptions, selected: Sequence[Mutant]) -> dict[str, object]:
    """The verdict-affecting configuration as JSON-ready values (the same on every machine)."""
    config: dict[str, object] = {}
    for name in VERDICT_FIELDS:
        by_content = _RECORDED_BY_CONTENT.get(name)
        recorded = by_content(options) if by_content else as_json(getattr(options, name))
        if recorded is not None:
            config[name] = recorded
    mutants = hashlib.sha256()
    for mutant in selected:
        mutants.update(content_key(mutant).encode())
    config["mutants"] = mutants.hexdigest()
    return config


def _shard_times_hash(options: RunOptions) -> str | None:
    """The split depends on it: shards balanced on different reports do not add up."""
    if options.shard is None or options.shard_times is None:
        return None
    return hashlib.sha256(options.resolve(options.shard_times).read_bytes()).hexdigest()


def _catalogue_hashes(options: RunOptions) -> dict[str, str]:
    try:
        files = catalogue_files(options)
    except GuardcheckError:  # mutants given directly (a sweep): no catalogue needed
        return {}
    return {options.display(path): hashlib.sha256(path.read_bytes()).hexdigest() for path in files}


# Fields recorded by content, not by value: paths differ per machine, contents do not.
_RECORDED_BY_CONTENT: dict[str, Callable[[RunOptions], object]] = {
    "catalogue": _catalogue_hashes,
    "shard_times": _shard_times_hash,
}


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
