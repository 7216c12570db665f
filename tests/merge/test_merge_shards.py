"""`guardcheck merge`: shard reports add up to the one run, or the merge refuses (exit 2)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from support.reports import rich_report
from support.shards import provenance, shard_reports

from guardcheck.commands.main import main
from guardcheck.merge import MergeRefused, merge_reports
from guardcheck.model import Gate, Revision, RunReport, Status
from guardcheck.reports.stryker import write_json


def full() -> RunReport:
    report = rich_report()
    report.provenance = provenance(report)
    return report


def named(reports: list[RunReport]) -> list[tuple[str, RunReport]]:
    return [(f"shard{i}.json", r) for i, r in enumerate(reports, start=1)]


def test_merged_shards_give_back_the_full_run_in_its_order():
    whole = full()
    shards = shard_reports(whole, 3)
    assert all(len(s.results) < len(whole.results) for s in shards)  # really split
    merged = merge_reports(named(list(reversed(shards))))
    assert merged.results == whole.results
    assert merged.baseline == whole.baseline
    assert merged.provenance is not None
    assert merged.provenance.merged_from == 3
    assert merged.provenance.shard is None


def test_the_merged_run_takes_the_slowest_shard_as_its_time():
    one, two = shard_reports(full(), 2)
    merged = merge_reports(named([replace(one, wall_seconds=9.0), replace(two, wall_seconds=2.0)]))
    assert merged.wall_seconds == 9.0


def test_the_merged_run_names_a_hash_seed_only_when_every_shard_ran_under_it():
    one, two = shard_reports(full(), 2)
    same = merge_reports(named([replace(one, hash_seed="7"), replace(two, hash_seed="7")]))
    assert same.hash_seed == "7"
    drawn = merge_reports(named([replace(one, hash_seed="7"), replace(two, hash_seed="8")]))
    assert drawn.hash_seed == ""


def test_a_missing_shard_is_refused_naming_it():
    shards = shard_reports(full(), 3)
    with pytest.raises(MergeRefused, match=r"shard\(s\) 2 of 3 missing"):
        merge_reports(named([shards[0], shards[2]]))


def test_a_duplicated_shard_is_refused_naming_both_files():
    one, two = shard_reports(full(), 2)
    with pytest.raises(MergeRefused, match=r"shard 1/2 given 2 times: shard1.json, shard2.json"):
        merge_reports(named([one, one, two]))


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"revision": Revision("f" * 40, dirty=False)}, "git revision"),
        (
            {"revision": Revision("0123456789abcdef0123456789abcdef01234567", dirty=True)},
            "uncommitted changes",
        ),
        ({"version": "0.0.1"}, "guardcheck version"),
        ({"config": {"timeout_factor": 3.0}, "config_hash": "other"}, "configuration: "),
        ({"gate": Gate(allow_caught_elsewhere=True)}, "gate: all caught in"),
    ],
    ids=["revision", "dirty", "version", "config", "gate"],
)
def test_shards_of_different_runs_are_refused_saying_what_differs(change, message):
    one, two = shard_reports(full(), 2)
    assert two.provenance is not None
    two = replace(two, provenance=replace(two.provenance, **change))
    with pytest.raises(MergeRefused, match=message):
        merge_reports(named([one, two]))


def test_a_configuration_difference_names_the_setting():
    one, two = shard_reports(full(), 2)
    assert two.provenance is not None
    config = {**two.provenance.config, "timeout_factor": 3.0}
    two = replace(two, provenance=replace(two.provenance, config=config, config_hash="x"))
    with pytest.raises(MergeRefused, match=r"configuration: timeout_factor differ"):
        merge_reports(named([one, two]))


def test_a_different_shard_count_is_refused():
    one = shard_reports(full(), 2)[0]
    other = shard_reports(full(), 3)[1]
    with pytest.raises(MergeRefused, match=r"shard count: 2 in shard1\.json, 3 in shard2\.json"):
        merge_reports(named([one, other]))


def test_gate_options_must_match_the_recorded_gate():
    shards = named(shard_reports(full(), 2))
    with pytest.raises(MergeRefused, match="not the one the shards ran under"):
        merge_reports(shards, fail_under=50.0)
    merged = merge_reports(shards, allow_caught_elsewhere=False)
    assert merged.provenance is not None
    assert merged.provenance.gate == Gate()


def test_a_report_without_provenance_is_refused():
    bare = rich_report()
    with pytest.raises(MergeRefused, match="records no run provenance"):
        merge_reports([("bare.json", bare)])


def test_an_interrupted_shard_makes_the_merge_interrupted_not_refused():
    one, two = shard_reports(full(), 2)
    cut = replace(two, results=two.results[:1], interrupted=True)
    merged = merge_reports(named([one, cut]))
    assert merged.interrupted
    assert len(merged.results) == len(one.results) + 1


# -- the command ---------------------------------------------------------------------


def write_shards(tmp_path: Path, report: RunReport, count: int) -> list[str]:
    paths = []
    for k, shard in enumerate(shard_reports(report, count), start=1):
        assert shard.provenance is not None
        paths.append(str(write_json(shard, tmp_path / f"{k}.json", gate=shard.provenance.gate)))
    return paths


def test_merge_command_writes_the_reports_and_gates_like_a_run(tmp_path):
    paths = write_shards(tmp_path, full(), 2)
    out = tmp_path / "m.json"
    result = CliRunner().invoke(
        main, ["merge", *paths, "--json", str(out), "--markdown", str(tmp_path / "m.md")]
    )
    assert result.exit_code == 1, result.output  # rich_report has survivors
    assert "merged from 2 shards: 8 mutants" in result.output
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert doc["guardcheck"]["run"]["mergedFrom"] == 2
    assert doc["guardcheck"]["mutants"] == [r.mutant.id for r in full().results]
    assert "guardcheck (merged from 2 shards)" in (tmp_path / "m.md").read_text(encoding="utf-8")


def test_merge_command_passes_when_the_recorded_score_gate_passes(tmp_path):
    report = full()
    assert report.provenance is not None
    report.provenance = replace(report.provenance, gate=Gate(fail_under=40.0))
    # A score gate still fails on an error verdict: judge that mutant caught instead.
    report.results = [
        replace(r, status=Status.CAUGHT) if r.status is Status.ERROR else r for r in report.results
    ]
    result = CliRunner().invoke(main, ["merge", *write_shards(tmp_path, report, 2), "-q"])
    assert result.exit_code == 0, result.output
    assert "gate passed (score 62.5% vs --fail-under 40%)" in result.output


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no such file"),
        ("not json {", "not JSON"),
        ('{"schemaVersion": "2", "files": {}}', "not a guardcheck JSON report"),
    ],
    ids=["missing", "not-json", "foreign"],
)
def test_merge_command_bad_input_is_exit_2_without_a_traceback(tmp_path, content, message):
    path = tmp_path / "r.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    result = CliRunner().invoke(main, ["merge", str(path)])
    assert result.exit_code == 2
    assert message in result.output
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_merge_command_refusal_is_exit_2(tmp_path):
    paths = write_shards(tmp_path, full(), 3)
    result = CliRunner().invoke(main, ["merge", paths[0], paths[2]])
    assert result.exit_code == 2
    assert "shard(s) 2 of 3 missing" in result.output
