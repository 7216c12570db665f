"""A suite that freezes time with freezegun: the host fills freezegun's module cache so
that forked children need not (guardcheck/child/librarycaches.py); the verdicts stay
those of the mutant written by hand and the whole suite run with plain pytest."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.projects import commit, write_files
from support.verdicts import failing_by_hand, guardcheck_run

pytestmark = pytest.mark.slow

STAMP = "pkg/stamp.py"
PROJECT = {
    "pyproject.toml": (
        '[tool.guardcheck]\ncatalogue = ["mutations"]\ntests = ["tests"]\n\n'
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\nfilterwarnings = ["error"]\n'
    ),
    "pkg/__init__.py": "",
    STAMP: (
        "import datetime\n\n\ndef year_now():\n    return datetime.datetime.now().year\n\n\n"
        'def label(n):\n    return f"#{n}"\n'
    ),
    "tests/test_stamp.py": (
        "from freezegun import freeze_time\n\nfrom pkg.stamp import label, year_now\n\n\n"
        '@freeze_time("2001-02-03")\ndef test_year():\n    assert year_now() == 2001\n\n\n'
        "def test_label():\n    assert label(3).endswith('3')\n"
    ),
}
# entry id -> (scope, find, replace), as the entry makes it and as written by hand
ENTRIES = {
    "year-off": ("year_now", "datetime.datetime.now().year", "datetime.datetime.now().year + 1"),
    "label-prefix": ("label", 'f"#{n}"', 'f"no {n}"'),
}


def by_hand(root: Path, old: str, new: str) -> list[str]:
    """The tests that fail with `old` -> `new` written into the stamp module by hand."""
    return failing_by_hand(root, STAMP, old, new)


def test_freezing_suites_keep_the_verdicts_by_hand(tmp_path):
    root = write_files(tmp_path / "project", PROJECT)
    write_files(
        root,
        {
            "mutations/stamp.toml": "".join(
                f'[[mutation]]\nid = "{entry}"\nsummary = "A changed stamp."\nfile = "{STAMP}"\n'
                f"scope = {json.dumps(scope)}\nfind = {json.dumps(old)}\n"
                f"replace = {json.dumps(new)}\n\n"
                for entry, (scope, old, new) in ENTRIES.items()
            )
        },
    )
    commit(root)
    _, mutants = guardcheck_run(root, tmp_path / "r.json")
    verdicts = {entry: mutants[entry]["guardcheck"]["verdict"] for entry in ENTRIES}
    hand = {entry: by_hand(root, old, new) for entry, (_, old, new) in ENTRIES.items()}
    assert hand == {"year-off": ["tests/test_stamp.py::test_year"], "label-prefix": []}
    assert verdicts == {"year-off": "caught", "label-prefix": "survived"}
    assert mutants["year-off"]["guardcheck"]["executionPath"] == "fork"
