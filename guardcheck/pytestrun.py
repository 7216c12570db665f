"""A plain `python -m pytest` in a subprocess, outside the lab.

Shared by the catalogue's `--collect-only` run, review's pinning and audit runs and
refactor's base tests. Each is the interpreter running guardcheck, in a folder it is
given, leaving that folder as it was: no `.pytest_cache` (`-p no:cacheprovider`) and no
`.pyc` files (`PYTHONDONTWRITEBYTECODE`). Results come back as pytest's output, or as
JUnit XML in the xunit1 family, which records each case's file and line.
"""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

TAIL_LINES = 15  # how much of pytest's output a failure shows


def command(args: Sequence[str]) -> list[str]:
    """`python -m pytest ARGS` that writes no cache into the folder it runs in."""
    return [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args]


def junit_args(xml_path: Path) -> tuple[str, ...]:
    """pytest's arguments to write its results to `xml_path` (xunit1: file and line)."""
    return ("-o", "junit_family=xunit1", f"--junitxml={xml_path}")


@dataclass(frozen=True)
class Finished:
    returncode: int
    stdout: str
    stderr: str  # empty when the streams were merged into stdout

    @property
    def tail(self) -> str:
        """The end of what pytest printed."""
        return "\n".join(tail_lines(self.stdout + self.stderr))


def tail_lines(output: str) -> list[str]:
    return output.strip().splitlines()[-TAIL_LINES:]


def start(
    root: Path,
    args: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    merge_output: bool = False,
) -> subprocess.Popen[str]:
    """pytest started in `root` (`env` added to this process's environment); with
    `merge_output`, its stderr goes into stdout in the order it was written."""
    return subprocess.Popen(
        command(args),
        cwd=root,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1", **(env or {})},
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT if merge_output else subprocess.PIPE,
    )


def finish(process: subprocess.Popen[str], timeout: float) -> Finished:
    """Wait for a started pytest; on `timeout` it is killed and `TimeoutExpired` raised."""
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.communicate()
        raise
    return Finished(process.returncode, stdout or "", stderr or "")


def run(
    root: Path,
    args: Sequence[str],
    *,
    timeout: float,
    env: Mapping[str, str] | None = None,
) -> Finished:
    """pytest in `root`, waited for (see `finish`)."""
    return finish(start(root, args, env=env), timeout)


def junit_cases(xml_path: Path) -> Iterator[ET.Element]:
    """Each `testcase` of a JUnit XML file pytest wrote."""
    return ET.parse(xml_path).getroot().iter("testcase")


def junit_nodeid(case: ET.Element) -> str:
    """A testcase's pytest node id, from the file, class and name xunit1 records; a
    collection error (no class) is its module's path."""
    file = case.get("file") or ""
    classname, name = case.get("classname") or "", case.get("name") or ""
    if not classname:  # a collection error: pytest names the module in `name`
        return file or name.replace(".", "/") + ".py"
    module = file[:-3].replace("/", ".") if file.endswith(".py") else file
    classes = classname[len(module) :].lstrip(".") if classname.startswith(module) else ""
    return "::".join(part for part in (file, *classes.split("."), name) if part)
