"""Vetting a mutant through the top-level statements it touches (edit/toplevel.py).

Regression for issue 8 case 13 (per-mutant cost grows with file size): build_mutant
compiled and walked the whole mutated module for every entry (0.7 s an entry at
20,000 lines). It now parses, compiles and compares only the statements the change
touches; these tests pin that the hard errors still fire where a statement compiles
alone but its module would not, and that the narrowed judgement equals the whole one.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from guardcheck.catalogue.load import parse_catalogue_file
from guardcheck.edit import toplevel
from guardcheck.edit.mutate import build_mutant, unchanged_code
from guardcheck.errors import CatalogueInvalid
from guardcheck.model import Edit, Entry, FileChange, Where
from guardcheck.sweep.generate import generate

REPO = Path(__file__).resolve().parents[2]

MODULE = textwrap.dedent(
    '''\
    """Docstring."""

    from __future__ import annotations

    import functools

    LIMIT = 3
    FLOOR = 0


    def first(items):
        for item in items:
            return item
        return None


    def total(a, b):
        return a + b


    async def fetch(source):
        return await source()
    '''
)


def problem_of(tmp_path: Path, find: str, replace: str, scope: str | None = None) -> str:
    (tmp_path / "mod.py").write_text(MODULE)
    edit = Edit(file="mod.py", find=find, replace=replace, scope=scope)
    entry = Entry(id="e", summary="s", edits=(edit,), where=Where("m.toml", 1))
    with pytest.raises(CatalogueInvalid) as raised:
        build_mutant(entry, tmp_path)
    [problem] = raised.value.problems
    return f"{problem.kind}: {problem.message}"


@pytest.mark.parametrize(
    ("find", "replace", "scope", "says"),
    [
        # A future import is only valid first: alone, the statement compiles.
        ("LIMIT = 3", "from __future__ import division", None, "from __future__ imports must"),
        # Checked against the module's earlier uses of the name.
        ("FLOOR = 0", "global LIMIT", None, "assigned to before global declaration"),
        ("LIMIT = 3", "nonlocal LIMIT", None, "nonlocal declaration not allowed at module"),
        ("LIMIT = 3", "return 3", None, "'return' outside function"),
        ("return None", "break", "first", "'break' outside loop"),
        ("return a + b", "yield from await a", "total", "'await' outside async function"),
    ],
)
def test_a_statement_that_compiles_alone_but_not_in_its_module_is_unviable(
    tmp_path, find, replace, scope, says
):
    found = problem_of(tmp_path, find, replace, scope)
    assert found.startswith("unviable: the mutated mod.py does not compile")
    assert says in found


def test_reformatting_the_touched_statement_only_is_no_change_of_code():
    reformatted = MODULE.replace("return a + b", "return (a\n            + b)  # same")
    assert toplevel.touched(MODULE, reformatted) is not None
    assert unchanged_code("mod.py", MODULE, reformatted) is True
    assert unchanged_code("mod.py", MODULE, MODULE.replace("a + b", "a - b")) is False


def test_a_change_next_to_the_futures_is_judged_on_the_whole_module():
    mutated = MODULE.replace('"""Docstring."""', '"""Other."""\nx = 1')
    assert toplevel.touched(MODULE, mutated) is None
    with pytest.raises(SyntaxError, match="from __future__ imports must"):
        unchanged_code("mod.py", MODULE, mutated)


def test_a_part_that_does_not_parse_alone_is_judged_on_the_whole_module():
    mutated = MODULE.replace("return a + b", "return (a +")
    assert toplevel.touched(MODULE, mutated) is None
    with pytest.raises(SyntaxError, match="never closed"):
        unchanged_code("mod.py", MODULE, mutated)


def test_a_module_with_a_global_statement_is_never_narrowed():
    source = "global x\nx = 1\n\n\ndef f():\n    return x\n"
    assert toplevel.touched(source, source.replace("return x", "return -x")) is None


def test_the_touched_part_holds_only_the_changed_statement():
    part = toplevel.touched(MODULE, MODULE.replace("a + b", "a - b"))
    assert part is not None
    assert [type(s).__name__ for s in part.statements] == ["FunctionDef"]
    assert part.statements[0].lineno == MODULE.splitlines().index("def total(a, b):") + 1


def _judged(change: FileChange, *, narrow: bool) -> object:
    region = (change.splices[0].start, change.splices[-1].end)
    try:
        return unchanged_code(change.path, change.original, change.mutated, region, narrow=narrow)
    except (SyntaxError, ValueError) as exc:
        return type(exc), getattr(exc, "lineno", None), getattr(exc, "msg", str(exc))


def _changes():
    for mutant in generate(REPO, ["target_app"]).mutants:
        yield from mutant.changes
    for toml in sorted((REPO / "mutations").glob("*.toml")):
        for entry in parse_catalogue_file(toml, toml.name).entries:
            try:
                yield from build_mutant(entry, REPO).changes
            except CatalogueInvalid:  # an entry the catalogue itself flags: none today
                pytest.fail(f"{toml.name}: {entry.id} does not build")


def test_every_sweep_mutant_and_catalogue_entry_is_judged_as_the_whole_module_judges_it():
    changes = list(_changes())
    assert len(changes) > 600
    narrowed = 0
    for change in changes:
        assert _judged(change, narrow=True) == _judged(change, narrow=False)
        bare = change.original.removeprefix("\ufeff"), change.mutated.removeprefix("\ufeff")
        narrowed += toplevel.touched(*bare) is not None
    assert narrowed > len(changes) * 0.9  # the fast path is the usual one
