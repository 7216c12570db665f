"""A separate Python process running the lab, for tests that kill it like a terminal would.

`python lab_driver.py ROOT SPEC` where SPEC is a JSON file holding "mutants" (a list of
[id, find, replace] for support.lab.mutant) and "options" (RunOptions overrides). It
prints `started ID` as each mutant starts, then a `result`/`incomplete` line per outcome
and `finished` or `interrupted`; `error CODE` when the lab refuses to run.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the folder holding `support`

from guardcheck.errors import GuardcheckError
from guardcheck.model import Mutant
from support.lab import Events, mutant, run


class Loud(Events):
    def mutant_started(self, m: Mutant) -> None:
        print("started", m.id, flush=True)


def main(root: Path, spec: dict) -> None:
    mutants = [mutant(root, ident, find, replace) for ident, find, replace in spec["mutants"]]
    try:
        report = run(root, mutants, Loud(), **spec["options"])
    except GuardcheckError as exc:
        print("error", exc.code, flush=True)
        return
    for r in report.results:
        print("result", r.mutant.id, r.status.value, r.reason, flush=True)
    if report.incomplete:
        print("incomplete", report.incomplete.splitlines()[0], flush=True)
    print("interrupted" if report.interrupted else "finished", flush=True)


if __name__ == "__main__":
    main(Path(sys.argv[1]), json.loads(Path(sys.argv[2]).read_text(encoding="utf-8")))
