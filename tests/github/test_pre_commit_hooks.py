""".pre-commit-hooks.yaml: each hook's entry, run the way pre-commit runs it, on a project."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from support.review import PROJECTS, copy_tree

REPO_ROOT = Path(__file__).resolve().parents[2]
SHOP = PROJECTS / "review_shop"


def hooks() -> dict[str, dict]:
    listed = yaml.safe_load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text())
    return {hook["id"]: hook for hook in listed}


def run_hook(hook_id: str, root: Path, files: list[str]) -> subprocess.CompletedProcess[str]:
    """The entry in `root` with the files pre-commit would pass (`guardcheck` is this one)."""
    hook = hooks()[hook_id]
    matching = [f for f in files if re.search(hook["files"], f)]
    passed = matching if hook.get("pass_filenames", True) else []
    entry = hook["entry"].split()
    assert entry[0] == "guardcheck"
    return subprocess.run(
        [sys.executable, "-m", "guardcheck", *entry[1:], *passed],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )


def shop(tmp_path: Path, *, changed: bool) -> Path:
    root = tmp_path / "shop"
    copy_tree(SHOP / "base", root)
    if changed:
        copy_tree(SHOP / "change", root)
    # Importing the tests would leave this mark: the check must not run any test.
    (root / "tests" / "conftest.py").write_text(
        "from pathlib import Path\nPath(__file__).with_name('IMPORTED').touch()\n"
    )
    return root


def test_both_hooks_are_declared_for_pre_commit():
    declared = hooks()
    assert sorted(declared) == ["guardcheck-check", "guardcheck-lint-tests"]
    for hook in declared.values():
        assert {"id", "name", "entry", "language"} <= set(hook)
        assert hook["language"] == "python"  # pre-commit installs this repository


@pytest.mark.slow
def test_the_check_hook_passes_a_sound_catalogue_without_running_a_test(tmp_path):
    root = shop(tmp_path, changed=False)
    done = run_hook("guardcheck-check", root, ["shop/pricing.py"])
    assert done.returncode == 0, done.stdout + done.stderr
    assert not (root / "tests" / "IMPORTED").exists()


@pytest.mark.slow
def test_the_check_hook_fails_when_the_change_made_an_entry_stale(tmp_path):
    done = run_hook("guardcheck-check", shop(tmp_path, changed=True), ["shop/pricing.py"])
    assert done.returncode == 2
    assert "label-loses-total" in done.stdout + done.stderr


@pytest.mark.slow
def test_the_lint_hook_lints_only_the_test_files_it_is_given(tmp_path):
    root = shop(tmp_path, changed=True)
    files = ["shop/pricing.py", "tests/test_shipping.py", "README.md"]
    done = run_hook("guardcheck-lint-tests", root, files)
    assert done.returncode == 1  # the change's tests read the source and assert nothing
    assert "tests/test_shipping.py" in done.stdout
    assert "shop/pricing.py" not in done.stdout


@pytest.mark.parametrize(
    ("path", "linted"),
    [
        ("tests/test_cart.py", True),
        ("pkg/tests/cart_test.py", True),
        ("conftest.py", True),
        ("shop/pricing.py", False),
        ("shop/test_data.json", False),
        ("docs/latest_tests.py", False),
    ],
)
def test_the_lint_hook_picks_pytests_test_file_names(path, linted):
    assert bool(re.search(hooks()["guardcheck-lint-tests"]["files"], path)) is linted
