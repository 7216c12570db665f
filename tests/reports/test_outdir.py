"""The output folder: git-ignored, written per mutant, cleared of stale results, safe."""

from __future__ import annotations

import json

import pytest
from support.reports import T_ADD, rich_report

from guardcheck.reports.outdir import OutputFolder, OutputFolderUnusable, safe_name

SWEEP_ID = "pkg/calc.py:2:14: replace + with * [x]"


def run(folder: OutputFolder, upto: int | None = None) -> None:
    """The events a lab sends; with `upto`, the run dies after starting mutant `upto`."""
    report = rich_report()
    folder.baseline_started()
    folder.baseline_finished(report.baseline, report.baseline_seconds)
    for index, result in enumerate(report.results):
        folder.mutant_started(result.mutant)
        if upto is not None and index == upto:
            return  # killed mid-mutant: no finish, no summary
        folder.mutant_finished(result, f"log of {result.mutant.id}\n")


def outcomes(path) -> list[dict]:
    return [json.loads(line) for line in (path / "outcomes.jsonl").read_text().splitlines()]


def test_creates_a_git_ignored_folder(tmp_path):
    out = tmp_path / "a" / ".guardcheck"
    OutputFolder(out)
    assert "*" in (out / ".gitignore").read_text().splitlines()
    assert (out / "mutants").is_dir()


def test_complete_run_leaves_diffs_logs_outcomes_and_lists(tmp_path):
    folder = OutputFolder(tmp_path / "out")
    run(folder)
    folder.finish(rich_report())
    out = folder.path
    diff = (out / "mutants" / "add-minus.diff").read_text()
    assert "-    return a + b" in diff
    assert "+    return a - b" in diff
    assert (out / "mutants" / "add-minus.log").read_text() == "log of add-minus\n"
    lines = outcomes(out)
    assert [line["id"] for line in lines] == [r.mutant.id for r in rich_report().results]
    first = lines[0]
    assert first["status"] == "caught"
    assert first["killers"] == [T_ADD]
    assert first["expected_killers"] == [T_ADD]
    assert first["diff"] == "mutants/add-minus.diff"
    assert first["tests"][0]["outcome"] == "failed"
    assert (out / "caught.txt").read_text().split("\n")[:-1] == [
        "add-minus",
        "both-files",
        SWEEP_ID,
    ]
    assert (out / "missed.txt").read_text().split() == [
        "clamp-no-high",
        "limit-eleven",
        "clamp-low-eq",
        "limit-inactive",
    ]
    assert (out / "timeout.txt").read_text().split() == ["clamp-loop"]
    baseline = json.loads((out / "baseline.json").read_text())
    assert baseline["seconds"] == 0.4
    assert len(baseline["tests"]) == 4


def test_interrupted_run_still_leaves_evidence(tmp_path):
    folder = OutputFolder(tmp_path / "out")
    run(folder, upto=3)  # three mutants finished, the fourth started and never finished
    out = folder.path
    assert [line["id"] for line in outcomes(out)] == ["add-minus", "clamp-loop", "clamp-no-high"]
    assert (out / "mutants" / "clamp-no-high.log").exists()
    assert (out / "mutants" / "limit-eleven.diff").exists()  # the one in flight
    assert not (out / "mutants" / "limit-eleven.log").exists()
    assert (out / "caught.txt").read_text() == "add-minus\n"
    assert (out / "missed.txt").read_text() == "clamp-no-high\n"
    assert (out / "timeout.txt").read_text() == "clamp-loop\n"


def test_a_mutant_finished_without_starting_still_gets_its_diff(tmp_path):
    folder = OutputFolder(tmp_path / "out")
    result = rich_report().results[3]  # no-coverage: the lab may never start it
    folder.mutant_finished(result, "")
    assert "+LIMIT = 11" in folder.diff_path(result.mutant).read_text()


def test_a_new_run_clears_stale_results_only(tmp_path):
    out = tmp_path / "out"
    first = OutputFolder(out)
    run(first)
    first.finish(rich_report())
    (out / "report.json").write_text("{}")  # a user's --json target inside the folder
    first.close()  # the run is over: its lock is released
    second = OutputFolder(out)
    assert list((out / "mutants").iterdir()) == []
    for name in ("outcomes.jsonl", "caught.txt", "missed.txt", "timeout.txt", "baseline.json"):
        assert not (out / name).exists()
    assert (out / "report.json").read_text() == "{}"
    run(second, upto=1)
    assert len(outcomes(out)) == 1  # appended to a fresh file, not the old one


def test_a_re_run_moves_unchanged_files_over_and_drops_the_rest(tmp_path):
    """Scale issue: a cached re-run of 1,000 mutants rewrote 2,000 files; an unchanged
    diff or log is now the previous run's file moved over (same inode), a changed log is
    written anew, and files of mutants that are no longer in the run are gone."""
    out = tmp_path / "out"
    first = OutputFolder(out)
    run(first)
    first.finish(rich_report())
    first.close()
    unchanged = out / "mutants" / "add-minus.diff"
    inode = unchanged.stat().st_ino
    (out / "mutants" / "gone.log").write_text("a mutant the catalogue no longer has")
    second = OutputFolder(out)
    report = rich_report()
    second.baseline_finished(report.baseline, report.baseline_seconds)
    for result in report.results:
        second.mutant_started(result.mutant)
        second.mutant_finished(result, f"new log of {result.mutant.id}\n")
    second.finish(report)
    assert unchanged.stat().st_ino == inode
    assert (out / "mutants" / "add-minus.log").read_text() == "new log of add-minus\n"
    assert not (out / "mutants" / "gone.log").exists()
    assert not (out / "mutants.previous").exists()


def test_a_killed_re_run_shows_only_its_own_files_in_mutants(tmp_path):
    """The previous run's files must not pass for this run's evidence when it is killed
    before finish(): they wait in mutants.previous, which the next run replaces."""
    out = tmp_path / "out"
    first = OutputFolder(out)
    run(first)
    first.finish(rich_report())
    first.close()
    second = OutputFolder(out)
    run(second, upto=0)  # killed while its first mutant runs
    second.close()
    assert sorted(p.name for p in (out / "mutants").iterdir()) == ["add-minus.diff"]
    OutputFolder(out)
    assert list((out / "mutants").iterdir()) == []
    # The first run's leftovers are gone; only the killed run's one file waits for reuse.
    assert sorted(p.name for p in (out / "mutants.previous").iterdir()) == ["add-minus.diff"]


def test_refuses_a_foreign_non_empty_folder(tmp_path):
    (tmp_path / "important.txt").write_text("keep me")
    with pytest.raises(OutputFolderUnusable, match="not created by guardcheck"):
        OutputFolder(tmp_path)
    assert (tmp_path / "important.txt").read_text() == "keep me"
    assert not (tmp_path / ".gitignore").exists()


def test_takes_over_an_existing_empty_folder(tmp_path):
    OutputFolder(tmp_path)
    assert (tmp_path / ".gitignore").exists()


def test_safe_names_are_plain_and_distinct():
    assert safe_name("add-minus") == "add-minus"
    sweep = safe_name(SWEEP_ID)
    assert "/" not in sweep
    assert " " not in sweep
    assert sweep != safe_name(SWEEP_ID.replace("*", "-"))
    assert not safe_name("../escape").startswith(".")
    assert len(safe_name("x" * 500)) < 100


def test_sweep_ids_get_files_inside_the_folder(tmp_path):
    folder = OutputFolder(tmp_path / "out")
    run(folder)
    sweep = next(r for r in rich_report().results if r.mutant.id == SWEEP_ID)
    assert folder.log_path(sweep.mutant).parent == folder.path / "mutants"
    assert folder.log_path(sweep.mutant).read_text() == f"log of {SWEEP_ID}\n"


def test_outcomes_write_the_selection_s_test_ids_once(tmp_path):
    """Scale issue: outcomes.jsonl held one selection row per test per mutant (58 MB at
    100 mutants x 5,000 tests). The ordered test ids go to selection-tests.jsonl once; each
    outcome keeps its most common row and the rows that differ, by position."""
    folder = OutputFolder(tmp_path / "out")
    run(folder)
    out = folder.path
    lists = [json.loads(line) for line in (out / "selection-tests.jsonl").read_text().splitlines()]
    tables = {entry["index"]: entry["tests"] for entry in lists}
    assert len(tables) == len(lists)  # each distinct list once
    for line, result in zip(outcomes(out), rich_report().results, strict=True):
        selection = line["selection"]
        nodeids = tables[selection["tests"]]
        rows = [
            (n, selection["default"]["selected"], selection["default"]["reason"]) for n in nodeids
        ]
        for position, selected, reason in selection["except"]:
            rows[position] = (nodeids[position], selected, reason)
        assert rows == [(s.nodeid, s.selected, s.reason) for s in result.selection]
