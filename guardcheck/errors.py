"""Problems guardcheck reports to the user instead of a traceback."""

from __future__ import annotations

from dataclasses import dataclass

from guardcheck.exitcodes import ExitCode
from guardcheck.model import Where


@dataclass(frozen=True)
class Problem:
    """One hard error in a catalogue entry (or the catalogue as a whole).

    Rendered as::

        mutations/ladder.toml:12: flat-cooldown: stale: `find` matches nothing in
          target_app/gateway/run.py (scope _hygiene_cooldown_for_failure)
          nearest: run.py:88 min(base * multiplier, CAP)
          fix: update `find` to today's code, or delete the entry if the bug is gone for good
    """

    kind: str  # "stale", "ambiguous", "no-op", "unviable", "scope", "file", "toml", ...
    message: str
    fix: str
    entry_id: str | None = None
    where: Where | None = None  # catalogue file:line
    details: tuple[str, ...] = ()  # extra indented lines (candidates, line numbers)

    def render(self) -> str:
        head = f"{self.where}: " if self.where else ""
        ident = f"{self.entry_id}: " if self.entry_id else ""
        lines = [f"{head}{ident}{self.kind}: {self.message}"]
        lines.extend(f"  {detail}" for detail in self.details)
        lines.append(f"  fix: {self.fix}")
        return "\n".join(lines)


class GuardcheckError(Exception):
    """An error that ends a command with a clear message and a documented exit code."""

    def __init__(self, message: str, code: ExitCode = ExitCode.USAGE) -> None:
        super().__init__(message)
        self.code = code


class CatalogueInvalid(GuardcheckError):
    """One or more entries cannot be trusted; carries every problem found."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        noun = "problem" if len(problems) == 1 else "problems"
        body = "\n".join(p.render() for p in problems)
        super().__init__(f"{body}\n\ncatalogue invalid: {len(problems)} {noun}", ExitCode.USAGE)
