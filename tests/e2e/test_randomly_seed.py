"""pytest-randomly: every pytest session of one run shares one `--randomly-seed`.

pytest-randomly (a plugin many projects' CI installs) shuffles the tests and reseeds
`random` before each one from a seed each session draws for itself. guardcheck runs
many sessions; the verdict must be the one a hand run under the seed the report names
gives. Real processes: a venv made here that sees this environment's packages, with
the real pytest-randomly installed into it, and `python -m guardcheck run` in it.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from support.editable import venv_over_this_one
from support.projects import commit, edit, write_files

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        int(pytest.__version__.split(".")[0]) < 8, reason="pytest-randomly 5 needs pytest 8"
    ),
]

RANDOMLY = "pytest-randomly==5.1.0"


@pytest.fixture(scope="module")
def python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv's interpreter with pytest-randomly installed, as a project's CI has it."""
    python = venv_over_this_one(tmp_path_factory.mktemp("randomly") / "venv")
    done = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", RANDOMLY],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return python


def project(root: Path, addopts: str = "") -> Path:
    """One test whose draw from `random` decides whether each mutant is caught: a
    module-level mutant (a fresh interpreter) and one in a function (a forked run)."""
    write_files(
        root,
        {
            "pyproject.toml": (
                '[tool.guardcheck]\ncatalogue = ["mutations"]\ntests = ["tests"]\n\n'
                f'[tool.pytest.ini_options]\ntestpaths = ["tests"]\naddopts = "{addopts}"\n'
            ),
            "pkg/__init__.py": "",
            "pkg/calc.py": "LIMIT = 1.0\n\n\ndef under(x):\n    return x < LIMIT\n",
            "tests/test_draw.py": (
                "import random\n\nfrom pkg import calc\n\n\n"
                "def test_draw():\n    assert calc.under(random.random())\n"
            ),
            "mutations/calc.toml": (
                '[[mutation]]\nid = "half"\nsummary = "A lower limit."\nfile = "pkg/calc.py"\n'
                'find = "LIMIT = 1.0"\nreplace = "LIMIT = 0.5"\n\n'
                '[[mutation]]\nid = "doubled"\nsummary = "Doubles x."\nfile = "pkg/calc.py"\n'
                'scope = "under"\nfind = "x < LIMIT"\nreplace = "x * 2 < LIMIT"\n'
            ),
        },
    )
    return commit(root)


def environment(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env.pop("PYTHONHASHSEED", None)
    return {**env, **extra}


def hand_verdict(python: Path, root: Path, seed: str) -> str:
    """Both mutants catch exactly the draws of 0.5 and over: apply one by hand (the
    module-level one) and run the suite under `--randomly-seed=seed`."""
    edit(root / "pkg/calc.py", "LIMIT = 1.0", "LIMIT = 0.5")
    try:
        done = subprocess.run(
            [
                str(python),
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                f"--randomly-seed={seed}",
            ],
            cwd=root,
            env=environment(),
            capture_output=True,
            text=True,
            check=False,
        )
    finally:
        edit(root / "pkg/calc.py", "LIMIT = 0.5", "LIMIT = 1.0")
    assert done.returncode in (0, 1), done.stdout + done.stderr
    return "survived" if done.returncode == 0 else "caught"


def guardcheck_run(python: Path, root: Path, report: Path, **env: str) -> dict:
    done = subprocess.run(
        [str(python), "-m", "guardcheck", "run", "--json", str(report)],
        cwd=root,
        env=environment(**env),
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert report.exists(), done.stdout + done.stderr
    data = json.loads(report.read_text(encoding="utf-8"))
    data["stderr"] = done.stderr
    return data


def verdicts(data: dict) -> dict[str, tuple[str, str]]:
    """Mutant id -> (verdict, execution path)."""
    return {
        m["guardcheck"]["id"]: (m["guardcheck"]["verdict"], m["guardcheck"]["executionPath"])
        for f in data["files"].values()
        for m in f["mutants"]
    }


def test_every_session_uses_the_reported_seed_so_a_hand_run_under_it_agrees(python, tmp_path):
    """Regression (patchy 2.9.0, `api.py:40:42`): each guardcheck session drew its own
    pytest-randomly seed, so a fresh mutant's tests drew other values than the baseline's
    and no hand run could know the order or draws a verdict came from. Now one seed per
    run (the hash seed's number, or the user's fixed PYTHONHASHSEED), named in the report:
    under a seed whose draw catches the mutants and under one whose draw does not, both
    the forked and the fresh verdict are the hand run's under that seed."""
    root = project(tmp_path / "project")
    by_seed = {seed: hand_verdict(python, root, seed) for seed in map(str, range(1, 13))}
    chosen = {
        next(s for s, v in by_seed.items() if v == "caught"),
        next(s for s, v in by_seed.items() if v == "survived"),
    }
    for seed in sorted(chosen):
        data = guardcheck_run(python, root, tmp_path / f"r{seed}.json", PYTHONHASHSEED=seed)
        assert data["guardcheck"]["randomlySeed"] == seed, data["stderr"]
        expected = by_seed[seed]
        assert verdicts(data) == {
            "half": (expected, "subprocess"),
            "doubled": (expected, "fork"),
        }, data["stderr"]
        assert f"--randomly-seed={seed}" in data["stderr"]  # said once, to reproduce by hand


def test_a_drawn_hash_seed_is_the_randomly_seed_and_a_users_own_seed_stands(python, tmp_path):
    """With no PYTHONHASHSEED of the user's, the run's drawn hash seed is the randomly seed
    too (one figure reproduces both); a `--randomly-seed` in the user's addopts is kept."""
    drawn = guardcheck_run(python, project(tmp_path / "drawn"), tmp_path / "drawn.json")
    assert drawn["guardcheck"]["randomlySeed"] == drawn["guardcheck"]["hashSeed"] != ""
    own = project(tmp_path / "own", addopts="--randomly-seed=4242")
    data = guardcheck_run(python, own, tmp_path / "own.json", PYTHONHASHSEED="7")
    assert data["guardcheck"]["randomlySeed"] == "4242", data["stderr"]
    assert data["guardcheck"]["hashSeed"] == "7"


def test_a_project_that_turns_pytest_randomly_off_runs_without_it(python, tmp_path):
    """`-p no:randomly` in addopts: the plugin's options do not exist, so guardcheck must
    not pass any (pytest would stop on an unknown option); the report names no seed."""
    root = project(tmp_path / "off", addopts="-p no:randomly")
    data = guardcheck_run(python, root, tmp_path / "off.json", PYTHONHASHSEED="3")
    assert data["guardcheck"]["randomlySeed"] == "", data["stderr"]
    # Without the plugin's reseeding the draw is the unseeded one; the run itself is sound.
    assert {v for v, _ in verdicts(data).values()} <= {"caught", "survived"}, data["stderr"]
