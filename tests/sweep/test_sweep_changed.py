"""changed_lines_since: the lines a `--since REV` sweep keeps, from a real git repository."""

from __future__ import annotations

import subprocess

import pytest

from guardcheck.errors import GuardcheckError
from guardcheck.sweep import changed_lines_since, generate

pytestmark = pytest.mark.slow  # runs git


def _git(root, *args):
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
        cwd=root,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def repo(write_tree):
    root = write_tree(
        {
            "pkg/mod.py": "def f(a):\n    x = a + 1\n    y = a - 2\n    return x * y\n",
            "pkg/same.py": "def g(b):\n    return b + 3\n",
            "pkg/gone.py": "def h():\n    return 4\n",
        }
    )
    _git(root, "init", "-q")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "base")
    return root


def test_edited_deleted_and_untracked_lines(repo):
    (repo / "pkg/mod.py").write_text("def f(a):\n    x = a + 10\n    return x * a\n")
    (repo / "pkg/new.py").write_text("def n(c):\n    return c + 5\n")
    (repo / "pkg/gone.py").unlink()
    changed = changed_lines_since(repo, "HEAD", ["pkg"])
    # line 2 rewritten; old line 3 deleted and line 4 rewritten into today's line 3
    assert changed == {"pkg/mod.py": {2, 3}, "pkg/new.py": {1, 2}}


def test_pure_deletion_marks_the_lines_around_it(repo):
    (repo / "pkg/mod.py").write_text("def f(a):\n    x = a + 1\n    return x * y\n")
    assert changed_lines_since(repo, "HEAD", ["pkg/mod.py"]) == {"pkg/mod.py": {2, 3}}


def test_committed_changes_since_an_older_revision_count(repo):
    (repo / "pkg/same.py").write_text("def g(b):\n    return b + 30\n")
    _git(repo, "commit", "-q", "-am", "edit")
    assert changed_lines_since(repo, "HEAD", ["pkg"]) == {}
    assert changed_lines_since(repo, "HEAD~1", ["pkg"]) == {"pkg/same.py": {2}}


def test_a_since_sweep_keeps_only_changed_code(repo):
    (repo / "pkg/mod.py").write_text("def f(a):\n    x = a + 1\n    y = a - 20\n    return x * y\n")
    sweep = generate(repo, ["pkg"], changed_lines=changed_lines_since(repo, "HEAD", ["pkg"]))
    assert sweep.mutants
    assert {(m.changes[0].path, m.span.line) for m in sweep.mutants} == {("pkg/mod.py", 3)}
    assert sweep.skipped["since"] > 0


def test_an_unknown_revision_is_a_clear_error(repo):
    with pytest.raises(GuardcheckError, match="give a revision git knows"):
        changed_lines_since(repo, "no-such-rev", ["pkg"])
