"""`--html`: one self-contained file, the viewer Stryker's users know, working offline.

The page is Stryker's own viewer (`mutation-testing-elements`, vendored in
`reports/vendor/`, see its README) with the schema report inlined: per-file source
with the mutated spans marked, each mutant's replacement, verdict and killing
tests, the test view's kill matrix and the verdict filters all come from the viewer
given a correct report (`reports/stryker.py`). What the schema has no field for
(the named mutation, its summary, the expected killers, the gate verdict) goes
into each mutant's `description`, which the viewer shows in the mutant's drawer.

Nothing is fetched: the script and the report are inline, and the viewer itself
loads no fonts or images from elsewhere (checked by the browser test).
"""

from __future__ import annotations

import html
import json
from importlib import resources
from pathlib import Path
from typing import Any

from guardcheck.model import RunReport
from guardcheck.reports import Gate, run_label
from guardcheck.reports.stryker import to_stryker

VIEWER_VERSION = "3.9.0"  # npm mutation-testing-elements; see reports/vendor/README.md
VIEWER = "mutation-test-elements.js"
# Fields the viewer never reads; dropped from the inlined copy to keep it small.
_NOT_FOR_THE_VIEWER = ("record", "selection", "tests", "diff")  # per mutant
_RUN_FIELDS_NOT_FOR_THE_VIEWER = ("selectionTests", "baseline")  # top-level `guardcheck`


def viewer_script() -> str:
    return (resources.files("guardcheck") / "reports" / "vendor" / VIEWER).read_text("utf-8")


def describe(fields: dict[str, Any]) -> str:
    """The mutant drawer's text: what the schema cannot say about a named mutation."""
    lines = [fields["summary"], f"Named mutation: {fields['id']}"]
    if fields.get("declaredAt"):
        lines[-1] += f" (declared at {fields['declaredAt']})"
    lines.append(
        f"guardcheck verdict: {fields['verdict']}"
        + ("" if fields["passesGate"] else " (fails the gate)")
    )
    killers = fields.get("expectedKillers") or []
    lines.append(
        "Expected killers: " + (", ".join(killers) if killers else "none named (any test may)")
    )
    if fields.get("tags"):
        lines.append("Tags: " + ", ".join(fields["tags"]))
    return "\n".join(lines)


def viewer_report(report: RunReport, gate: Gate | None = None) -> dict[str, Any]:
    """The schema report as the page inlines it: richer descriptions, no round-trip data."""
    doc = to_stryker(report, gate=gate)
    for entry in doc["files"].values():
        for mutant in entry["mutants"]:
            fields = mutant["guardcheck"]
            mutant["description"] = describe(fields)
            for key in _NOT_FOR_THE_VIEWER:
                fields.pop(key, None)
    for key in _RUN_FIELDS_NOT_FOR_THE_VIEWER:
        doc["guardcheck"].pop(key, None)
    return doc


def inline_json(data: object) -> str:
    """JSON safe inside a <script> element.

    `<`, `>` and `&` only ever occur inside JSON strings, where their \\u escapes
    mean the same, so no `</script>` or `<!--` in a test id or source text can end
    or confuse the element.
    """
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _title(report: RunReport) -> str:
    label = run_label(report)
    return f"guardcheck mutation report ({label})" if label else "guardcheck mutation report"


def to_html(report: RunReport, *, gate: Gate | None = None) -> str:
    title = html.escape(_title(report))
    payload = inline_json(viewer_report(report, gate))
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="guardcheck, mutation-testing-elements {VIEWER_VERSION}">
<title>{title}</title>
<script>{viewer_script()}</script>
</head>
<body>
<mutation-test-report-app title-postfix="{title}"></mutation-test-report-app>
<script type="application/json" id="guardcheck-report">{payload}</script>
<script>
  const app = document.querySelector("mutation-test-report-app");
  app.report = JSON.parse(document.getElementById("guardcheck-report").textContent);
  // As the viewer's README suggests: the page follows the viewer's light/dark theme.
  function updateTheme() {{ document.body.style.backgroundColor = app.themeBackgroundColor; }}
  app.addEventListener("theme-changed", updateTheme);
  updateTheme();
</script>
</body>
</html>
"""


def write_html(report: RunReport, path: Path | str, *, gate: Gate | None = None) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(to_html(report, gate=gate), encoding="utf-8")
    return path
