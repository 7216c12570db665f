"""Sweep ids are stable and unique; survivors emit as catalogue entries that rebuild them."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from guardcheck.catalogue.load import parse_catalogue_text
from guardcheck.edit.mutate import build_mutant
from guardcheck.splices import Splice
from guardcheck.sweep import emit_catalogue, generate
from guardcheck.sweep.ids import unique_ids

REPO = Path(__file__).resolve().parents[2]

SOURCE = """\
def twice(a):
    return f(a, a) + f(a, a)


class Box:
    def size(self, x):
        if x < 3:
            return x + 1
        return x + 1

    def label(self, names):
        return ", ".join(n.lower() for n in names)
"""


def test_ids_read_as_place_and_change(write_tree):
    root = write_tree({"pkg/box.py": SOURCE})
    ids = {m.id for m in generate(root, ["pkg"], arid_rules=()).mutants}
    assert "pkg/box.py:7:14: replace < with <=" in ids
    assert "pkg/box.py:12:26: replace n.lower with n.upper" in ids


def test_ids_are_unique_without_hashes_when_they_read_differently(write_tree):
    root = write_tree({"pkg/box.py": SOURCE})
    ids = [m.id for m in generate(root, ["pkg"], arid_rules=()).mutants]
    assert len(ids) == len(set(ids))
    assert not any(re.search(r" #[0-9a-f]{6}$", i) for i in ids)


def test_colliding_ids_get_distinct_stable_hashes():
    same = "m.py:1:1: replace f(a, a) with f(a)"
    twins = [Splice(0, 7, "f(a)"), Splice(0, 7, "f(a)"), Splice(9, 12, "None")]
    ids = unique_ids("m.py", [same, same, "m.py:2:1: replace x with None"], twins, ["x"] * 3)
    assert ids[2] == "m.py:2:1: replace x with None"  # no collision, no hash
    assert ids[0] != ids[1]
    assert all(re.fullmatch(re.escape(same) + r" #[0-9a-f]{6}", i) for i in ids[:2])
    again = unique_ids("m.py", [same, same, "m.py:2:1: replace x with None"], twins, ["x"] * 3)
    assert again == ids


def test_ids_do_not_depend_on_path_order_or_filters(write_tree):
    root = write_tree({"pkg/box.py": SOURCE, "pkg/other.py": SOURCE})
    forward = generate(root, ["pkg/box.py", "pkg/other.py"], arid_rules=())
    backward = generate(root, ["pkg/other.py", "pkg/box.py"], arid_rules=())
    assert [m.id for m in forward.mutants] == [m.id for m in backward.mutants]
    only_box = generate(root, ["pkg/box.py"], arid_rules=(), changed_lines={"pkg/box.py": {7}})
    assert {m.id for m in only_box.mutants} <= {m.id for m in forward.mutants}
    assert {m.id for m in only_box.mutants} == {
        m.id for m in forward.mutants if m.id.startswith("pkg/box.py:7:")
    }


def _round_trip(root: Path, mutants) -> tuple[str, int]:
    text = emit_catalogue(mutants, root)
    catalogue = parse_catalogue_text(text, "survivors.toml")
    assert catalogue.problems == ()
    assert len({e.id for e in catalogue.entries}) == len(catalogue.entries)
    by_place = {m.id: m for m in mutants}
    exact = 0
    for entry, note in zip(catalogue.entries, _notes(text), strict=True):
        rebuilt = build_mutant(entry, root)
        mutant = by_place[note]
        assert rebuilt.changes[0].path == mutant.changes[0].path
        # The same program: the engine may write an unchanged remainder more tightly
        # (`f(a, )` as `f(a)`), which no test can tell apart.
        if ast.dump(ast.parse(rebuilt.changes[0].mutated)) == ast.dump(
            ast.parse(mutant.changes[0].mutated)
        ):
            exact += 1
    return text, exact


def _notes(text: str) -> list[str]:
    """The sweep id each emitted entry was written for (its comment line)."""
    notes = re.findall(r"^# (.+) \([a-z-]+\)\n(?:# .*\n)?\[\[mutation\]\]", text, re.M)
    return notes


def test_emitted_entries_load_and_rebuild_the_mutants(write_tree):
    root = write_tree({"pkg/box.py": SOURCE})
    mutants = generate(root, ["pkg"], arid_rules=()).mutants
    text, exact = _round_trip(root, mutants)
    assert text.count("[[mutation]]") == len(mutants)  # every one of them emitted
    assert exact == len(mutants)
    assert 'scope = "Box.size"' in text
    assert "occurrence = 2" in text  # the second `x + 1` of Box.size


def test_target_app_survivors_emit(tmp_path):
    # Regression: parenthesised tuples (`(session_id,)`) were not candidates, so their
    # mutants were dropped as "no pattern rebuilds this mutant".
    mutants = [
        m
        for m in generate(REPO, ["target_app/session_db.py"]).mutants
        if m.span.line in range(140, 152)
    ]
    assert mutants
    text, exact = _round_trip(REPO, mutants)
    assert "not emitted" not in text
    assert 0 < exact <= len(mutants)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("a\nb", "'''\na\nb'''"), ("it's", '"it\'s"'), ("x\x7f", '"x\\u007f"')],
)
def test_emitted_strings_are_toml(text, expected):
    import sys

    emit = sys.modules["guardcheck.sweep.emit"]
    assert emit._toml(text) == expected
