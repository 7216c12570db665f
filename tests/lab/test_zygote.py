"""The warm interpreter fresh runs fork from (child/zygote.py, lab/execute/processes.Zygote).

Real processes: a zygote started as the lab starts it, forking pytest runs of a
small project in tmp_path. A forked run must look to the project exactly like
`python -m pytest` started in the same folder, end the way it did, die with its
group on a timeout, and leave nothing running behind it.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from support.lab import by_id, mutant
from support.lab import run as lab_run
from support.processes import alive, wait_until
from support.projects import copy_project, write_files

from guardcheck import messages
from guardcheck.child.procs import kill_group
from guardcheck.lab.execute.processes import ForkedRun, Zygote
from guardcheck.lab.execute.session import NO_ZYGOTE
from guardcheck.options import RunOptions

pytestmark = pytest.mark.slow

# What a test can see of the interpreter it runs in, written where WITNESS says.
WITNESS_TEST = """\
import json, os, sys

import pkg


def test_writes_what_it_sees():
    main = sys.modules["__main__"]
    seen = {
        "argv0": os.path.basename(sys.argv[0]),
        "argv_rest": sys.argv[1:],
        "main_spec": getattr(getattr(main, "__spec__", None), "name", None),
        "path": sys.path,
        "cwd": os.getcwd(),
        "flag": os.environ.get("ZYGOTE_TEST_FLAG"),
        "pkg_imported_before_pytest": pkg.IMPORTED_BEFORE_PYTEST,
        "dont_write_bytecode": sys.dont_write_bytecode,
    }
    with open(os.environ["WITNESS"], "w") as out:
        json.dump(seen, out)
"""
PROJECT = {
    "pkg/__init__.py": "import sys\n\nIMPORTED_BEFORE_PYTEST = 'pytest' not in sys.modules\n",
    "tests/test_witness.py": WITNESS_TEST,
    "tests/test_fails.py": "def test_fails():\n    assert 1 == 2\n",
    "tests/test_sleeps.py": "import time\n\n\ndef test_sleeps():\n    time.sleep(60)\n",
    "tests/test_leaves_a_process.py": (
        "import os, subprocess\n\n\ndef test_starts_a_sleeper():\n"
        "    p = subprocess.Popen(['sleep', '300'], start_new_session=True)\n"
        "    with open(os.environ['WITNESS'], 'w') as out:\n        out.write(str(p.pid))\n"
    ),
    "pyproject.toml": '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_files(tmp_path / "project", PROJECT)


@pytest.fixture
def zygote(project: Path, tmp_path: Path):
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    warm = Zygote(RunOptions(root=project), scratch)
    yield warm
    warm.stop()


def environment(witness: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    return {**env, "WITNESS": str(witness), "ZYGOTE_TEST_FLAG": "on"}


def fork(zygote: Zygote, project: Path, tmp_path: Path, *args: str) -> tuple[ForkedRun, Path]:
    witness = tmp_path / "witness.txt"
    run = messages.ForkRun(
        ["-q", "-p", "no:cacheprovider", *args],
        str(project),
        environment(witness),
        str(tmp_path / "run.log"),
        str(tmp_path / "status"),
    )
    forked = zygote.fork(run)
    assert forked is not None, (tmp_path / "scratch" / "zygote.log").read_text()
    return forked, witness


def test_a_forked_run_sees_what_python_m_pytest_would(zygote, tmp_path):
    # Elsewhere than the zygote's own folder, as the lab's scratch working folders are.
    project = write_files(tmp_path / "mirror", PROJECT)
    forked, witness = fork(zygote, project, tmp_path, "tests/test_witness.py")
    assert forked.wait() == 0, (tmp_path / "run.log").read_text()
    from_zygote = json.loads(witness.read_text())
    subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_witness.py"],
        cwd=project,
        env=environment(witness),
        check=True,
        capture_output=True,
    )
    assert from_zygote == json.loads(witness.read_text())
    assert from_zygote["flag"] == "on"
    assert from_zygote["main_spec"] == "pytest.__main__"
    assert str(project) in from_zygote["path"]  # `python -m` put the working directory there


def test_a_failing_run_exits_1_with_pytests_output_in_its_log(zygote, project, tmp_path):
    forked, _ = fork(zygote, project, tmp_path, "tests/test_fails.py")
    assert forked.wait() == 1
    assert "1 failed" in (tmp_path / "run.log").read_text()
    assert (tmp_path / "status").read_text() == "exit 1"


def test_a_timed_out_run_dies_with_its_group_and_reads_as_sigkill(zygote, project, tmp_path):
    forked, _ = fork(zygote, project, tmp_path, "tests/test_sleeps.py")
    assert not select.select([forked.pidfd], [], [], 1.0)[0]  # still sleeping
    assert forked.poll() is None
    kill_group(forked.pid)  # what FreshProcess does when the deadline passes
    assert forked.wait() == -signal.SIGKILL


def test_a_process_the_tests_leave_running_is_killed_when_the_run_ends(zygote, project, tmp_path):
    """As the reaper does for a new interpreter: the supervisor is the subreaper."""
    forked, witness = fork(zygote, project, tmp_path, "tests/test_leaves_a_process.py")
    assert forked.wait() == 0, (tmp_path / "run.log").read_text()
    sleeper = int(witness.read_text())
    assert wait_until(lambda: not alive(sleeper), seconds=5)


def test_a_stopped_zygote_is_not_used_and_its_process_ends(zygote, project, tmp_path):
    zygote.stop()
    assert not alive(zygote.process.pid)
    run = messages.ForkRun([], str(project), {}, str(tmp_path / "log"), str(tmp_path / "s"))
    assert zygote.fork(run) is None


def test_a_zygote_that_died_answers_none_and_says_so_in_its_log(zygote, project, tmp_path):
    os.kill(zygote.process.pid, signal.SIGKILL)
    zygote.process.wait()
    run = messages.ForkRun([], str(project), {}, str(tmp_path / "log"), str(tmp_path / "s"))
    assert zygote.fork(run) is None
    assert "fresh runs start new interpreters" in zygote.log.read_text()


def test_fresh_mutants_get_the_same_verdicts_with_and_without_the_zygote(monkeypatch, tmp_path):
    """The new-interpreter path stays the fallback: it must keep working and agree."""
    root = copy_project(tmp_path / "calc", "calc", git=True)
    mutants = [
        mutant(root, "limit", "LIMIT = 10", "LIMIT = 11"),
        mutant(root, "import-error", "LIMIT = 10", "LIMIT = 1 / 0"),
    ]

    def verdicts() -> dict[str, tuple[str, str, tuple[str, ...]]]:
        report = by_id(lab_run(root, mutants, jobs=2))
        return {
            ident: (r.status.value, r.path.value, tuple(t.nodeid for t in r.outcome.tests))
            for ident, r in report.items()
        }

    warm = verdicts()
    monkeypatch.setenv(NO_ZYGOTE, "1")
    cold = verdicts()
    assert warm == cold
    assert {path for _, path, _ in warm.values()} == {"subprocess"}
