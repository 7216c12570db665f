"""Precision of `guardcheck lint-tests` on the full test suites of real libraries (not a test).

Fetches pinned sdists at run time into bench/work/lint_precision/ (never committed),
runs `guardcheck lint-tests --json` on each library's whole test suite, and joins
every finding with the hand judgments in bench/results/lint_precision_judgments.toml.
With --sample N, a library with more than N findings is judged on a random sample of
N, drawn with random.Random("SEED:LIBRARY") (--seed, default 23).

Writes bench/work/lint_precision/findings.md: every sampled finding with the code
around it and its judgment, to judge new findings. With --write-results it also
writes bench/results/lint_precision.md (the table and every judgment). Exits 1 when
a sampled finding has no judgment (judge it, then run again).

    .venv/bin/python bench/lint_precision.py [--sample 30] [--seed 23] [--write-results]
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tarfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
WORK = REPO / "bench" / "work" / "lint_precision"
JUDGMENTS = REPO / "bench" / "results" / "lint_precision_judgments.toml"
RESULTS = REPO / "bench" / "results" / "lint_precision.md"
COMMAND = ".venv/bin/python bench/lint_precision.py --write-results"
PIP_DOWNLOAD = (
    sys.executable,
    "-m",
    "pip",
    "download",
    "--quiet",
    "--no-deps",
    "--no-binary",
    ":all:",
)
CONTEXT_LINES = 12  # of code shown above and below a finding in findings.md


@dataclass(frozen=True)
class Library:
    name: str  # as pip knows it
    version: str
    tests: tuple[str, ...]  # the whole suite, relative to the unpacked sdist
    held_out: bool = False  # first linted after the rules were frozen: nothing tuned on it


LIBRARIES = (
    Library("attrs", "25.3.0", ("tests",)),
    Library("click", "8.1.8", ("tests",)),
    Library("toolz", "1.0.0", ("toolz/tests",)),
    Library("python-dateutil", "2.9.0.post0", ("tests",)),
    Library("jinja2", "3.1.6", ("tests",)),
    Library("boltons", "25.0.0", ("tests",)),
    Library("more-itertools", "10.7.0", ("tests",)),
    Library("pyparsing", "3.2.3", ("tests",)),
    Library("marshmallow", "4.0.0", ("tests",)),
    Library("werkzeug", "3.1.3", ("tests",)),
    Library("cachetools", "6.1.0", ("tests",)),
    Library("packaging", "25.0", ("tests",), held_out=True),
    Library("tomlkit", "0.13.3", ("tests",), held_out=True),
    Library("itsdangerous", "2.2.0", ("tests",), held_out=True),
    Library("pluggy", "1.6.0", ("testing",), held_out=True),
)


@dataclass(frozen=True)
class Finding:
    library: str
    path: str
    line: int
    rule: str
    message: str

    @property
    def key(self) -> tuple[str, str, int, str]:
        return (self.library, self.path, self.line, self.rule)


def fetch(library: Library) -> Path:
    """The unpacked sdist's folder, downloaded and unpacked once."""
    sdists = WORK / "sdists"
    spec = f"{library.name}=={library.version}"
    found = _sdist(sdists, library)
    if found is None:
        subprocess.run(
            [*PIP_DOWNLOAD, spec, "-d", str(sdists)],
            check=True,
        )
        found = _sdist(sdists, library)
    if found is None:
        sys.exit(f"pip download {spec} left no sdist in {sdists}")
    unpacked = WORK / "src"
    with tarfile.open(found) as archive:
        top = archive.getnames()[0].split("/")[0]
        if not (unpacked / top).is_dir():
            archive.extractall(unpacked, filter="data")
    return unpacked / top


def _sdist(folder: Path, library: Library) -> Path | None:
    # sdist names normalise the project name differently across tools and years.
    names = {library.name, library.name.replace("-", "_"), library.name.lower()}
    for name in names:
        candidate = folder / f"{name}-{library.version}.tar.gz"
        if candidate.is_file():
            return candidate
    return None


def lint(library: Library, root: Path) -> list[Finding]:
    done = subprocess.run(
        [
            *(sys.executable, "-m", "guardcheck", "--root", str(root), "lint-tests", "--json"),
            *(str(root / path) for path in library.tests),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode not in (0, 1):
        sys.exit(f"lint-tests on {library.name} exited {done.returncode}:\n{done.stderr}")
    return [
        Finding(library.name, f["path"], f["line"], f["rule"], f["message"])
        for f in json.loads(done.stdout)["findings"]
    ]


def sample(findings: list[Finding], size: int, seed: int, library: str) -> list[Finding]:
    if not size or len(findings) <= size:
        return findings
    return sorted(random.Random(f"{seed}:{library}").sample(findings, size), key=_order)


def _order(finding: Finding) -> tuple[str, int, str]:
    return (finding.path, finding.line, finding.rule)


def load_judgments() -> Judgments:
    data = tomllib.loads(JUDGMENTS.read_text(encoding="utf-8"))
    return {(j["library"], j["path"], j["line"], j["rule"]): j for j in data["judgment"]}


Judgments = dict[tuple[str, str, int, str], dict[str, str]]


@dataclass
class Row:
    name: str
    version: str
    findings: int
    judged: int = 0
    true: int = 0
    false: int = 0
    does_not_raise: int = 0  # true no-assert findings on tests meant to check only that

    def count(self, judgment: dict[str, str] | None) -> None:
        verdict = (judgment or {}).get("verdict")
        if verdict not in ("true", "false"):
            return
        self.judged += 1
        self.true += verdict == "true"
        self.false += verdict == "false"
        self.does_not_raise += (judgment or {}).get("kind") == "does-not-raise"

    def add(self, other: Row) -> None:
        self.findings += other.findings
        self.judged += other.judged
        self.true += other.true
        self.false += other.false
        self.does_not_raise += other.does_not_raise

    def cells(self) -> str:
        return (
            f"| {self.name} | {self.version} | {self.findings} | {self.judged} | {self.true} "
            f"| {self.false} | {_percent(self.true, self.judged)} | {self.does_not_raise} "
            f"| {_percent(self.true - self.does_not_raise, self.judged)} |"
        )


def _percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "n/a"


def context(root: Path, finding: Finding) -> str:
    lines = (root / finding.path).read_text(encoding="utf-8").splitlines()
    start = max(finding.line - CONTEXT_LINES, 1)
    shown = lines[start - 1 : finding.line + CONTEXT_LINES]
    return "\n".join(
        f"{'>' if start + i == finding.line else ' '}{start + i:5} {text}"
        for i, text in enumerate(shown)
    )


def table(rows: list[Row]) -> str:
    total = Row("**all**", "", 0)
    for row in rows:
        total.add(row)
    return "\n".join(
        [
            "| library | version | findings | judged | true | false | precision "
            "| of the true: does-not-raise tests | precision if those count as false |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|",
            *(row.cells() for row in rows),
            total.cells(),
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--sample", type=int, default=0, help="findings judged per library (0: every one)"
    )
    parser.add_argument("--seed", type=int, default=23)
    parser.add_argument("--write-results", action="store_true", help=f"write {RESULTS.name}")
    args = parser.parse_args()
    judgments = load_judgments()
    rows: list[Row] = []
    sampled: list[tuple[Finding, Path]] = []
    for library in LIBRARIES:
        root = fetch(library)
        findings = lint(library, root)
        shown = f"{library.name} (held out)" if library.held_out else library.name
        row = Row(shown, library.version, len(findings))
        for finding in sample(findings, args.sample, args.seed, library.name):
            sampled.append((finding, root))
            row.count(judgments.get(finding.key))
        rows.append(row)
    seen = {finding.key for finding, _ in sampled}
    stale = sorted(key for key in judgments if key not in seen)
    unjudged = [f for f, _ in sampled if f.key not in judgments]
    write_findings(sampled, judgments)
    print(table(rows))
    for key in stale:
        print(f"stale judgment (no such finding in the sample now): {key}")
    for finding in unjudged:
        print(f"unjudged: {finding.library} {finding.path}:{finding.line} {finding.rule}")
    print(f"findings with code: {(WORK / 'findings.md').relative_to(REPO)}")
    if args.write_results:
        RESULTS.write_text(results(rows, sampled, judgments, args), encoding="utf-8")
    if unjudged:
        sys.exit(1)


def write_findings(sampled: list[tuple[Finding, Path]], judgments: Judgments) -> None:
    parts = ["# lint-tests findings to judge\n"]
    for finding, root in sampled:
        judged = judgments.get(finding.key)
        verdict = f"{judged['verdict']}: {judged['why']}" if judged else "UNJUDGED"
        parts.append(
            f"## {finding.library} {finding.path}:{finding.line} {finding.rule}\n\n"
            f"{finding.message}\n\njudgment: {verdict}\n\n```\n{context(root, finding)}\n```\n"
        )
    WORK.mkdir(parents=True, exist_ok=True)
    (WORK / "findings.md").write_text("\n".join(parts), encoding="utf-8")


def results(
    rows: list[Row],
    sampled: list[tuple[Finding, Path]],
    judgments: Judgments,
    args: argparse.Namespace,
) -> str:
    if args.sample:
        drawn = (
            f"a library with more than {args.sample} findings is judged on {args.sample} "
            f'drawn with `random.Random("{args.seed}:<library>")`'
        )
    else:
        drawn = "every finding of every library is judged"
    lines = [
        "# `guardcheck lint-tests` precision on real test suites",
        "",
        f"Reproduce: `{COMMAND}` (fetches the pinned sdists into bench/work/ and lints each",
        f"whole suite; {drawn}). The rubric, the false positives the judging found (each",
        'fixed since), and what the last two columns mean: docs/lint-tests.md, "Precision on',
        'real suites". "Held out": linted only after the rules were frozen. The judgments',
        "with their reasons: bench/results/lint_precision_judgments.toml.",
        "",
        table(rows),
        "",
        "## Every judged finding",
        "",
        "| library | finding | rule | verdict | why |",
        "|---|---|---|---|---|",
    ]
    for finding, _ in sampled:
        judged = judgments.get(finding.key, {"verdict": "unjudged", "why": ""})
        lines.append(
            f"| {finding.library} | {finding.path}:{finding.line} | {finding.rule} "
            f"| {judged['verdict']} | {judged['why']} |"
        )
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
