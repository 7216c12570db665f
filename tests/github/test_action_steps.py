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
from dataclasses import dataclass
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


def runner_env(
    step: dict, inputs: dict[str, str], outputs: dict[str, str], base: dict[str, str]
) -> dict[str, str]:
    """The step's `env:` as the runner evaluates it: `${{ inputs.x }}` from `inputs` (or
    action.yml's defaults), `${{ steps.review.outputs.x }}` from the review step's."""
    declared = yaml.safe_load((REPO_ROOT / "action.yml").read_text())["inputs"]
    values = {name: inputs.get(name, spec.get("default", "")) for name, spec in declared.items()}
    values["token"] = inputs.get("token", TOKEN)
    found = {}
    for name, expression in step.get("env", {}).items():
        match = re.fullmatch(r"\$\{\{ (inputs|steps\.review\.outputs)\.([\w-]+) \}\}", expression)
        assert match, f"{name}: {expression} is neither an input nor the review's output"
        found[name] = str((values if match[1] == "inputs" else outputs).get(match[2], ""))
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


@dataclass
class Steps:
    review: subprocess.CompletedProcess[str]
    comment: subprocess.CompletedProcess[str] | None
    work: Path  # RUNNER_TEMP, with the summary and the outputs file

    @property
    def printed(self) -> str:
        done = [self.review, *([self.comment] if self.comment else [])]
        return "".join(d.stdout + d.stderr for d in done)


def run_action_steps(root: Path, event: Path, github_url: str, **inputs: str) -> Steps:
    """action.yml's review step, then its comment step when its `if:` holds."""
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
    review = run_step(step, root, runner_env(step, inputs, {}, base))
    outputs = step_outputs(work)
    step = action_step("comment")
    assert step["if"] == "always() && steps.review.outputs.markdown != ''"
    comment = None
    if outputs.get("markdown"):
        comment = run_step(step, root, runner_env(step, inputs, outputs, base))
    return Steps(review, comment, work)


def run_step(step: dict, root: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-e", "-c", step["run"]],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def step_outputs(work: Path) -> dict[str, str]:
    written = work / "output"
    lines = written.read_text().splitlines() if written.is_file() else []
    return dict(line.split("=", 1) for line in lines)


@pytest.mark.slow
def test_two_runs_of_the_action_leave_one_comment_updated_and_every_output(pull_request):
    root, event = pull_request
    with fake_github() as github:
        first = run_action_steps(root, event, github.url)
        second = run_action_steps(root, event, github.url)
        comments = github.thread(REPO, NUMBER)
    assert (first.review.returncode, second.review.returncode) == (1, 1), second.printed
    markdown = Path(step_outputs(second.work)["markdown"]).read_text()
    report = json.loads(Path(step_outputs(second.work)["json"]).read_text())
    assert [c["body"] for c in comments] == [f"{MARKER}\n{markdown}"]
    assert len(github.calls("POST")) == 1
    assert len(github.calls("PATCH")) == 1
    assert "review comment updated" in second.printed
    assert second.comment.returncode == 0
    assert (second.work / "summary.md").read_text() == markdown
    assert "::warning file=shop/pricing.py,line=12::" in second.review.stdout
    assert report["survivors"]
    assert TOKEN not in first.printed + second.printed


def test_the_token_is_given_to_the_comment_step_only():
    """The project's tests run in the review step: they must not see the token."""
    env = {"PATH": "/bin"}
    review = runner_env(action_step("review"), {}, {}, env)
    comment = runner_env(action_step("comment"), {}, {"markdown": "r.md"}, env)
    assert "GITHUB_TOKEN" not in review
    assert comment["GITHUB_TOKEN"] == TOKEN


@pytest.mark.slow
def test_a_fork_without_write_permission_still_gets_the_findings_exit_code(pull_request):
    root, event = pull_request
    with fake_github() as github:
        github.refuse_writes = 403
        github.refusal_message = f"Bad credentials: {TOKEN}"  # a server echoing the token
        steps = run_action_steps(root, event, github.url)
    assert steps.review.returncode == 1  # the findings' code: survivors gate
    assert steps.comment.returncode == 0  # a comment that cannot be posted fails nothing
    assert "warning: the review comment was not posted" in steps.comment.stderr
    assert "HTTP 403" in steps.comment.stderr
    assert "Traceback" not in steps.printed
    assert TOKEN not in steps.printed
    assert (steps.work / "summary.md").is_file()


@pytest.mark.slow
def test_comment_false_posts_nothing(pull_request):
    root, event = pull_request
    with fake_github() as github:
        steps = run_action_steps(root, event, github.url, comment="false")
    assert (steps.review.returncode, steps.comment.returncode, github.requests) == (1, 0, [])


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
        steps = run_action_steps(clone, event, github.url, comment="false")
    assert f"fetching {base} from origin" in steps.review.stdout
    assert steps.review.returncode == 1, steps.printed


def test_a_bad_comment_input_is_a_usage_error_with_a_fix(tmp_path, capsys):
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 1, "base": {"sha": "abc"}}}))
    env = {"GITHUB_EVENT_PATH": str(event), "INPUT_COMMENT": "yes"}
    assert main(["review"], env, tmp_path) == 2
    assert "input `comment` is 'yes'\n  fix: use true or false" in capsys.readouterr().err


def test_unbalanced_quotes_in_args_are_a_usage_error_with_a_fix(tmp_path, capsys):
    env = {"INPUT_BASE": "HEAD", "INPUT_ARGS": "--fail-on 'survived"}
    assert main(["review"], env, tmp_path) == 2
    err = capsys.readouterr().err
    assert 'input `args` is "--fail-on \'survived": No closing quotation' in err


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
