"""Copy the lint fixture files (data, see tests/fixtures/lint/README.md) into a scratch tree,
and read back which lines they mark with `# expect: RULE`."""

from __future__ import annotations

from pathlib import Path

from guardcheck.lint import LintReport

FIXTURES = Path(__file__).parent.parent / "fixtures" / "lint"
EXPECT = "# expect:"

Marked = set[tuple[str, int, str]]  # (path relative to the tree, line, rule)


def write_tree(root: Path, files: dict[str, str]) -> Path:
    """`files` maps a path in the tree to a fixture file name; returns the root."""
    for relative, fixture in files.items():
        target = root / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text((FIXTURES / fixture).read_text(encoding="utf-8"), encoding="utf-8")
    return root


def marked(root: Path) -> Marked:
    """Every (file, line, rule) the tree's files mark as expected findings."""
    expected: Marked = set()
    for path in root.rglob("*.py"):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if EXPECT in line:
                name = path.relative_to(root).as_posix()
                rules = line.split(EXPECT, 1)[1].split(",")
                expected.update((name, number, rule.strip()) for rule in rules)
    return expected


def found(report: LintReport) -> Marked:
    return {(f.path, f.line, f.rule) for f in report.findings}
