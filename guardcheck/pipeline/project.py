"""The user's project as the steps read it: a file's text, and the import roots first."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from guardcheck.errors import GuardcheckError
from guardcheck.lab.sandbox.importroots import import_roots, with_roots_first
from guardcheck.splices import SourceEncodingError
from guardcheck.splices import read_source as read


def read_source(root: Path, path: str) -> str:
    """A project file's text as Python decodes it: its coding cookie's encoding, BOM kept.

    GuardcheckError (exit 2) when Python could not decode it either, naming the line,
    the byte and the fix (splices.read_source).
    """
    try:
        return read(root / path)
    except SourceEncodingError as exc:
        raise GuardcheckError(
            f"{path} cannot be decoded as Python source: {exc}\n  fix: {exc.fix}"
        ) from None


def import_roots_first(paths: Sequence[Path], environ: Mapping[str, str]) -> dict[str, str]:
    """`{"PYTHONPATH": ...}` with the import roots of `paths` ahead of `environ`'s: a
    checkout's own packages then import from it, whatever an editable install points at
    (the rule the lab's runs use, lab/sandbox/importroots.py)."""
    return with_roots_first(import_roots(str(p) for p in paths), dict(environ))
