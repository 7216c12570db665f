"""`--html`: one offline file, the vendored viewer plus the inlined schema report."""

from __future__ import annotations

import json
import re

from support.reports import rich_report
from support.shards import provenance

from guardcheck.model import Where
from guardcheck.reports.html import VIEWER_VERSION, inline_json, to_html, viewer_report


def inlined_report(page: str) -> dict:
    match = re.search(
        r'<script type="application/json" id="guardcheck-report">(.*?)</script>', page, re.S
    )
    assert match is not None
    return json.loads(match.group(1))


def test_the_page_is_self_contained():
    page = to_html(rich_report())
    assert "customElements.define" in page  # the viewer itself is inline
    assert not re.search(r"<script[^>]*\bsrc=", page)
    assert not re.search(r"<link[^>]*\bhref=", page)
    assert f"mutation-testing-elements {VIEWER_VERSION}" in page


def test_script_closing_text_in_the_report_cannot_end_the_inline_script():
    """Regression guard: a test id or source line containing `</script>` must stay data."""
    report = rich_report()
    report.root = "/tmp/</script><script>alert(1)</script>"
    page = to_html(report)
    assert "alert(1)</script>" not in page
    assert inlined_report(page)["projectRoot"] == report.root
    assert json.loads(inline_json({"a": "<!-- & -->"})) == {"a": "<!-- & -->"}


def test_descriptions_carry_what_the_schema_cannot():
    doc = viewer_report(rich_report())
    survivor = next(
        m for f in doc["files"].values() for m in f["mutants"] if m["id"] == "clamp-no-high"
    )
    lines = survivor["description"].splitlines()
    assert lines[0] == "summary of clamp-no-high"
    declared = Where("mutations/calc.toml", 3)
    assert lines[1] == f"Named mutation: clamp-no-high (declared at {declared})"
    assert "guardcheck verdict: survived (fails the gate)" in lines
    assert "Expected killers: tests/test_calc.py::test_clamp[low]" in lines


def test_the_viewer_copy_drops_round_trip_data_but_keeps_the_schema_fields():
    doc = viewer_report(rich_report())
    mutant = next(m for f in doc["files"].values() for m in f["mutants"])
    assert "record" not in mutant["guardcheck"]
    assert "selection" not in mutant["guardcheck"]
    assert {"killedBy", "coveredBy", "replacement", "location", "status"} <= set(mutant)
    assert doc["files"]["pkg/calc.py"]["source"].startswith("def add(a, b):")
    assert doc["testFiles"]


def test_a_shard_says_so_in_the_title():
    report = rich_report()
    report.provenance = provenance(report, shard=(2, 3))
    assert "<title>guardcheck mutation report (shard 2/3)</title>" in to_html(report)
