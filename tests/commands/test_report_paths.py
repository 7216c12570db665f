"""Report paths (`--json`, `--junit`, `--markdown`, `--html`) are made ready before a run.

Issue 24 point 8: a report path that could not be created or written was found out
only when the reports were written, after the whole run, as exit 4 ("results
incomplete"). Missing folders are now created before anything runs, and a path that
cannot be created or written is refused then, exit 2, with a fix.
"""

from __future__ import annotations

import pytest
from support.projects import copy_project
from support.verdicts import guardcheck

from guardcheck.commands.reporting import check_paths
from guardcheck.errors import GuardcheckError

TOO_LONG = "x" * 300  # longer than any file name may be (ENAMETOOLONG, even for root)


def test_missing_folders_of_a_report_path_are_created_and_no_file_is_left(tmp_path):
    report = tmp_path / "reports" / "nightly" / "run.json"
    check_paths({"--json": report}, tmp_path)
    assert report.parent.is_dir()
    assert not report.exists()  # the writer makes it after the run


def test_an_existing_report_is_left_as_it_is(tmp_path):
    report = tmp_path / "old.json"
    report.write_text("{}")
    check_paths({"--json": report}, tmp_path / "project")
    assert report.read_text() == "{}"


def test_a_folder_that_cannot_be_created_is_refused_and_no_folder_is_left(tmp_path):
    report = tmp_path / "reports" / TOO_LONG / "run.json"
    with pytest.raises(GuardcheckError) as refused:
        check_paths({"--json": tmp_path / "ok" / "r.json", "--junit": report}, tmp_path)
    message = str(refused.value)
    assert message.startswith(f"--junit {report}: cannot ")
    assert "File name too long" in message
    assert "\n  fix: name a " in message
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # `ok/` and `reports/` removed


def test_a_file_that_cannot_be_written_is_refused(tmp_path):
    report = tmp_path / f"{TOO_LONG}.md"
    with pytest.raises(GuardcheckError) as refused:
        check_paths({"--markdown": report}, tmp_path)
    assert str(refused.value).startswith(f"--markdown {report}: cannot be written:")
    assert "\n  fix: name a file you can write" in str(refused.value)


@pytest.mark.slow
def test_run_writes_reports_into_folders_it_creates(tmp_path):
    root = copy_project(tmp_path / "ladder", "ladder", git=True)
    out = tmp_path / "out" / "today"
    done = guardcheck(root, "run", "-q", "--json", str(out / "r.json"), "--junit", "x/r.xml")
    assert done.returncode == 0, done.stdout + done.stderr
    assert (out / "r.json").stat().st_size > 0
    assert (root / "x" / "r.xml").stat().st_size > 0


@pytest.mark.slow
@pytest.mark.parametrize(
    ("target", "words"),
    [
        ("/proc/guardcheck-no-such-folder/r.html", "cannot create the folder"),  # even as root
        (f"{TOO_LONG}/r.html", "File name too long"),
    ],
)
def test_run_refuses_an_unwritable_report_path_before_anything_runs(tmp_path, target, words):
    """Regression: a folder that could not be made was found out after the whole run, which
    then exited 4 ("results incomplete"); a name too long was an internal error."""
    root = copy_project(tmp_path / "ladder", "ladder", git=True)
    done = guardcheck(root, "run", "-q", "--html", target)
    assert done.returncode == 2, done.stdout + done.stderr
    assert words in done.stderr
    assert "fix:" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (root / ".guardcheck" / "baseline.json").exists()  # nothing ran


@pytest.mark.slow
def test_review_refuses_an_unwritable_report_path_before_anything_runs(tmp_path):
    """Regression: review wrote its reports at the very end, where an OSError was an
    internal error (exit 4) after the whole review had run."""
    root = copy_project(tmp_path / "ladder", "ladder", git=True)
    target = "/proc/guardcheck-no-such-folder/review.json"
    done = guardcheck(root, "review", "--base", "HEAD", "--json", target)
    assert done.returncode == 2, done.stdout + done.stderr
    assert f"--json {target}: cannot create the folder" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (root / ".guardcheck" / "baseline.json").exists()  # nothing ran
