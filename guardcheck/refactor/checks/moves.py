"""Check 5: the migration table. No old name outside its adapters; each view acts like
the container it replaced.

References are found with libcst scope analysis (`references.py`): names whose
qualified name ends with the old one (`Relay._running_agents` in the class
body, `from m import _old`), and attribute accesses by the old attribute's
name (`self._running_agents`, `runner._running_agents`: receivers are not
type-inferred, so a same-named attribute of another class counts too).
Comments and strings are not references. A reference is allowed inside an
`allowed_in` file or folder, or inside an `allowed_in` qualified name (the
enclosing function or class, or `Class.attr` for a class attribute's own
definition). With `view`, `guardcheck.equiv` compares the view with `reference` in
stateful mode.
"""

from __future__ import annotations

from pathlib import Path

from guardcheck.equiv.request import EquivRequest
from guardcheck.errors import GuardcheckError
from guardcheck.refactor.findings import CheckResult, Finding, Outcome
from guardcheck.refactor.layout import display, python_files, source_paths, test_paths
from guardcheck.refactor.moves_file import Move
from guardcheck.refactor.references import Reference, scan_all
from guardcheck.refactor.trees import Trees

KEY = "moves"
TITLE = "Migration table"


def refers_to(ref: Reference, old: str) -> bool:
    parts = old.split(".")
    if ref.kind == "attribute":
        return ref.attr == parts[-1] and (len(parts) > 1 or ref.ends_with(old))
    if ref.kind in ("name", "import"):
        return ref.ends_with(old)
    return False  # strings (patch targets) are not references to the moved name


def allowed(ref: Reference, move: Move) -> bool:
    for entry in move.allowed_files:
        entry = entry.rstrip("/")
        if ref.path == entry or ref.path.startswith(entry + "/"):
            return True
    enclosing = ref.enclosing
    return any(
        enclosing == name or enclosing.startswith(name + ".") or name.endswith("." + enclosing)
        for name in move.allowed_names
    )


def _equivalence(trees: Trees, move: Move, shown: str) -> Finding | str:
    """A finding when the view diverges from its reference, else a note of the evidence."""
    assert move.view is not None
    request = EquivRequest(
        root=trees.today.root,
        old=move.reference,
        new=move.view,
        sources=trees.today.source,
        strategy=move.strategy,
        stateful=True,
        methods=move.methods,
        examples=move.examples,
    )
    # Hypothesis loads only for a move that has a view to compare.
    from guardcheck.equiv.check import check

    try:
        result = check(request)
    except GuardcheckError as exc:
        raise GuardcheckError(
            f"{shown}:{move.line}: {move.old}: view {move.view} cannot be "
            f"compared with {move.reference}: {exc}"
            + (
                ""
                if "fix:" in str(exc)
                else "\n  fix: make `view` and `reference` name "
                "zero-argument factories importable from the project root"
            )
        ) from None
    text = result.text().splitlines()
    if result.equal:
        return f"{move.old}: view {move.view} behaves like {move.reference} ({text[-1].strip()})"
    return Finding(
        f"{move.old}: view {move.view} does not behave like {move.reference}",
        path=shown,
        line=move.line,
        details=tuple(text[2:]),
    )


def check_moves(trees: Trees, moves: list[Move], moves_path: Path) -> CheckResult:
    today = trees.today
    scanned = source_paths(today)
    if trees.request.moves_scan_tests:
        scanned += test_paths(today)
    references = list(scan_all(today.root, list(python_files(today.root, scanned))))
    shown = display(today.root, moves_path.resolve())
    findings: list[Finding] = []
    notes = [
        f"scanned {', '.join(scanned)}"
        + (
            ""
            if trees.request.moves_scan_tests
            else " (tests not scanned: --moves-scan-tests includes them)"
        )
    ]
    strays = 0
    for move in moves:
        for ref in references:
            if refers_to(ref, move.old) and not allowed(ref, move):
                strays += 1
                home = f" (moved to {move.new})" if move.new else ""
                findings.append(
                    Finding(
                        f"{move.old}{home} is still used outside its adapters: {ref.text}",
                        path=ref.path,
                        line=ref.line,
                        enclosing=ref.enclosing,
                    )
                )
        if move.view:
            proved = _equivalence(trees, move, shown)
            if isinstance(proved, Finding):
                findings.append(proved)
            else:
                notes.append(proved)
    views = sum(1 for m in moves if m.view)
    summary = f"{len(moves)} move(s): {strays} stray reference(s)"
    if views:
        diverged = len(findings) - strays
        summary += f", {views - diverged} of {views} view(s) behave like what they replaced"
    return CheckResult(
        KEY, TITLE, Outcome.FAILED if findings else Outcome.PASSED, summary, findings, notes
    )
