"""`guardcheck apply`: the one place guardcheck writes a mutant into the user's files.

Before touching a file, the original bytes are saved under
`<output>/applied/<id>.json` with hashes of the original and mutated bytes, so
`apply --revert` restores exactly what was there, and refuses when the file was
edited since (restoring then would throw those edits away).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from guardcheck.catalogue.load import did_you_mean, is_valid_id
from guardcheck.errors import GuardcheckError
from guardcheck.model import FileChange, Mutant
from guardcheck.options import RunOptions
from guardcheck.reports.outdir import GITIGNORE
from guardcheck.splices import SourceEncodingError, decode_source, encode_source

STATE_VERSION = 1
APPLIED_DIR = "applied"


def ensure_output_dir(settings: RunOptions) -> Path:
    """The output folder, created with a `.gitignore` of `*` so git never sees it."""
    output = settings.output_dir
    try:
        output.mkdir(parents=True, exist_ok=True)
        gitignore = output / ".gitignore"
        if not gitignore.exists():
            gitignore.write_text(GITIGNORE, encoding="utf-8")
    except OSError as exc:
        raise GuardcheckError(
            f"{settings.display(output)}: cannot use the output folder: {exc.strerror or exc}\n"
            "  fix: make it a writable folder, or point `output` in [tool.guardcheck] elsewhere"
        ) from None
    return output


def _writable_source(settings: RunOptions, relative: str) -> Path:
    """The project file `apply` may write: a Python source inside the root, never git's."""
    path = settings.resolve(Path(relative))
    try:
        inside = path.resolve().relative_to(settings.root)
    except ValueError:
        inside = None
    if inside is None or ".git" in inside.parts or path.suffix not in {".py", ".pyi"}:
        raise GuardcheckError(
            f"{relative}: `apply` writes only Python source files of the project\n"
            "  fix: point the entry's `file` at a .py file under the root"
        )
    if not path.is_file():
        raise GuardcheckError(f"{relative}: no such file\n  fix: check the entry's `file`")
    if not os.access(path, os.W_OK):
        raise GuardcheckError(
            f"{relative}: is read-only, so the mutant cannot be written\n"
            "  fix: make it writable (chmod u+w), or debug with `guardcheck show`"
        )
    return path


def state_path(settings: RunOptions, mutant_id: str) -> Path:
    if not is_valid_id(mutant_id):  # the id becomes a file name: no "../" ever
        raise GuardcheckError(
            f"`{mutant_id}` is not a catalogue id\n  fix: use an id from `guardcheck list`"
        )
    return settings.output_dir / APPLIED_DIR / f"{mutant_id}.json"


def applied_ids(settings: RunOptions) -> list[str]:
    folder = settings.output_dir / APPLIED_DIR
    return sorted(p.stem for p in folder.glob("*.json")) if folder.is_dir() else []


def refuse_while_applied(options: RunOptions) -> None:
    """The gate proves the tests against the real code, not against a mutant
    someone wrote into the tree with `guardcheck apply` and forgot."""
    applied = applied_ids(options)
    if applied:
        reverts = "; ".join(f"guardcheck apply --revert {mutant_id}" for mutant_id in applied)
        raise GuardcheckError(
            f"mutation(s) {', '.join(applied)} are written into your working tree "
            f"(guardcheck apply), so the catalogue would not match the real code\n"
            f"  fix: {reverts}"
        )


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _read_state(path: Path) -> dict[str, Any]:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise GuardcheckError(
            f"{path}: cannot read the saved state: {exc}\n"
            "  fix: restore the files with git, then delete that state file"
        ) from None


def refuse_if_applied(settings: RunOptions, mutant_id: str) -> None:
    state = state_path(settings, mutant_id)
    if state.exists():
        raise GuardcheckError(
            f"`{mutant_id}` is already applied (state in {settings.display(state)})\n"
            f"  fix: run `guardcheck apply --revert {mutant_id}` first"
        )


def apply_mutant(settings: RunOptions, mutant: Mutant) -> Path:
    """Write the mutant's files; returns the state file that `revert` needs."""
    refuse_if_applied(settings, mutant.id)
    state = state_path(settings, mutant.id)
    touched = {change.path for change in mutant.changes}
    for other in applied_ids(settings):
        paths = {f["path"] for f in _read_state(state_path(settings, other)).get("files", [])}
        if paths & touched:
            raise GuardcheckError(
                f"`{other}` is applied to {', '.join(sorted(paths & touched))}; "
                "stacking mutants would make both impossible to revert exactly\n"
                f"  fix: run `guardcheck apply --revert {other}` first"
            )
    files = []
    writes: list[tuple[Path, bytes]] = []
    for change in mutant.changes:
        path = _writable_source(settings, change.path)
        original = path.read_bytes()
        mutated = _mutated_bytes(original, change)
        writes.append((path, mutated))
        files.append(
            {
                "path": change.path,
                "original_sha256": _sha256(original),
                "mutated_sha256": _sha256(mutated),
                "original_base64": base64.b64encode(original).decode("ascii"),
            }
        )
    record = {"version": STATE_VERSION, "id": mutant.id, "summary": mutant.summary, "files": files}
    # The state is on disk before the first user file changes, so a crash mid-way is revertable.
    ensure_output_dir(settings)
    state.parent.mkdir(parents=True, exist_ok=True)
    state.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    written: list[tuple[Path, bytes]] = []
    try:
        for path, mutated in writes:
            original = path.read_bytes()
            path.write_bytes(mutated)
            written.append((path, original))
    except OSError as exc:
        # Undo what was written, and drop the state: it would block every later run.
        for path, original in written:
            path.write_bytes(original)
        state.unlink(missing_ok=True)
        raise GuardcheckError(
            f"could not write {settings.display(path)}: {exc.strerror or exc}; "
            "nothing was changed\n  fix: make the file writable"
        ) from None
    return state


def _mutated_bytes(original: bytes, change: FileChange) -> bytes:
    """The mutated file in the encoding it declares, as Python will read it back."""
    try:
        on_disk = decode_source(original)
    except SourceEncodingError:
        on_disk = None
    if on_disk != change.original:
        raise GuardcheckError(
            f"{change.path} changed while the mutant was being built\n  fix: run the command again"
        )
    try:
        return encode_source(change.mutated)
    except UnicodeEncodeError as exc:
        raise GuardcheckError(
            f"{change.path}: the mutant holds {change.mutated[exc.start : exc.end]!r}, which "
            f"the file's declared encoding ({exc.encoding}) cannot hold; nothing was changed\n"
            "  fix: write `replace` with characters of that encoding (or an escape)"
        ) from None


def revert(settings: RunOptions, mutant_id: str) -> list[str]:
    """Restore the original bytes of every file `apply` wrote; returns their paths."""
    state = state_path(settings, mutant_id)
    if not state.is_file():
        applied = applied_ids(settings)
        suggestion = did_you_mean(mutant_id, applied)
        hint = f" (did you mean `{suggestion}`?)" if suggestion else ""
        listing = ", ".join(applied) if applied else "none"
        raise GuardcheckError(
            f"`{mutant_id}` is not applied{hint}; applied now: {listing}\n"
            "  fix: revert one of the applied ids, or nothing needs reverting"
        )
    record = _read_state(state)
    changed = []
    for file in record["files"]:
        path = settings.resolve(Path(file["path"]))
        current = path.read_bytes() if path.is_file() else b""
        if _sha256(current) != file["mutated_sha256"]:
            changed.append(file["path"])
    if changed:
        raise GuardcheckError(
            f"cannot revert `{mutant_id}`: {', '.join(changed)} changed since it was applied, "
            "and restoring would throw those edits away\n"
            f"  fix: undo your edits (or `git checkout -- {' '.join(changed)}`), "
            f"then delete {settings.display(state)}; the original bytes are saved in it"
        )
    for file in record["files"]:
        path = settings.resolve(Path(file["path"]))
        path.write_bytes(base64.b64decode(file["original_base64"]))
    state.unlink()
    return [file["path"] for file in record["files"]]
