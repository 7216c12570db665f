"""docs/DESIGN.md's package table and its list of the API, checked against the code.

DESIGN.md once listed 9 `api` functions while 25 existed: these tests keep the document
and the code from drifting apart again.
"""

from __future__ import annotations

import re
from pathlib import Path

from guardcheck import api

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "guardcheck"
DESIGN = ROOT / "docs" / "DESIGN.md"


def section(title: str) -> str:
    """The text of DESIGN.md's `## title` section, up to the next `## ` heading."""
    text = DESIGN.read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def table_names() -> list[str]:
    """What the package table's first column names: `lab/`, `api.py`, `reports/record.py`."""
    rows = [
        line for line in section("Packages and their walls").splitlines() if line.startswith("| `")
    ]
    return [name for row in rows for name in re.findall(r"`([^`]+)`", row.split("|")[1])]


def api_list() -> set[str]:
    """The names in the bullet list of DESIGN.md's "The API" section."""
    text = section("The API")
    bullets = text[text.index("\n- ") :]
    return set(re.findall(r"`([^`]+)`", bullets))


def test_every_package_and_module_of_guardcheck_has_a_row():
    """A new package or module of guardcheck/ gets a row in DESIGN.md's package table."""
    code = {
        p.name + "/" if p.is_dir() else p.name
        for p in PACKAGE.iterdir()
        if p.suffix == ".py" or (p / "__init__.py").is_file()
    }
    assert sorted(code - set(table_names())) == []


def test_every_row_names_a_package_or_module_that_exists():
    assert [name for name in table_names() if not (PACKAGE / name).exists()] == []


def test_the_api_list_in_design_is_the_api_s_public_names():
    assert sorted(api_list() ^ set(api.__all__)) == []


def test_every_public_name_of_the_api_is_exported_and_resolves():
    """A function or class of guardcheck's that `api` holds is in `__all__` (so in the
    DESIGN list); every name in `__all__` resolves, the lazily imported ones included."""
    unlisted = sorted(
        name
        for name, value in vars(api).items()
        if not name.startswith("_") and name not in api.__all__
        if str(getattr(value, "__module__", "")).startswith("guardcheck")
    )
    assert unlisted == []
    assert [name for name in api.__all__ if getattr(api, name, None) is None] == []


def test_the_table_reader_sees_the_rows_and_the_api_list():
    """Guards the readers: an empty parse would make the comparisons above pass vacuously
    or fail for the wrong reason."""
    names = table_names()
    assert {"api.py", "pipeline/", "lab/", "reports/record.py"} <= set(names)
    assert {"run", "sweep", "review", "__version__"} <= api_list()
