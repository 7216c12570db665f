"""Hard errors: each one exits 2 and names the entry, its catalogue file:line and the fix."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.catalogue import FLAT_COOLDOWN, LADDER, ladder, run_cli
from support.projects import copy_project, write_files

from guardcheck.catalogue.validate import check_killers_collected, validate
from guardcheck.edit.parsed import parse_source
from guardcheck.errors import CatalogueInvalid
from guardcheck.model import FileChange, Mutant, Where
from guardcheck.options import load_options


def entry(entry_id: str, body: str) -> str:
    return f'[[mutation]]\nid = "{entry_id}"\nsummary = "s"\nfile = "app/ladder.py"\n{body}\n'


def check_fails(root: Path, *args: str) -> str:
    result = run_cli(root, "check", *args)
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    return result.stderr


@pytest.mark.slow  # pytest --collect-only in a subprocess
def test_a_sound_catalogue_validates_to_mutants(project):
    root = project("ladder")
    (mutant,) = validate(load_options(root), collect=True)
    assert mutant.id == "flat-cooldown"
    assert mutant.killed_by == ("tests/test_ladder.py::test_ladder_escalates",)
    assert str(mutant.declared_at) == "mutations/ladder.toml:1"
    assert "+    return min(base, CAP)" in mutant.diff()
    result = run_cli(root, "check")
    assert (result.exit_code, result.stdout) == (0, "1 mutation OK\n")


def test_stale_after_renaming_a_variable_in_the_target(project):
    root = ladder(project, entry("flat-cooldown", 'find = "base * multiplier"\nreplace = "base"'))
    assert run_cli(root, "check").exit_code == 0
    renamed = LADDER.replace("multiplier", "factor")
    write_files(root, {"app/ladder.py": renamed})
    err = check_fails(root)
    assert (
        "mutations/ladder.toml:1: flat-cooldown: stale: `find` matches nothing in app/ladder.py"
        in err
    )
    assert "nearest: app/ladder.py:7 base * factor" in err
    assert "fix: update `find` to today's code" in err
    assert err.rstrip().endswith("catalogue invalid: 1 problem")


def test_ambiguous_lists_the_lines(project):
    root = ladder(
        project,
        entry("no-streak", 'scope = "Gate"\nfind = "self.streak"\nreplace = "0"'),
    )
    err = check_fails(root)
    assert "mutations/ladder.toml:1: no-streak: ambiguous: `find` matches" in err
    assert "at lines 12, 15, 16, 20, 21" in err
    assert "fix: add `occurrence = N`" in err


def test_occurrence_picks_one_of_several_matches(project):
    root = ladder(
        project,
        entry("no-streak", 'scope = "Gate"\nfind = "self.streak"\nreplace = "0"\noccurrence = 5'),
    )
    (mutant,) = validate(load_options(root), collect=False)
    assert (mutant.span.line, mutant.span.column) == (21, 16)


def test_no_op_when_replace_equals_find_modulo_formatting(project):
    root = ladder(
        project,
        entry(
            "same-thing",
            'find = "min(base * multiplier, CAP)"\nreplace = "min( base*multiplier ,  (CAP) )"',
        ),
    )
    err = check_fails(root)
    assert "mutations/ladder.toml:1: same-thing: no-op: the mutation changes nothing" in err
    assert "fix: make `replace` differ from `find` in code" in err


def test_unviable_when_the_mutant_does_not_compile(project):
    root = ladder(
        project,
        entry(
            "break-out",
            'scope = "Gate.record_success"\nfind = "self.streak = 0"\nreplace = "break"',
        ),
    )
    err = check_fails(root)
    assert (
        "mutations/ladder.toml:1: break-out: unviable: the mutated app/ladder.py does not compile"
        in err
    )
    assert "'break' outside loop" in err
    assert "fix: change `replace`" in err


def test_duplicate_ids_name_both_locations(project):
    root = ladder(project, {"a.toml": FLAT_COOLDOWN, "b.toml": "\n\n" + FLAT_COOLDOWN})
    err = check_fails(root)
    assert (
        "mutations/b.toml:3: flat-cooldown: duplicate: id `flat-cooldown` is declared 2 times: "
        "mutations/a.toml:1, mutations/b.toml:3" in err
    )
    assert "fix: give each entry its own id" in err


def test_malformed_toml_names_file_and_line(project):
    root = ladder(project, FLAT_COOLDOWN + '\n[[mutation]]\nid = "x\n')
    err = check_fails(root)
    assert "mutations/ladder.toml:12: toml: not valid TOML" in err
    assert "fix: fix the TOML syntax" in err
    assert "Traceback" not in err


def test_unknown_key_suggests_the_known_one(project):
    root = ladder(project, FLAT_COOLDOWN.replace("tags =", "tgas ="))
    err = check_fails(root)
    assert (
        "mutations/ladder.toml:9: flat-cooldown: key: unknown key `tgas` in a [[mutation]] table "
        "(did you mean `tags`?)" in err
    )
    assert "fix: rename `tgas` to `tags`" in err


def test_missing_target_file(project):
    root = ladder(project, FLAT_COOLDOWN.replace("app/ladder.py", "app/gone.py"))
    err = check_fails(root)
    assert (
        "mutations/ladder.toml:1: flat-cooldown: file: target file app/gone.py does not exist"
        in err
    )
    assert "fix: set `file` to a path relative to the project root" in err


def test_scope_not_found_suggests_a_defined_name(project):
    root = ladder(project, FLAT_COOLDOWN.replace('scope = "cooldown"', 'scope = "cooldwn"'))
    err = check_fails(root)
    assert "mutations/ladder.toml:1: flat-cooldown: scope: scope `cooldwn` not found" in err
    assert "did you mean: cooldown" in err
    assert "fix: set `scope` to an existing qualified name" in err


@pytest.mark.slow  # pytest --collect-only in a subprocess
def test_killed_by_is_checked_against_collected_tests_only_with_collect(project):
    root = ladder(project, FLAT_COOLDOWN.replace("test_ladder_escalates", "test_ladder_escalate"))
    assert run_cli(root, "check").exit_code == 0  # no pytest run without --collect
    err = check_fails(root, "--collect")
    assert (
        "mutations/ladder.toml:1: flat-cooldown: killed_by: `killed_by` names "
        "tests/test_ladder.py::test_ladder_escalate, which pytest does not collect" in err
    )
    assert "did you mean: tests/test_ladder.py::test_ladder_escalates" in err
    # A spelling guess, not a test known to kill the mutant (regression: it said "change it to").
    assert "fix: did you mean tests/test_ladder.py::test_ladder_escalates? name a collected" in err
    assert "change it to" not in err


@pytest.mark.slow  # pytest --collect-only in a subprocess
def test_killed_by_may_name_a_class_or_a_parametrized_test_without_its_parameters(
    project,
):
    root = ladder(
        project,
        FLAT_COOLDOWN.replace(
            "killed_by = [",
            'killed_by = ["tests/test_more.py::TestCap", "tests/test_more.py::test_each", ',
        ),
    )
    copy_project(root, "ladder-more-tests")
    assert len(validate(load_options(root), collect=True)) == 1


@pytest.mark.slow  # pytest --collect-only in a subprocess
def test_a_collection_error_is_reported_as_a_problem(project):
    root = project("ladder")
    write_files(root, {"tests/test_broken.py": "def test_x(:\n"})
    err = check_fails(root, "--collect")
    assert "collect: pytest could not collect the tests" in err
    assert "test_broken.py" in err


def test_an_empty_catalogue_is_an_error(project):
    root = ladder(project, "# nothing yet\n")
    err = check_fails(root)
    assert "empty: the catalogue has no [[mutation]] entries (1 file(s) under mutations)" in err
    assert "fix: add [[mutation]] tables" in err


def test_every_problem_is_reported_together_in_catalogue_order(project):
    root = ladder(
        project,
        {
            "a.toml": entry("stale-one", 'find = "nothing_like_this()"\nreplace = "x"')
            + entry("bad-key", 'find = "CAP"\nreplace = "1"\nfnd = "x"'),
            "b.toml": 'id = "x"\n[[mutation]]\n',
            "c.toml": FLAT_COOLDOWN.replace("scope", "scoop"),
        },
    )
    err = check_fails(root)
    heads = [line.split(": ")[0] for line in err.splitlines() if line.startswith("mutations/")]
    assert heads == [
        "mutations/a.toml:1",
        "mutations/a.toml:13",
        "mutations/b.toml:1",
        "mutations/b.toml:2",
        "mutations/b.toml:2",
        "mutations/b.toml:2",
        "mutations/c.toml:5",
    ]
    assert err.rstrip().endswith("catalogue invalid: 7 problems")
    with pytest.raises(CatalogueInvalid) as info:
        validate(load_options(root), collect=False)
    assert len(info.value.problems) == 7


def test_checking_twenty_entries_on_one_file_parses_it_once(project):
    """Regression guard for check's speed, without a clock: every entry on the same file
    reuses one parse of it (parsed.parse_source, cached by the file's text)."""
    bodies = [
        entry(f"cap-{n}", f'scope = "cooldown"\nfind = "CAP"\nreplace = "{n}"') for n in range(20)
    ]
    root = ladder(project, "".join(bodies))
    parse_source.cache_clear()
    assert len(validate(load_options(root), collect=False)) == 20
    assert parse_source.cache_info().misses == 1  # the 19 others hit the cache


def test_a_killed_by_any_id_pytest_does_not_collect_is_a_problem_like_killed_by():
    change = FileChange("m.py", "a + b\n", "a - b\n", Where("m.py", 1))
    mutant = Mutant("m", "m", (change,), killed_by_any=("t.py::real", "t.py::typo"))
    with pytest.raises(CatalogueInvalid) as raised:
        check_killers_collected([mutant], ("t.py::real",))
    (problem,) = raised.value.problems
    assert problem.kind == "killed_by"
    assert "t.py::typo" in problem.message


def test_an_entry_whose_replace_is_todays_code_says_the_bug_is_back(project):
    """Regression (issue 23): a refactor that brought the guarded bug back was reported
    "stale ... delete the entry if the bug is gone for good", the opposite of the truth."""
    root = ladder(project, entry("flat-cooldown", 'find = "base * multiplier"\nreplace = "base"'))
    back = LADDER.replace("min(base * multiplier, CAP)", "min(base, CAP)")
    write_files(root, {"app/ladder.py": back})
    err = check_fails(root)
    assert (
        "mutations/ladder.toml:1: flat-cooldown: bug-back: today's code already contains "
        "mutation flat-cooldown (the bug it guards is back) at app/ladder.py:7"
    ) in err
    assert "stale" not in err
    assert "delete the entry" not in err


def test_an_entry_whose_code_moved_on_stays_stale(project):
    """The other side of the bug-back rule: code that is neither `find` nor `replace`."""
    root = ladder(project, entry("flat-cooldown", 'find = "base * multiplier"\nreplace = "base"'))
    write_files(root, {"app/ladder.py": LADDER.replace("min(base * multiplier, CAP)", "CAP")})
    err = check_fails(root)
    assert "flat-cooldown: stale: `find` matches nothing" in err
    assert "bug-back" not in err
