"""action.yml's steps as CI runs them: a real git repository, an event file, a fake API.

The review step is read from action.yml and run with bash, its `env:` filled in from the
inputs as the runner does, so the test covers the wiring (input names, the entry point)
as well as the script.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from support.git import git
from support.github_api import fake_github
from support.review import build_shop

from guardcheck.github import MARKER
from guardcheck.github.action import install_arguments, main

REPO_ROOT = Path(__file__).resolve().parents[2]
REPO, NUMBER = "octo/shop", 12
TOKEN = "ghs_action-token-never-shown"


def action_step(step_id: str) -> dict:
    steps = yaml.safe_load((REPO_ROOT / "action.yml").read_text())["runs"]["steps"]
    return next(s for s in steps if s.get("id") == step_id)


def runner_env(step: dict, inputs: dict[str, str], base: dict[str, str]) -> dict[str, str]:
    """The step's `env:` as the runner evaluates it: `${{ inputs.x }}` from `inputs`."""
    declared = yaml.safe_load((REPO_ROOT / "action.yml").read_text())["inputs"]
    values = {name: inputs.get(name, spec.get("default", "")) for name, spec in declared.items()}
    values["token"] = inputs.get("token", TOKEN)
    found = {}
    for name, expression in step["env"].items():
        match = re.fullmatch(r"\$\{\{ inputs\.([\w-]+) \}\}", expression)
        assert match, f"{name}: {expression} is not an input"
        found[name] = str(values[match[1]])
    return {**base, **found}


@pytest.fixture(scope="module")
def pull_request(tmp_path_factory):
    """review_shop's change as a pull request whose base is the commit before it."""
    where = tmp_path_factory.mktemp("action")
    root = build_shop(where / "shop", commit_change=True)
    event = where / "event.json"
    base = git(root, "rev-parse", "HEAD~1")
    event.write_text(
        json.dumps({"number": NUMBER, "pull_request": {"number": NUMBER, "base": {"sha": base}}})
    )
    return root, event


def run_review_step(root: Path, event: Path, github_url: str, **inputs: str):
    work = root.parent / f"runner-{len(list(root.parent.glob('runner-*')))}"
    work.mkdir()
    base = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_"))},
        # `python` is the job's Python, as after actions/setup-python: this test's.
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "GITHUB_ACTIONS": "true",
        "GITHUB_API_URL": github_url,
        "GITHUB_REPOSITORY": REPO,
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_STEP_SUMMARY": str(work / "summary.md"),
        "GITHUB_OUTPUT": str(work / "output"),
        "RUNNER_TEMP": str(work),
    }
    step = action_step("review")
    done = subprocess.run(
        ["bash", "-e", "-c", step["run"]],
        cwd=root,
        env=runner_env(step, inputs, base),
        capture_output=True,
        text=True,
        check=False,
    )
    return done, work


@pytest.mark.slow
def test_two_runs_of_the_action_leave_one_comment_updated_and_every_output(pull_request):
    root, event = pull_request
    with fake_github() as github:
        first, _ = run_review_step(root, event, github.url)
        second, work = run_review_step(root, event, github.url)
        comments = github.thread(REPO, NUMBER)
    assert (first.returncode, second.returncode) == (1, 1), second.stderr  # survivors gate
    markdown = (work / "guardcheck-review" / "review.md").read_text()
    outputs = dict(line.split("=", 1) for line in (work / "output").read_text().splitlines())
    report = json.loads(Path(outputs["json"]).read_text())
    assert [c["body"] for c in comments] == [f"{MARKER}\n{markdown}"]
    assert len(github.calls("POST")) == 1
    assert len(github.calls("PATCH")) == 1
    assert "review comment updated" in second.stderr
    assert (work / "summary.md").read_text() == markdown
    assert "::warning file=shop/pricing.py,line=12::" in second.stdout
    assert report["survivors"]
    assert TOKEN not in first.stdout + first.stderr + second.stdout + second.stderr


@pytest.mark.slow
def test_a_fork_without_write_permission_still_gets_the_findings_exit_code(pull_request):
    root, event = pull_request
    with fake_github() as github:
        github.refuse_writes = 403
        github.refusal_message = f"Bad credentials: {TOKEN}"  # a server echoing the token
        done, work = run_review_step(root, event, github.url)
    assert done.returncode == 1  # the findings' code: survivors gate, the comment does not
    assert "warning: the review comment was not posted" in done.stderr
    assert "HTTP 403" in done.stderr
    assert "Traceback" not in done.stderr
    assert TOKEN not in done.stdout + done.stderr
    assert (work / "summary.md").is_file()


@pytest.mark.slow
def test_comment_false_posts_nothing(pull_request):
    root, event = pull_request
    with fake_github() as github:
        done, _ = run_review_step(root, event, github.url, comment="false")
    assert (done.returncode, github.requests) == (1, [])


@pytest.mark.slow
def test_a_base_missing_from_a_shallow_clone_is_fetched_from_origin(tmp_path):
    """actions/checkout clones one commit deep: the review's base must be fetched."""
    origin = build_shop(tmp_path / "origin", commit_change=True)
    base = git(origin, "rev-parse", "HEAD~1")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth=1", f"file://{origin}", str(clone))
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 3, "base": {"sha": base}}}))
    with fake_github() as github:
        done, _ = run_review_step(clone, event, github.url, comment="false")
    assert f"fetching {base} from origin" in done.stdout
    assert done.returncode == 1, done.stderr


def test_a_bad_comment_input_is_a_usage_error_with_a_fix(tmp_path, capsys):
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 1, "base": {"sha": "abc"}}}))
    env = {"GITHUB_EVENT_PATH": str(event), "INPUT_COMMENT": "yes"}
    assert main(["review"], env, tmp_path) == 2
    assert "input `comment` is 'yes'\n  fix: use true or false" in capsys.readouterr().err


def test_an_event_without_a_base_asks_for_one(tmp_path, capsys):
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"ref": "refs/heads/new", "before": "0" * 40}))
    assert main(["review"], {"GITHUB_EVENT_PATH": str(event)}, tmp_path) == 2
    assert "fix: give the action `base:`" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("value", "files", "expected"),
    [
        ("auto", ["pyproject.toml"], ["-e", "."]),
        ("auto", [], []),
        ("-e .[test] -r 'dev reqs.txt'", [], ["-e", ".[test]", "-r", "dev reqs.txt"]),
        ("", ["pyproject.toml"], []),
    ],
)
def test_the_install_input_becomes_pip_arguments(tmp_path, value, files, expected):
    for name in files:
        (tmp_path / name).write_text("")
    assert install_arguments(value, tmp_path) == expected
