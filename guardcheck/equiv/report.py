"""`equiv` results as text for people and JSON (`version` 1) for machines."""

from __future__ import annotations

from typing import Any

from guardcheck.equiv.compare import Outcome
from guardcheck.equiv.functions import FunctionReport
from guardcheck.equiv.search import TIERS, Disagreement
from guardcheck.equiv.stateful import StatefulResult

JSON_VERSION = 1


def _n(count: int) -> str:
    return f"{count:,}"


def evidence(report: FunctionReport) -> str:
    """'exhaustive: every input' / 'boundary 50,000, hypothesis 150,000' ..."""
    result = report.result
    if result.complete:
        return f"exhaustive: every one of the {_n(result.counts['exhaustive'])} inputs"
    parts = [f"{tier} {_n(result.counts[tier])}" for tier in TIERS if result.counts[tier]]
    shown = ", ".join(parts) or "none"
    if result.counts["boundary"] and report.constants:
        constants = ", ".join(repr(c) for c in report.constants[:12])
        shown += f"; boundary values from the constants {constants}"
    if result.rejected:
        shown += f"; --assume ruled out {_n(result.rejected)}"
    return shown


def _call(name: str, found: Disagreement) -> str:
    """`f(x=1)`, or `called without `sep`: f(x=1)` when defaulted arguments were left out."""
    call = f"{name}({', '.join(f'{k}={v!r}' for k, v in found.kwargs.items())})"
    if not found.omitted:
        return call
    return f"called without {', '.join(f'`{n}`' for n in found.omitted)}: {call}"


def signature_lines(old: str, new: str) -> list[str]:
    """OLD's signature with its real defaults, and NEW's when it differs (in its defaults)."""
    lines = [f"signature {old}"]
    if new and new != old:
        lines.append(f"NEW signature {new}")
    return lines


def function_text(report: FunctionReport) -> str:
    result = report.result
    name = report.old.split(":", 1)[1].split("@", 1)[0]
    lines = [f"OLD {report.old}", f"NEW {report.new}"]
    lines += signature_lines(report.signature, report.new_signature)
    if not result.disagreements:
        lines.append(f"no disagreement in {_n(result.total)} inputs ({evidence(report)})")
        return "\n".join(lines)
    count = len(result.disagreements)
    noun = "disagreement" if count == 1 else "disagreements"
    lines.append(f"{count} {noun} in {_n(result.total)} inputs ({evidence(report)}):")
    for index, found in enumerate(result.disagreements, 1):
        how = "shrunk by Hypothesis" if found.shrunk else "not shrunk"
        lines += [
            f"  [{index}] found by {found.tier}, {how}:",
            f"      {_call(name, found)}",
            f"      OLD {found.old.shown}",
            f"      NEW {found.new.shown}",
        ]
    return "\n".join(lines)


def _built_lines(built: FunctionReport) -> list[str]:
    """The factories' signatures; when their fresh objects differ, how, as a function's would."""
    lines = []
    if built.signature != "()" or built.new_signature not in ("", "()"):
        lines = [f"factory {built.signature}"]
        if built.new_signature and built.new_signature != built.signature:
            lines.append(f"NEW factory {built.new_signature}")
    result = built.result
    if not result.disagreements:
        return lines
    found = result.disagreements[0]
    lines += [
        f"diverged when built, before any call ({_n(result.total)} builds: {evidence(built)}):",
        f"  {_call('x = factory', found)}",
        f"  OLD state {found.old.shown}",
        f"  NEW state {found.new.shown}",
    ]
    return lines


def stateful_text(old: str, new: str, result: StatefulResult) -> str:
    lines = [f"OLD {old}", f"NEW {new}"]
    if result.built is not None:
        lines += _built_lines(result.built)
        if result.built.result.disagreements:
            return "\n".join(lines)
    lines += [f"methods {', '.join(result.methods)}", *(f"note: {n}" for n in result.notes)]
    done = f"{_n(result.sequences)} call sequences ({_n(result.steps)} steps, hypothesis)"
    divergence = result.divergence
    if divergence is None:
        lines.append(f"no divergence in {done}")
        return "\n".join(lines)
    lines.append(f"diverged at step {len(divergence.steps)} (shortest sequence found in {done}):")
    lines.append("  x = factory()")
    lines += [f"  {step.code()}" for step in divergence.steps]
    what = " list(x.items()) after it" if divergence.what == "state after" else ""
    lines += [f"  OLD{what} {divergence.old.shown}", f"  NEW{what} {divergence.new.shown}"]
    return "\n".join(lines)


def _outcome(outcome: Outcome) -> dict[str, Any]:
    if outcome.raised:
        exc = outcome.value
        return {"raised": outcome.key, "message": str(exc)}
    return {"returned": repr(outcome.value)}


def _disagreement(found: Disagreement) -> dict[str, Any]:
    return {
        "tier": found.tier,
        "shrunk": found.shrunk,
        "input": {k: repr(v) for k, v in found.kwargs.items()},
        "omitted": list(found.omitted),
        "old": _outcome(found.old),
        "new": _outcome(found.new),
    }


def function_json(report: FunctionReport) -> dict[str, Any]:
    result = report.result
    return {
        "version": JSON_VERSION,
        "mode": "function",
        "old": report.old,
        "new": report.new,
        "signature": report.signature,
        "new_signature": report.new_signature or report.signature,
        "equal": not result.disagreements,
        "inputs": result.total,
        "tiers": {tier: result.counts[tier] for tier in TIERS},
        "complete": result.complete,
        "rejected_by_assume": result.rejected,
        "boundary_constants": [repr(c) for c in report.constants],
        "disagreements": [_disagreement(d) for d in result.disagreements],
    }


def _built_json(built: FunctionReport | None) -> dict[str, Any] | None:
    if built is None:
        return None
    return {
        "signature": built.signature,
        "new_signature": built.new_signature or built.signature,
        "builds": built.result.total,
        "tiers": {tier: built.result.counts[tier] for tier in TIERS},
        "disagreements": [_disagreement(d) for d in built.result.disagreements],
    }


def stateful_json(old: str, new: str, result: StatefulResult) -> dict[str, Any]:
    divergence = result.divergence
    return {
        "version": JSON_VERSION,
        "mode": "stateful",
        "old": old,
        "new": new,
        "equal": result.equal,
        "built": _built_json(result.built),
        "notes": result.notes,
        "methods": result.methods,
        "sequences": result.sequences,
        "steps": result.steps,
        "divergence": None
        if divergence is None
        else {
            "steps": [step.code() for step in divergence.steps],
            "compared": divergence.what,
            "old": _outcome(divergence.old),
            "new": _outcome(divergence.new),
        },
    }
