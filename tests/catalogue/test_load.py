"""Loading catalogue files: positions, edits, and every problem of form (not of patterns)."""

from __future__ import annotations

import textwrap
from dataclasses import replace
from pathlib import Path

import pytest

from guardcheck.catalogue.load import catalogue_files, load_catalogue, parse_catalogue_text
from guardcheck.errors import GuardcheckError
from guardcheck.model import Edit, Where
from guardcheck.options import load_options


def parse(text: str):
    return parse_catalogue_text(textwrap.dedent(text), "mutations/x.toml")


def kinds_and_lines(catalogue) -> list[tuple[str, int]]:
    return sorted((p.kind, p.where.line) for p in catalogue.problems)


def test_entry_with_one_edit_carries_its_header_line():
    catalogue = parse(
        """\
        # ladder mutations

        [[mutation]]
        id = "flat-cooldown"
        summary = "The ladder stops escalating."
        file = "app/ladder.py"
        scope = "cooldown"
        find = "min($BASE * $MULT, CAP)"
        replace = "min($BASE, CAP)"
        occurrence = 1
        killed_by = ["tests/test_ladder.py::test_ladder_escalates"]
        tags = ["ladder", "cap"]
        """
    )
    assert catalogue.problems == ()
    (entry,) = catalogue.entries
    where = Where("mutations/x.toml", 3)
    assert entry.id == "flat-cooldown"
    assert entry.where == where
    assert entry.killed_by == ("tests/test_ladder.py::test_ladder_escalates",)
    assert entry.tags == ("ladder", "cap")
    assert entry.edits == (
        Edit(
            file="app/ladder.py",
            find="min($BASE * $MULT, CAP)",
            replace="min($BASE, CAP)",
            scope="cooldown",
            occurrence=1,
            where=where,
        ),
    )


def test_headers_inside_multiline_strings_do_not_count_as_tables():
    text = (
        "[[mutation]]\n"  # line 1
        'id = "first"\n'
        'summary = "s"\n'
        'file = "a.py"\n'
        'find = """\n'
        "[[mutation]]\n"  # a Python list of lists, not a TOML header
        "x = 1\n"
        '"""\n'
        "replace = '''\n"
        "[[mutation.edit]]\n"
        "'''\n"
        "\n"
        "[[ mutation ]]  # spaces inside the brackets are still a header\n"  # line 13
        'id = "second"\n'
        'summary = "s"\n'
        'file = "a.py"\n'
        'find = "a"\n'
        'replace = "b"\n'
    )
    catalogue = parse(text)
    assert catalogue.problems == ()
    assert [(e.id, e.where.line) for e in catalogue.entries] == [("first", 1), ("second", 13)]
    assert catalogue.entries[0].edits[0].find == "[[mutation]]\nx = 1\n"


def test_edit_subtables_add_edits_and_inherit_the_entry_file():
    catalogue = parse(
        "[[mutation]]\n"  # 1
        'id = "move-field"\n'
        'summary = "The field moves to the turn scope."\n'
        'file = "app/state.py"\n'
        'scope = "Conversation"\n'
        'find = "streak: int = 0"\n'
        'replace = ""\n'
        "\n"
        "[[mutation.edit]]\n"  # 9
        'scope = "Turn"\n'
        'find = "started: float = 0.0"\n'
        'replace = "started: float = 0.0\\nstreak: int = 0"\n'
        "\n"
        "[[mutation.edit]]\n"  # 14
        'file = "app/other.py"\n'
        'transform = "tools.mutations:DropCall"\n'
    )
    assert catalogue.problems == ()
    (entry,) = catalogue.entries
    assert [(e.file, e.scope, e.where.line) for e in entry.edits] == [
        ("app/state.py", "Conversation", 1),
        ("app/state.py", "Turn", 9),
        ("app/other.py", None, 14),
    ]
    assert entry.edits[1].replace == "started: float = 0.0\nstreak: int = 0"
    assert entry.edits[2].transform == "tools.mutations:DropCall"


def test_an_entry_may_consist_of_edit_subtables_only():
    catalogue = parse(
        '[[mutation]]\nid = "a"\nsummary = "s"\nfile = "m.py"\n'
        '[[mutation.edit]]\nfind = "x"\nreplace = "y"\n'
        '[[mutation.edit]]\nfind = "z"\nreplace = ""\n'
    )
    assert catalogue.problems == ()
    assert [(e.file, e.find, e.where.line) for e in catalogue.entries[0].edits] == [
        ("m.py", "x", 5),
        ("m.py", "z", 8),
    ]


def test_unknown_keys_point_at_their_line_and_suggest_the_known_key():
    catalogue = parse(
        '[[mutation]]\nid = "a"\nsummary = "s"\nfile = "m.py"\nfnd = "x"\nfind = "x"\n'
        'replace = "y"\nkiled_by = []\n'
        '[[mutation.edit]]\nocurrence = 2\nfind = "x"\nreplace = "y"\n'
        "[settings]\nfoo = 1\n"
    )
    problems = {p.where.line: p for p in catalogue.problems}
    assert sorted(problems) == [5, 8, 10, 13]
    assert "unknown key `fnd`" in problems[5].message
    assert problems[5].fix == "rename `fnd` to `find`"
    assert problems[8].fix == "rename `kiled_by` to `killed_by`"
    assert problems[10].fix == "rename `ocurrence` to `occurrence`"
    assert problems[5].entry_id == "a"
    assert "unknown key `settings`" in problems[13].message
    assert catalogue.entries == ()  # an entry with a problem is never used


def test_missing_required_keys():
    catalogue = parse(
        "[[mutation]]\n"  # 1: no id, no summary
        'file = "m.py"\nfind = "x"\nreplace = "y"\n'
        "[[mutation]]\n"  # 5: find without replace, no file
        'id = "b"\nsummary = "s"\nfind = "x"\n'
        "[[mutation]]\n"  # 9: nothing to apply
        'id = "c"\nsummary = "s"\n'
    )
    messages = sorted((p.where.line, p.entry_id, p.message) for p in catalogue.problems)
    assert messages == [
        (1, None, "missing required key `summary`"),
        (1, None, "the entry has no `id`"),
        (5, "b", "missing required key `file`"),
        (8, "b", "missing required key `replace`"),
        (9, "c", "the entry has nothing to apply: no `find` and no `[[mutation.edit]]`"),
    ]
    assert all(p.fix for p in catalogue.problems)


def test_wrong_types_are_reported_at_the_key():
    catalogue = parse(
        '[[mutation]]\nid = "a"\nsummary = ""\nfile = "/abs/m.py"\nfind = "x"\nreplace = 3\n'
        'occurrence = 0\nkilled_by = "tests/t.py::test_x"\ntags = [1]\nscope = "not a name"\n'
        "[[mutation]]\n"
        'id = "b"\nsummary = "s"\nfile = "m.py"\ntransform = "no colon"\n'
        "occurrence = true\n"
    )
    assert kinds_and_lines(catalogue) == [
        ("conflict", 15),
        ("type", 3),
        ("type", 4),
        ("type", 6),
        ("type", 7),
        ("type", 8),
        ("type", 9),
        ("type", 10),
        ("type", 15),
        ("type", 16),
    ]
    by_line = {p.where.line: p for p in catalogue.problems if p.kind == "type"}
    assert "`occurrence` must be a whole number from 1, not 0" in by_line[7].message
    assert by_line[8].fix == 'write killed_by = ["tests/test_x.py::test_y"]'


@pytest.mark.parametrize(
    ("raw", "suggested"),
    [("Flat_Cooldown", "flat-cooldown"), ("flat cooldown!", "flat-cooldown"), ("-x-", "x")],
)
def test_invalid_ids_suggest_a_kebab_case_id(raw: str, suggested: str):
    catalogue = parse(
        f'[[mutation]]\nid = "{raw}"\nsummary = "s"\nfile = "m.py"\nfind = "x"\nreplace = "y"\n'
    )
    (problem,) = catalogue.problems
    assert (problem.kind, problem.where.line, problem.entry_id) == ("id", 2, raw)
    assert problem.fix == f'use id = "{suggested}"'


def test_malformed_toml_names_line_and_column():
    catalogue = parse('[[mutation]]\nid = "a"\nsummary = "unterminated\nfile = "m.py"\n')
    (problem,) = catalogue.problems
    assert problem.kind == "toml"
    assert (problem.where.path, problem.where.line) == ("mutations/x.toml", 3)
    assert "not valid TOML" in problem.message
    assert catalogue.entries == ()


def test_single_bracket_mutation_table_is_explained():
    catalogue = parse('[mutation]\nid = "a"\n')
    (problem,) = catalogue.problems
    assert "array of tables" in problem.message
    assert "[[mutation]]" in problem.fix


def test_transform_excludes_find_and_replace():
    catalogue = parse(
        '[[mutation]]\nid = "a"\nsummary = "s"\nfile = "m.py"\n'
        'transform = "pkg.mod:Swap"\nfind = "x"\nreplace = "y"\n'
    )
    (problem,) = catalogue.problems
    assert problem.kind == "conflict"
    assert problem.where.line == 5


def test_folders_are_searched_recursively_in_sorted_order(project):
    root = project("catalogue-folders")
    settings = replace(load_options(root), catalogue=(Path("mutations"), Path("extra.toml")))
    files = [settings.display(f) for f in catalogue_files(settings)]
    assert files == [
        "mutations/a.toml",
        "mutations/b.toml",
        "mutations/sub/c.toml",
        "extra.toml",
    ]
    loaded = load_catalogue(settings)
    assert [(e.id, str(e.where)) for e in loaded.entries] == [
        ("a", "mutations/a.toml:1"),
        ("a-two", "mutations/a.toml:7"),
        ("b", "mutations/b.toml:1"),
        ("c", "mutations/sub/c.toml:1"),
        ("extra", "extra.toml:1"),
    ]


def test_a_missing_catalogue_path_is_an_error(tmp_path: Path):
    settings = replace(load_options(tmp_path), catalogue=(Path("nowhere"),))
    with pytest.raises(GuardcheckError, match="catalogue path nowhere does not exist") as info:
        load_catalogue(settings)
    assert info.value.code == 2


ENTRY = """\
    [[mutation]]
    id = "flat"
    summary = "s"
    file = "app/ladder.py"
    find = "a"
    replace = "b"
    """


def test_killed_by_any_expect_and_reason_are_read():
    catalogue = parse(
        ENTRY + 'killed_by_any = ["t.py::a", "t.py::b"]\n'
        'expect = "survives"\nreason = "negatives untested"\n'
    )
    assert catalogue.problems == ()
    (entry,) = catalogue.entries
    assert entry.killed_by_any == ("t.py::a", "t.py::b")
    assert (entry.expect, entry.reason) == ("survives", "negatives untested")


def test_expect_without_a_reason_is_a_problem_on_the_expect_line():
    catalogue = parse(ENTRY + 'expect = "survives"\n')
    assert catalogue.entries == ()
    assert kinds_and_lines(catalogue) == [("missing", 7)]
    assert "needs a `reason`" in catalogue.problems[0].message


def test_an_unknown_expect_value_and_a_stray_reason_are_problems():
    assert [p.kind for p in parse(ENTRY + 'expect = "caught"\nreason = "r"\n').problems] == ["type"]
    stray = parse(ENTRY + 'reason = "r"\n')
    assert "`reason` without `expect`" in stray.problems[0].message
