"""One finding of `lint-tests`, and the rule ids a finding (or an allow comment) may name."""

from __future__ import annotations

from dataclasses import dataclass

SOURCE_READING = "source-reading"
NO_ASSERT = "no-assert"
TAUTOLOGY = "tautology"
BROAD_RAISES = "broad-raises"
SKIP_WITHOUT_REASON = "skip-without-reason"
SWALLOWED_ASSERT = "swallowed-assert"
PARSE_ERROR = "parse-error"

# Rule id -> what it finds; the order is the documentation order.
RULES: dict[str, str] = {
    SOURCE_READING: "the test reads code as text (getsource, __file__, .py files), not running it",
    NO_ASSERT: "a test function that asserts nothing, directly or through a helper or fixture",
    TAUTOLOGY: "an assertion that cannot fail (a literal, x is x, x == x on a builtin scalar)",
    SWALLOWED_ASSERT: "an assertion inside try whose except AssertionError throws it away",
    BROAD_RAISES: "pytest.raises(Exception) without match= or a check of what was caught",
    SKIP_WITHOUT_REASON: "a skip or xfail (pytest or unittest) without a reason, or an empty one",
    PARSE_ERROR: "the file is not valid Python, so nothing in it was checked",
}


@dataclass(frozen=True, order=True)
class Finding:
    """A smell at path:line:column (1-based), ordered by where it is."""

    path: str  # relative to the project root when inside it, POSIX separators
    line: int
    column: int
    rule: str
    message: str
    fix: str

    def render(self) -> str:
        return (
            f"{self.path}:{self.line}:{self.column}: {self.rule}: {self.message}\n  fix: {self.fix}"
        )

    def as_json(self) -> dict[str, str | int]:
        return {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "rule": self.rule,
            "message": self.message,
            "fix": self.fix,
        }
