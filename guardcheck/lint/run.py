"""`lint_paths`: find the test files, run every rule on each, drop allowed findings, sort."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from guardcheck.lint import no_assert, raises, skips, source_reading, swallowed, tautology
from guardcheck.lint.finder import find_test_files
from guardcheck.lint.finding import Finding
from guardcheck.lint.parsed import ParseCache, TestFile
from guardcheck.lint.report import LintReport
from guardcheck.lint.suppress import allowed_by_line

# Rules that need only the file itself; no-assert also follows helpers elsewhere.
FILE_RULES = (
    source_reading.check,
    tautology.check,
    swallowed.check,
    raises.check,
    skips.check,
)


def lint_paths(paths: Sequence[Path], root: Path) -> LintReport:
    """Check every test file under `paths` (test_*.py, *_test.py, conftest.py).

    Raises GuardcheckError for a path that does not exist. A file that does not
    parse is one `parse-error` finding; the other files are still checked.
    """
    files = find_test_files(paths)
    cache = ParseCache(root)
    search = no_assert.AssertionSearch(cache)
    findings: list[Finding] = []
    for path in files:
        parsed = cache.get(path)
        if isinstance(parsed, Finding):
            findings.append(parsed)
        else:
            findings.extend(_file_findings(parsed, search))
    return LintReport(findings=tuple(sorted(set(findings))), files=len(files))


def _file_findings(file: TestFile, search: no_assert.AssertionSearch) -> list[Finding]:
    found = [f for rule in FILE_RULES for f in rule(file)]
    found.extend(no_assert.check(file, search))
    allowed = allowed_by_line(file)
    # One finding per rule and line: `ast.parse(inspect.getsource(f))` is one smell,
    # and an allow comment works per line anyway. The leftmost (outermost) one stays.
    kept: dict[tuple[int, str], Finding] = {}
    for finding in sorted(found):
        if finding.rule not in allowed.get(finding.line, ()):
            kept.setdefault((finding.line, finding.rule), finding)
    return list(kept.values())
