"""Following a test's processes (guardcheck/child/follow.py, bootstrap.py), issue 8 §A5.

Each test runs a small driver in a fresh interpreter: a Follower changes the
environment and installs an audit hook for good, so it must not run inside
this pytest process. The driver starts real processes and prints what the
Follower saw as JSON.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

DRIVER = """
import json, os, subprocess, sys
from pathlib import Path
from guardcheck.child.bootstrap import write_bootstrap
from guardcheck.child.follow import Follower

here = Path(sys.argv[1])
texts = {os.path.realpath(here / "m.py"): "def f():\\n    return 2\\n"}
follower = Follower.for_mutant(here / "follow", write_bootstrap(here / "boot"), texts=texts)
follower.enter()
out = {}
def run(test, command, **kwargs):
    follower.test_starting(test)
    done = subprocess.run(command, cwd=here, capture_output=True, text=True, **kwargs)
    out[test] = done.stdout.strip()
"""


def run_driver(tmp_path: Path, script: str) -> dict:
    """`script` in a fresh interpreter beside a module m.py (`f()` returns 1); its last line."""
    (tmp_path / "m.py").write_text("def f():\n    return 1\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(done.stdout.splitlines()[-1])


def drive(tmp_path: Path, body: str) -> dict:
    """DRIVER + body in a fresh interpreter: its `out`, and what the Follower saw."""
    report = (
        "\nprint(json.dumps({'out': out, 'unfollowed': follower.unfollowed(),"
        " 'evidence': follower.evidence()}))\n"
    )
    return run_driver(tmp_path, DRIVER + textwrap.dedent(body) + report)


def test_a_python_subprocess_imports_the_served_mutant_and_reports_evidence(tmp_path):
    """Issue 8 §A5: a spawned interpreter imported the original module."""
    seen = drive(
        tmp_path,
        """
        run("t::plain", [sys.executable, "-c", "import m; print(m.f())"])
        run("t::shell", f"{sys.executable} -c 'import m; print(m.f())'", shell=True)
        """,
    )
    assert seen["out"] == {"t::plain": "2", "t::shell": "2"}
    assert seen["evidence"] == [f"(in a subprocess) served {os.path.realpath(tmp_path / 'm.py')}"]
    assert seen["unfollowed"] == {}


def test_a_mutants_process_loads_only_the_serving_part_of_guardcheck(tmp_path):
    """Regression (sqlparse 0.5.1): every Python a mutant's test started imported
    guardcheck.messages and guardcheck.model (dataclasses, pathlib, the splices) to read
    its spec, ~45 ms a process on a 57 ms `python -m sqlparse.cli --help`."""
    listing = (
        "import json, sys, m; print(m.f(), "
        "json.dumps(sorted(n for n in sys.modules if n.startswith('guardcheck'))))"
    )
    seen = drive(tmp_path, f"run('t::modules', [sys.executable, '-c', {listing!r}])")
    value, _, loaded = seen["out"]["t::modules"].partition(" ")
    assert value == "2"
    assert json.loads(loaded) == [
        "guardcheck",
        "guardcheck.child",
        "guardcheck.child.followed",
        "guardcheck.child.importhook",
        "guardcheck.child.preloaded",
        "guardcheck.child.sourcereads",
    ]


def test_python_flags_that_skip_site_and_foreign_environments_are_unfollowed(tmp_path):
    """Issue 8 §A5 point 4: where the bootstrap cannot load, say so (never a silent pass)."""
    seen = drive(
        tmp_path,
        """
        run("t::no_site", [sys.executable, "-S", "-c", "import m; print(m.f())"])
        run("t::isolated", [sys.executable, "-I", "-c", "print(0)"])
        run("t::ignore_env", [sys.executable, "-X", "utf8", "-E", "-c", "print(0)"])
        run("t::own_env", [sys.executable, "-c", "print(0)"], env={"PATH": os.environ["PATH"]})
        run("t::not_python", ["true"])
        run("t::git_own_env", ["git", "--version"], env={"PATH": os.environ["PATH"]})
        run("t::shell_own_env", "true", shell=True, env={"PATH": os.environ["PATH"]})
        run("t::argument", [sys.executable, "-c", "print(0)", "-S"])
        run("t::copied_env", [sys.executable, "-c", "import m; print(m.f())"], env=os.environ)
        follower.test_starting("t::posix_spawn")
        os.waitpid(os.posix_spawn(sys.executable, [sys.executable, "-c", "0"], os.environ), 0)
        """,
    )
    assert seen["out"]["t::no_site"] == "1"  # it really ran the original code
    assert seen["out"]["t::copied_env"] == "2"  # an env= that keeps the bootstrap is followed
    unfollowed = seen["unfollowed"]
    # git cannot run the project's Python; a shell can.
    assert set(unfollowed) == {
        "t::no_site",
        "t::isolated",
        "t::ignore_env",
        "t::own_env",
        "t::shell_own_env",
    }
    assert "-S (no site)" in unfollowed["t::no_site"]
    assert "-I (isolated mode)" in unfollowed["t::isolated"]
    assert "-E (PYTHON* variables ignored)" in unfollowed["t::ignore_env"]
    assert "without guardcheck's bootstrap" in unfollowed["t::own_env"]


def test_a_bootstrap_that_cannot_start_is_reported_against_its_test(tmp_path):
    """Issue 8 §A5 point 4: a spec the subprocess cannot read is an unfollowed process."""
    seen = drive(
        tmp_path,
        """
        Path(follower.spec_file).write_text("not json", encoding="utf-8")
        run("t::broken", [sys.executable, "-c", "import m; print(m.f())"])
        """,
    )
    assert seen["out"] == {"t::broken": "1"}
    assert "could not start guardcheck (JSONDecodeError" in seen["unfollowed"]["t::broken"]


def test_the_shadowed_sitecustomize_of_the_project_still_runs(tmp_path):
    """Putting guardcheck's sitecustomize first on PYTHONPATH must not disable the user's."""
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "sitecustomize.py").write_text("import builtins\nbuiltins.THEIRS = 7\n")
    seen = drive(
        tmp_path,
        f"""
        os.environ["PYTHONPATH"] += os.pathsep + {str(theirs)!r}
        run("t::theirs", [sys.executable, "-c", "import m; print(THEIRS, m.f())"])
        """,
    )
    assert seen["out"] == {"t::theirs": "7 2"}


def test_a_test_that_starts_processes_only_against_the_mutant_is_reported(tmp_path):
    """Issue 8 §A5: mutant children of tests that started no process in the baseline
    skip the spec file (StartWatch); a process started anyway must not go unnoticed."""
    script = textwrap.dedent(
        """
        import json, subprocess, sys
        from guardcheck.child.follow import StartWatch
        watch = StartWatch()
        watch.test_starting("t::quiet")
        watch.test_starting("t::new")
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        print(json.dumps(watch.unfollowed()))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=True
    )
    assert json.loads(done.stdout) == {
        "t::new": "started a process, unlike in the baseline, so it was not followed"
    }


BASELINE_DRIVER = """
import json, os, subprocess, sys
from pathlib import Path
from guardcheck.child.bootstrap import write_bootstrap
from guardcheck.child.follow import Follower

here = Path(sys.argv[1])
follower = Follower.for_baseline(here / "follow", write_bootstrap(here / "boot"), [str(here)])
follower.enter()
follower.test_starting("t::normal")
subprocess.run([sys.executable, "-c", "import m; m.f()"], cwd=here, check=True)
follower.test_starting("t::killed")
kill = "import m, os, signal; m.f(); os.kill(os.getpid(), signal.SIGKILL)"
subprocess.run([sys.executable, "-c", kill], cwd=here, check=False)
lines = {os.path.basename(f): l for f, l in follower.coverage() if f.endswith("m.py")}
print(json.dumps({"lines": lines, "unfollowed": follower.unfollowed()}))
"""


def test_baseline_subprocess_lines_go_to_their_test_and_a_lost_process_is_unfollowed(tmp_path):
    """Issue 8 §A5 point 1: lines run in a subprocess belong to the test that started it;
    one killed before it could write its coverage must not pass for one that ran nothing."""
    seen = run_driver(tmp_path, BASELINE_DRIVER)
    assert seen["lines"] == {"m.py": {"1": ["t::normal"], "2": ["t::normal"]}}
    assert list(seen["unfollowed"]) == ["t::killed"]
    assert "ended without writing its coverage" in seen["unfollowed"]["t::killed"]


LOST_SIGTERM = """
import multiprocessing, os, signal, sys, time
from guardcheck.child.followcov import terminate_until_gone

def lose_the_first_sigterm():
    # What a Python SIGTERM handler does when the signal lands just before a blocking
    # wait: nothing, until another signal interrupts the wait.
    seen = []
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0) if seen else seen.append(1))
    parent = os.getppid()
    while os.getppid() == parent:  # a driver killed on its timeout leaves no orphan
        time.sleep(0.05)

worker = multiprocessing.get_context("fork").Process(target=lose_the_first_sigterm)
worker.start()
if sys.argv[1] == "patched":
    terminate_until_gone()  # what the followed process does once it has forked a worker
time.sleep(0.3)
worker.terminate()
worker.join()
print("joined", worker.exitcode)
"""


def test_a_terminated_worker_whose_handler_missed_the_signal_is_signalled_again(tmp_path):
    """Regression (issue 22, a baseline hung in CI): a pool worker's SIGTERM handler
    (coverage written on the way out) is Python code, and a SIGTERM landing just before
    the worker blocks is never acted on; `Pool.terminate()` then joined it forever. The
    join after terminate() now signals again until the worker is gone."""

    def run(mode: str, timeout: float) -> subprocess.CompletedProcess[str] | None:
        try:
            return subprocess.run(
                [sys.executable, "-c", LOST_SIGTERM, mode],
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return None

    patched = run("patched", timeout=10)
    assert patched is not None
    assert patched.stdout.strip() == "joined 0", patched.stderr
    assert run("plain", timeout=4) is None  # without it the join never returns
