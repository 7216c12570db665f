"""The result of one `lint-tests` run: its findings, its stable JSON and its exit code."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from guardcheck.exitcodes import ExitCode
from guardcheck.lint.finding import Finding

JSON_VERSION = 1  # bump when a key changes meaning or disappears; adding keys is compatible


@dataclass(frozen=True)
class LintReport:
    findings: tuple[Finding, ...]  # sorted by path, line, column, rule
    files: int  # test files checked, including those that did not parse

    @property
    def exit_code(self) -> ExitCode:
        # A finding fails the check the way a surviving mutant fails the gate.
        return ExitCode.GATE_FAILED if self.findings else ExitCode.OK

    def as_json(self) -> dict[str, Any]:
        return {
            "version": JSON_VERSION,
            "findings": [finding.as_json() for finding in self.findings],
            "files": self.files,
        }

    def summary(self) -> str:
        if not self.findings:
            return f"no findings in {self.files} file(s)"
        return f"{len(self.findings)} finding(s) in {self.files} file(s)"

    def render(self) -> str:
        """The human form: each finding with its fix line, then the summary line."""
        return "\n".join([*(finding.render() for finding in self.findings), self.summary()])
