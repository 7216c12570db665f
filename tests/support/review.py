"""The review fixture projects as real git repositories (see tests/fixtures/projects/README.md)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from support.git import git

PROJECTS = Path(__file__).resolve().parents[1] / "fixtures" / "projects"


def copy_tree(source: Path, target: Path) -> None:
    """Copy `source` over `target`; `x.py.txt` becomes `x.py` (kept unlintable as data)."""
    for path in sorted(source.rglob("*")):
        if path.is_dir():
            continue
        relative = path.relative_to(source).as_posix().removesuffix(".txt")
        if relative == "gitignore":
            relative = ".gitignore"
        (target / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, target / relative)


def build_shop(root: Path, *, commit_change: bool) -> Path:
    """review_shop's base committed on `main`; its change on top, committed or left in the tree."""
    return build_change("review_shop", root, commit_change=commit_change)


def build_change(project: str, root: Path, *, commit_change: bool) -> Path:
    """`project`'s base committed on `main`; its change on top, committed or left in the tree."""
    root.mkdir(parents=True)
    copy_tree(PROJECTS / project / "base", root)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    copy_tree(PROJECTS / project / "change", root)
    if commit_change:
        git(root, "add", "-A")
        git(root, "commit", "-q", "-m", "change")
    return root


@dataclass
class Review:
    """What `guardcheck review` (run as a subprocess, as under GitHub Actions) produced."""

    code: int
    out: str
    err: str
    report: dict
    markdown: str

    def ids(self, key: str) -> list[str]:
        return [item["nodeid"] for item in self.report[key]]


def review(
    root: Path, *args: str, summary: Path | None = None, python: str = sys.executable
) -> Review:
    """`guardcheck review ARGS` in `root` with `GITHUB_ACTIONS` set; JSON and Markdown read back."""
    json_path, markdown_path = root.parent / "review.json", root.parent / "review.md"
    done = subprocess.run(
        [
            python,
            "-m",
            "guardcheck",
            "review",
            "--json",
            str(json_path),
            "--markdown",
            str(markdown_path),
            *args,
        ],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
        env={**_env(summary), "GITHUB_ACTIONS": "true"},
    )
    report = json.loads(json_path.read_text()) if json_path.is_file() else {}
    markdown = markdown_path.read_text() if markdown_path.is_file() else ""
    return Review(done.returncode, done.stdout, done.stderr, report, markdown)


def _env(summary: Path | None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_STEP_SUMMARY"}
    return env if summary is None else {**env, "GITHUB_STEP_SUMMARY": str(summary)}


def _unescape_property(value: str) -> str:
    # The runner's order: CR, LF, `:`, `,`, then `%` last.
    for escaped, raw in (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%")):
        value = value.replace(escaped, raw)
    return value


def _unescape_data(value: str) -> str:
    for escaped, raw in (("%0D", "\r"), ("%0A", "\n"), ("%25", "%")):
        value = value.replace(escaped, raw)
    return value


def parse_command(line: str) -> tuple[str, dict[str, str], str]:
    """A workflow command as GitHub's runner reads it: name, properties, message."""
    assert line.startswith("::")
    head, separator, message = line[2:].partition("::")
    assert separator
    name, _, props = head.partition(" ")
    properties = {}
    for pair in props.split(","):
        key, _, value = pair.partition("=")
        properties[key] = _unescape_property(value)
    return name, properties, _unescape_data(message)
