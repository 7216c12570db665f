"""The steps of this repository's `action.yml`: `python -m guardcheck.github.action STEP`.

    install  pip-install the project under test into the job's Python (input `install`)
    review   `guardcheck review` against the pull request's base: the job summary and the
             annotations (review writes them under GitHub Actions), and review.json and
             review.md, whose paths go to the step outputs `json` and `markdown`
    comment  the sticky pull-request comment from review.md (github/sticky.py)

The comment is a step of its own so that the token is never in the environment of the
project's tests, which run in the review step. Inputs come as INPUT_* environment
variables (action.yml maps them: an expression is never pasted into a shell script).
The review step exits as `guardcheck review` does (0 clean, 1 a gating finding, 2 bad
input, 3 red baseline); bad inputs are exit 2 with a `fix:` line; the comment step
exits 0 with a warning when it cannot post.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

from guardcheck.github.pullrequest import NotAvailable, read_event
from guardcheck.github.sticky import post_review_comment

USAGE = 2
NO_COMMIT = "0" * 40  # a push event's `before` when the branch is new
PROJECT_FILES = ("pyproject.toml", "setup.py", "setup.cfg")


class InputError(Exception):
    """A bad input or event: the message ends with a fix line."""


def main(
    argv: Sequence[str] | None = None,
    environ: Mapping[str, str] | None = None,
    root: Path | None = None,
) -> int:
    """Run one step in `root` (the working folder: the checkout)."""
    args = list(sys.argv[1:] if argv is None else argv)
    env = os.environ if environ is None else environ
    steps = {"install": install, "review": review, "comment": comment}
    if len(args) != 1 or args[0] not in steps:
        print("usage: python -m guardcheck.github.action install|review|comment", file=sys.stderr)
        return USAGE
    try:
        return steps[args[0]](env, root or Path.cwd())
    except InputError as exc:
        print(f"guardcheck action: {exc}", file=sys.stderr)
        return USAGE


def install(env: Mapping[str, str], root: Path) -> int:
    """pip install the project (`install` input: pip arguments; "auto": `-e .` when it is a
    package; empty: installed by an earlier step)."""
    pip_args = install_arguments(env.get("INPUT_INSTALL", "auto"), root)
    if not pip_args:
        print("guardcheck action: nothing to install (input `install`, or no pyproject.toml)")
        return 0
    return _run([sys.executable, "-m", "pip", "install", *pip_args], root)


def install_arguments(value: str, root: Path) -> list[str]:
    if value.strip() != "auto":
        return _split(value, "install")
    return ["-e", "."] if any((root / name).is_file() for name in PROJECT_FILES) else []


def review(env: Mapping[str, str], root: Path) -> int:
    """Run the review; its report paths go to the step outputs `json` and `markdown`.

    The token is not in this step's environment: the project's tests run here, and the
    `comment` step posts the Markdown once they are done.
    """
    event = _event(env)
    _flag(env.get("INPUT_COMMENT", "true"), "comment")  # a typo fails before the run
    extra = _split(env.get("INPUT_ARGS", ""), "args")
    base = _available(root, env.get("INPUT_BASE", "").strip() or default_base(event))
    json_path, markdown_path = _reports(env, root)
    for stale in (json_path, markdown_path):  # an earlier run's: never posted or uploaded
        stale.unlink(missing_ok=True)
    command = [sys.executable, "-m", "guardcheck", "review", "--base", base]
    command += ["--json", str(json_path), "--markdown", str(markdown_path)]
    fail_on = env.get("INPUT_FAIL_ON", "").strip()
    if fail_on:
        command += ["--fail-on", fail_on]
    command += extra
    _set_output(env, "json", str(json_path))
    _set_output(env, "markdown", str(markdown_path))
    return _run(command, root)


def comment(env: Mapping[str, str], root: Path) -> int:
    """Post or update the pull request's comment from the review's Markdown: exit 0 always
    (the review step's exit code is the verdict), a warning when it cannot."""
    if not _flag(env.get("INPUT_COMMENT", "true"), "comment"):
        return 0
    try:
        if not _pull_request(read_event(env.get("GITHUB_EVENT_PATH", ""))):
            print("guardcheck action: not a pull request: no comment")
            return 0
    except NotAvailable:
        pass  # post_review_comment says why
    markdown = Path(env.get("INPUT_MARKDOWN", "") or _reports(env, root)[1])
    if not markdown.is_file():
        print(
            "guardcheck: warning: no review to comment (the review stopped before its report)",
            file=sys.stderr,
        )
        return 0
    outcome = post_review_comment(markdown.read_text(encoding="utf-8"), env)
    print(outcome.message, file=sys.stderr if not outcome.posted else sys.stdout)
    return 0


def _split(value: str, name: str) -> list[str]:
    try:
        return shlex.split(value)
    except ValueError as exc:
        raise InputError(
            f"input `{name}` is {value!r}: {exc}\n  fix: quote it as a shell line would"
        ) from None


def _reports(env: Mapping[str, str], root: Path) -> tuple[Path, Path]:
    """Where review.json and review.md go: $RUNNER_TEMP, outside the checkout."""
    out = Path(env.get("RUNNER_TEMP") or root.parent) / "guardcheck-review"
    out.mkdir(parents=True, exist_ok=True)
    return out / "review.json", out / "review.md"


def default_base(event: Mapping[str, object]) -> str:
    """The pull request's base commit; on a push, the commit before it."""
    pull = event.get("pull_request")
    if isinstance(pull, dict):
        sha = (pull.get("base") or {}).get("sha")
        if isinstance(sha, str) and sha:
            return sha
    before = event.get("before")
    if isinstance(before, str) and before and before != NO_COMMIT:
        return before
    raise InputError(
        "this event names no base to review against (not a pull request, nor a push with "
        "an earlier commit)\n  fix: give the action `base:` (a branch, tag or commit)"
    )


def _event(env: Mapping[str, str]) -> dict:
    try:
        return read_event(env.get("GITHUB_EVENT_PATH", ""))
    except NotAvailable as exc:
        if env.get("INPUT_BASE", "").strip():
            return {}  # a given base needs no event (run outside a pull request)
        raise InputError(f"{exc}\n  fix: run it in a GitHub workflow, or give `base:`") from None


def _pull_request(event: Mapping[str, object]) -> bool:
    return isinstance(event.get("pull_request"), dict)


def _flag(value: str, name: str) -> bool:
    lowered = value.strip().lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    raise InputError(f"input `{name}` is {value!r}\n  fix: use true or false")


def _available(root: Path, base: str) -> str:
    """`base`, fetched from origin when the clone lacks it (actions/checkout's depth 1);
    a branch name fetched is only at FETCH_HEAD, so its commit is returned then."""
    if _git(root, "rev-parse", "--verify", "--quiet", f"{base}^{{commit}}") == 0:
        return base
    print(f"guardcheck action: fetching {base} from origin", flush=True)
    if _git(root, "fetch", "--no-tags", "--quiet", "--depth=1", "origin", base) == 0:
        return _head_of(root, "FETCH_HEAD")
    raise InputError(
        f"the base {base!r} is neither in the clone nor fetchable from origin\n"
        "  fix: check out with `fetch-depth: 0`, or give `base:` a commit of this repository"
    )


def _head_of(root: Path, ref: str) -> str:
    done = subprocess.run(
        ["git", "rev-parse", ref], cwd=root, check=True, capture_output=True, text=True
    )
    return done.stdout.strip()


def _git(root: Path, *args: str) -> int:
    done = subprocess.run(["git", *args], cwd=root, check=False, capture_output=True)
    return done.returncode


def _set_output(env: Mapping[str, str], name: str, value: str) -> None:
    target = env.get("GITHUB_OUTPUT")
    if target:
        with open(target, "a", encoding="utf-8") as out:
            out.write(f"{name}={value}\n")


def _run(command: list[str], root: Path) -> int:
    print(f"guardcheck action: {shlex.join(command)}", flush=True)
    return subprocess.run(command, cwd=root, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
