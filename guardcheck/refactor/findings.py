"""Plain values the checks return and the reports render."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class Outcome(StrEnum):
    PASSED = "passed"
    FAILED = "failed"
    INFO = "info"  # something to read that does not fail the command
    SKIPPED = "skipped"


@dataclass(frozen=True)
class Finding:
    """One thing a check found, at a place in today's tree when it has one."""

    message: str
    path: str | None = None  # posix, relative to the project root
    line: int | None = None
    enclosing: str | None = None  # qualified name of the enclosing function or class
    details: tuple[str, ...] = ()

    @property
    def where(self) -> str:
        if self.path is None:
            return ""
        place = f"{self.path}:{self.line}" if self.line else self.path
        return f"{place} (in {self.enclosing})" if self.enclosing else place

    def as_json(self) -> dict[str, object]:
        return {
            "message": self.message,
            "path": self.path,
            "line": self.line,
            "enclosing": self.enclosing,
            "details": list(self.details),
        }


@dataclass
class CheckResult:
    key: str  # "old-tests", "names", ...
    title: str
    outcome: Outcome
    summary: str
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what was excluded, skipped or assumed

    def as_json(self) -> dict[str, object]:
        return {
            "check": self.key,
            "title": self.title,
            "outcome": str(self.outcome),
            "summary": self.summary,
            "findings": [f.as_json() for f in self.findings],
            "notes": list(self.notes),
        }


@dataclass
class RefactorReport:
    base: str  # as the user wrote it, or how it was found
    base_sha: str
    prefix: str = ""  # the project root inside the repository (GitHub paths start there)
    checks: list[CheckResult] = field(default_factory=list)

    @property
    def failed(self) -> list[CheckResult]:
        return [c for c in self.checks if c.outcome is Outcome.FAILED]

    def check(self, key: str) -> CheckResult | None:
        return next((c for c in self.checks if c.key == key), None)
