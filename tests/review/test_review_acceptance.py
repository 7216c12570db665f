"""`guardcheck review --base HEAD~1` on a pull-request commit, through the CLI, as CI runs it.

review_textkit's change adds a `max_length` parameter to `normalize`, one weak test far
below the limit and one test just over it (tests/fixtures/projects/README.md).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from markdown_it import MarkdownIt
from support.git import git
from support.review import PROJECTS, Review, build_change, copy_tree, parse_command, review

pytestmark = pytest.mark.slow

CLEAN = "textkit/clean.py"
TESTS = "tests/test_clean.py"
WEAK = f"{TESTS}::test_short_text_is_kept"
BOUNDARY = f"{TESTS}::test_text_over_the_limit_is_refused"
OFF_BY_ONE = "if len(result) >= max_length:"


@pytest.fixture(scope="module")
def textkit(tmp_path_factory: pytest.TempPathFactory) -> Review:
    root = build_change(
        "review_textkit", tmp_path_factory.mktemp("pr") / "textkit", commit_change=True
    )
    return review(root, "--base", "HEAD~1")


def test_acceptance_the_off_by_one_survives_on_its_changed_line(textkit):
    """Regression: one ranked mutant per line missed `>` -> `>=` (issue 24, point 1)."""
    assert textkit.code == 1, textkit.err
    (line,) = [g for g in textkit.report["lines"] if (g["path"], g["line"]) == (CLEAN, 4)]
    assert line["code"] == "if len(result) > max_length:"
    assert [s["mutated"] for s in line["survivors"]] == [OFF_BY_ONE]
    assert {WEAK, BOUNDARY} <= set(line["ran_by"])
    assert OFF_BY_ONE in textkit.markdown
    assert f"::survived: {OFF_BY_ONE}" in textkit.out  # the annotation's message


def test_acceptance_the_weak_test_is_vacuous_and_both_new_tests_pin_the_change(textkit):
    assert textkit.ids("vacuous") == [WEAK]
    assert textkit.ids("unpinned") == []  # both fail at the base: no max_length there


def test_the_kill_matrix_names_each_mutants_killers_and_the_new_tests_that_let_it_pass(textkit):
    rows = {row["mutated"]: row for row in textkit.report["matrix"]}
    off_by_one = rows[OFF_BY_ONE]
    assert (off_by_one["status"], off_by_one["killed_by"]) == ("survived", [])
    assert off_by_one["changed_tests_not_killing"] == [WEAK, BOUNDARY]
    message = rows["raise ValueError(None)"]
    assert (message["status"], message["killed_by"]) == ("caught", [BOUNDARY])
    # The weak test enters `normalize` without reaching the raise: it ran against the
    # mutant (what the raise computed could have been kept) and passed.
    assert message["changed_tests_not_killing"] == [WEAK]


def test_every_operator_mutant_on_the_changed_lines_runs_by_default(textkit):
    assert textkit.report["sample"] is None
    assert textkit.report["mutants"] == len(textkit.report["matrix"]) == 3


def test_max_mutants_runs_a_seeded_sample_and_says_so(tmp_path):
    root = build_change("review_textkit", tmp_path / "textkit", commit_change=True)
    done = review(root, "--base", "HEAD~1", "--max-mutants", "2", "--sample-seed", "5")
    assert done.report["sample"] == {"total": 3, "kept": 2, "seed": 5}
    assert done.report["mutants"] == 2
    assert "sampled 2 of 3 operator mutants" in done.markdown
    again = review(
        root, "--base", "HEAD~1", "--all-mutants", "--max-mutants", "2", "--sample-seed", "5"
    )
    assert again.code == done.code == 1, again.err  # --all-mutants is still accepted
    assert again.report["in_scope"] == done.report["in_scope"]  # the same seed, the same draw


HOSTILE_TEST_FILE = "tests/test_cm,title=PWNED,line=999.py"
HOSTILE_LINE = 'if name == "<script>alert(1)</script>`|`":  # %0A::set-output name=x::y'


def test_hostile_file_names_and_source_text_stay_inside_their_annotation_and_markdown(tmp_path):
    """Regression: `file=` was not escaped, so this test file's name added properties."""
    root = build_change("review_textkit", tmp_path / "textkit", commit_change=True)
    (root / "textkit" / "greet.py").write_text(
        f"def greet(name):\n    {HOSTILE_LINE}\n        return 'hi'\n    return 'hello'\n"
    )
    (root / HOSTILE_TEST_FILE).write_text(
        "from textkit.greet import greet\n\n\ndef test_greets():\n    greet('ada')\n"
    )
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "hostile")
    done = review(root, "--base", "HEAD~1")
    commands = [parse_command(line) for line in done.out.splitlines() if line.startswith("::")]
    places = {(props["file"], props["line"]) for _, props, _ in commands}
    assert (HOSTILE_TEST_FILE, "4") in places  # the vacuous test, at its def
    assert {key for _, props, _ in commands for key in props} == {"file", "line"}
    rendered = MarkdownIt("commonmark").enable("table").render(done.markdown)
    assert "<script>" not in rendered
    assert "&lt;script&gt;alert(1)&lt;/script&gt;`|`" in rendered  # shown, as code


SRC_PYPROJECT = """\
[project]
name = "textkit"
version = "0"

[tool.pytest.ini_options]
testpaths = ["tests"]

[tool.guardcheck]
source = ["src/textkit"]
tests = ["tests"]
"""


def _src_layout(tree: Path) -> None:
    (tree / "src").mkdir(exist_ok=True)
    shutil.move(tree / "textkit", tree / "src" / "textkit")


def editable_install(venv: Path, project_src: Path) -> str:
    """A venv whose site-packages finds guardcheck's own packages and, as an editable
    install's `.pth` does, the project's `src/` in the user's tree."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    where = [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]
    site_packages = Path(
        subprocess.run(where, check=True, capture_output=True, text=True).stdout.strip()
    )
    ours = sysconfig.get_paths()["purelib"]
    (site_packages / "guardcheck_env.pth").write_text(f"import site; site.addsitedir({ours!r})\n")
    (site_packages / "__editable__.textkit-0.pth").write_text(f"{project_src}\n")
    return python


def test_acceptance_on_an_editable_src_project_neither_new_test_is_unpinned(tmp_path):
    """Regression: the base worktree's tests imported today's package (the editable install
    points at the user's tree), so both new tests passed there and were called unpinned."""
    root = tmp_path / "textkit"
    root.mkdir()
    copy_tree(PROJECTS / "review_textkit" / "base", root)
    _src_layout(root)
    (root / "pyproject.toml").write_text(SRC_PYPROJECT)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    staged = tmp_path / "change"
    copy_tree(PROJECTS / "review_textkit" / "change", staged)
    _src_layout(staged)
    copy_tree(staged, root)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "change")
    python = editable_install(tmp_path / "venv", root / "src")
    done = review(root, "--base", "HEAD~1", python=python)
    assert done.code == 1, done.err
    assert done.ids("unpinned") == []
    assert done.ids("vacuous") == [WEAK]
    survivors = {(s["path"], s["mutated"]) for s in done.report["survivors"]}
    assert ("src/textkit/clean.py", OFF_BY_ONE) in survivors
