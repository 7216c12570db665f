"""Every example of docs/catalogue.md's "More pattern forms" section, applied as documented.

The section's module is written into a project, each TOML entry is built, and
its diff must contain the documented diff lines: the docs cannot drift from
what the engine does.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from guardcheck.edit.mutate import build_mutant
from guardcheck.model import Edit, Entry, Where
from guardcheck.splices import unified_diff

DOCS = Path(__file__).resolve().parents[2] / "docs" / "catalogue.md"


def _section() -> str:
    text = DOCS.read_text(encoding="utf-8")
    start = text.index("## More pattern forms")
    return text[start : text.index("\n## ", start + 1)]


def _blocks(kind: str) -> list[str]:
    return re.findall(rf"```{kind}\n(.*?)```", _section(), flags=re.S)


EXAMPLES = list(zip(_blocks("toml"), _blocks("diff"), strict=True))


def test_the_section_has_an_example_of_every_form():
    assert len(EXAMPLES) >= 13


@pytest.mark.parametrize(("toml", "diff"), EXAMPLES, ids=[t.split('"')[1] for t, _ in EXAMPLES])
def test_each_documented_example_makes_its_documented_diff(tmp_path: Path, toml: str, diff: str):
    [module] = _blocks("python")
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "client.py").write_text(module, encoding="utf-8")
    [table] = tomllib.loads(toml)["mutation"]
    edit = Edit(
        file=table["file"],
        find=table["find"],
        replace=table["replace"],
        scope=table.get("scope"),
    )
    entry = Entry(id=table["id"], summary=table["summary"], edits=(edit,), where=Where("x", 1))
    [change] = build_mutant(entry, tmp_path).changes
    produced = unified_diff(change.path, change.original, change.splices).splitlines()[3:]
    documented = diff.rstrip("\n").splitlines()
    # The documented lines are one contiguous run of the real hunk (context trimmed).
    starts = [i for i in range(len(produced)) if produced[i : i + len(documented)] == documented]
    assert starts, "\n".join(produced)
    # Outside the splice the module is byte for byte the original.
    [splice] = change.splices
    assert change.mutated[: splice.start] == module[: splice.start]
    assert change.mutated.endswith(module[splice.end :])
