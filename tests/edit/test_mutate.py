"""build_mutant: an entry's edits applied in memory, and every problem with them."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from guardcheck.edit.mutate import build_mutant
from guardcheck.errors import CatalogueInvalid, Problem
from guardcheck.model import Edit, Entry, FileChange, Mutant, Where
from guardcheck.splices import Splice

CATALOGUE = Where("mutations/ladder.toml", 3)

STATE = textwrap.dedent(
    """\
    class TurnState:
        agent: object = None
        started_ts: float = 0.0


    class PersistentState:
        run_generation: int = 0
    """
)

LADDER = textwrap.dedent(
    """\
    CAP = 3600


    def cooldown(base, streak):
        if base < 0:
            return None
        return min(base * 2 ** (streak - 1), CAP)
    """
)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "state.py").write_text(STATE)
    (tmp_path / "app" / "ladder.py").write_text(LADDER)
    return tmp_path


def entry(*edits: Edit, id: str = "flat-cooldown") -> Entry:
    return Entry(
        id=id,
        summary="The ladder stops escalating.",
        edits=edits,
        where=CATALOGUE,
        killed_by=("tests/test_ladder.py::test_escalates",),
        tags=("ladder",),
    )


def ladder(find: str, replace: str = "", **kwargs: object) -> Edit:
    return Edit(file="app/ladder.py", find=find, replace=replace, **kwargs)  # type: ignore[arg-type]


def problems_of(an_entry: Entry, root: Path) -> list[Problem]:
    with pytest.raises(CatalogueInvalid) as caught:
        build_mutant(an_entry, root)
    return caught.value.problems


OLD_CALL = "min(base * 2 ** (streak - 1), CAP)"
OLD_CALL_AT = LADDER.index(OLD_CALL)


def test_a_single_edit_becomes_a_mutant(root):
    mutant = build_mutant(entry(ladder("min($B * $M, CAP)", "min($B, CAP)")), root)
    assert mutant == Mutant(
        id="flat-cooldown",
        summary="The ladder stops escalating.",
        changes=(
            FileChange(
                path="app/ladder.py",
                original=LADDER,
                mutated=LADDER.replace("min(base * 2 ** (streak - 1), CAP)", "min(base, CAP)"),
                span=Where("app/ladder.py", 7, 12, 7, 46),
                # Only what `replace` changes: the first argument, not the whole call.
                splices=(Splice(OLD_CALL_AT + 4, OLD_CALL_AT + 28, "base"),),
            ),
        ),
        mutator="catalogue",
        killed_by=("tests/test_ladder.py::test_escalates",),
        tags=("ladder",),
        declared_at=CATALOGUE,
    )
    assert mutant.changes[0].changed_lines() == {7}


def test_nothing_is_written_to_the_working_tree(root):
    build_mutant(entry(ladder("min($B * $M, CAP)", "min($B, CAP)")), root)
    assert (root / "app" / "ladder.py").read_text() == LADDER


def test_edits_to_one_file_chain_in_order(root):
    mutant = build_mutant(
        entry(
            ladder("CAP = 3600", "CAP = 60"),
            ladder("if base < 0:\n    ...", "if base < 0 or base > CAP:\n    return None"),
        ),
        root,
    )
    [change] = mutant.changes
    assert change.mutated.startswith("CAP = 60\n")
    assert "    if base < 0 or base > CAP:\n        return None\n" in change.mutated
    assert change.span.line == 1  # the earliest change, in original coordinates


def test_a_later_edit_may_rewrite_what_an_earlier_one_produced(root):
    mutant = build_mutant(
        entry(ladder("CAP = 3600", "CAP = 60"), ladder("CAP = 60", "CAP = 61")), root
    )
    assert mutant.changes[0].mutated.startswith("CAP = 61\n")


def test_edits_in_two_files_move_a_field_between_classes(root):
    state = Edit(file="app/state.py", scope="PersistentState", find="run_generation: int = 0")
    add = Edit(
        file="app/state.py",
        scope="TurnState",
        find="started_ts: float = 0.0",
        replace="started_ts: float = 0.0\nrun_generation: int = 0",
    )
    mutant = build_mutant(entry(ladder("CAP = 3600", "CAP = 1"), state, add), root)
    assert [c.path for c in mutant.changes] == ["app/ladder.py", "app/state.py"]
    moved = mutant.changes[1].mutated
    assert "    started_ts: float = 0.0\n    run_generation: int = 0\n" in moved
    assert moved.endswith("class PersistentState:\n    pass\n")


def test_crlf_files_are_read_byte_for_byte(root):
    (root / "app" / "crlf.py").write_bytes(b"x = 1\r\ny = 2\r\n")
    mutant = build_mutant(entry(Edit(file="app/crlf.py", find="y = 2", replace="y = 3")), root)
    assert mutant.changes[0].original == "x = 1\r\ny = 2\r\n"
    assert mutant.changes[0].mutated == "x = 1\r\ny = 3\r\n"


# --- problems --------------------------------------------------------------------------------


def test_a_missing_file_is_a_file_problem(root):
    edit = Edit(file="app/gone.py", find="x", replace="y", where=Where("mutations/l.toml", 9))
    [problem] = problems_of(entry(edit), root)
    assert problem.kind == "file"
    assert problem.entry_id == "flat-cooldown"
    assert problem.where == Where("mutations/l.toml", 9)
    assert "app/gone.py does not exist" in problem.message
    assert problem.fix


def test_a_target_that_does_not_parse_is_a_file_problem(root):
    (root / "app" / "broken.py").write_text("def f(:\n")
    [problem] = problems_of(entry(Edit(file="app/broken.py", find="x", replace="y")), root)
    assert problem.kind == "file"
    assert "app/broken.py is not valid Python" in problem.message


def test_every_failing_edit_is_reported(root):
    problems = problems_of(
        entry(
            ladder("min($B * $M, LIMIT)", "0"),
            ladder("x", "y", scope="cooldwn"),
            ladder("$X", "0"),
            Edit(file="app/nope.py", find="x"),
        ),
        root,
    )
    assert [p.kind for p in problems] == ["stale", "scope", "ambiguous", "file"]
    assert all(p.entry_id == "flat-cooldown" and p.where == CATALOGUE for p in problems)
    rendered = problems[0].render()
    assert rendered.startswith("mutations/ladder.toml:3: flat-cooldown: stale: `find` matches")
    assert "nearest: app/ladder.py:7 min(base * 2 ** (streak - 1), CAP)" in rendered
    assert "fix: update `find`" in rendered


def test_a_replacement_equal_to_find_modulo_formatting_is_a_no_op(root):
    [problem] = problems_of(entry(ladder("min($B * $M, CAP)", "min( $B*$M , CAP, )")), root)
    assert problem.kind == "no-op"
    assert "app/ladder.py" in problem.message
    assert problem.where == CATALOGUE


def test_a_replacement_that_only_reorders_comments_is_a_no_op(root):
    replace = "if base < 0:  # negative disables\n    return None"
    [problem] = problems_of(entry(ladder("if base < 0:\n    ...", replace)), root)
    assert problem.kind == "no-op"


@pytest.mark.parametrize(
    ("find", "replace", "scope"),
    [
        ("CAP = 3600", "CAP = 60 * 60", None),
        ("2 ** (streak - 1)", "(1 + 1) ** (streak - 1)", "cooldown"),
    ],
)
def test_a_replacement_the_compiler_folds_to_the_original_is_a_no_op(root, find, replace, scope):
    """Regression: `LIMIT = 1000` -> `LIMIT = 10**3` passed the check, and the run called
    it `no-coverage` ("no test executes" the line every import runs): the two texts
    compile to the same code, so no test can catch it."""
    [problem] = problems_of(entry(ladder(find, replace, scope=scope)), root)
    assert problem.kind == "no-op"
    assert "app/ladder.py compiles to the same code as before" in problem.message
    assert problem.where == CATALOGUE


def test_a_constant_of_another_type_with_an_equal_value_is_a_real_mutation(root):
    """3600 == 3600.0 in Python; the compiled constants differ, and so can behaviour."""
    mutant = build_mutant(entry(ladder("CAP = 3600", "CAP = 3600.0")), root)
    assert mutant.changes[0].mutated.startswith("CAP = 3600.0\n")


def test_return_outside_a_function_is_unviable(root):
    [problem] = problems_of(entry(ladder("CAP = 3600", "return 3600")), root)
    assert problem.kind == "unviable"
    assert "app/ladder.py does not compile: line 1: 'return' outside function" in problem.message
    assert problem.details == ("app/ladder.py:1 return 3600",)


def test_a_binding_the_compiler_rejects_is_unviable(root):
    [problem] = problems_of(entry(ladder("CAP = 3600", "nonlocal CAP")), root)
    assert problem.kind == "unviable"
    assert "nonlocal declaration not allowed at module level" in problem.message


# --- the transform escape hatch ------------------------------------------------------------

FLIP = textwrap.dedent(
    """\
    import libcst as cst
    from libcst.metadata import PositionProvider


    class Flip(cst.CSTTransformer):
        def leave_LessThan(self, original_node, updated_node):
            return cst.LessThanEqual()


    class FlipOnLine5(cst.CSTTransformer):
        METADATA_DEPENDENCIES = (PositionProvider,)

        def leave_Comparison(self, original_node, updated_node):
            if self.get_metadata(PositionProvider, original_node).start.line != 5:
                return updated_node
            target = updated_node.comparisons[0].with_changes(operator=cst.LessThanEqual())
            return updated_node.with_changes(comparisons=[target])


    class Nothing(cst.CSTTransformer):
        pass


    class Boom(cst.CSTTransformer):
        def leave_Name(self, original_node, updated_node):
            raise RuntimeError("no names today")


    class NotATransformer:
        pass
    """
)


@pytest.fixture
def transforms(root: Path, request: pytest.FixtureRequest) -> str:
    """A transformer module under the project root, uniquely named per test (sys.modules)."""
    name = f"gc_transforms_{request.node.name.replace('[', '_').replace(']', '_')}"
    (root / f"{name}.py").write_text(FLIP)
    return name


def test_a_transform_rewrites_the_module(root, transforms):
    mutant = build_mutant(entry(Edit(file="app/ladder.py", transform=f"{transforms}:Flip")), root)
    assert "    if base <= 0:\n" in mutant.changes[0].mutated
    assert mutant.changes[0].span.line == 5


def test_a_transform_can_be_limited_to_a_scope(root, transforms):
    (root / "app" / "two.py").write_text(
        "def a(x):\n    return x < 1\n\ndef b(x):\n    return x < 1\n"
    )
    edit = Edit(file="app/two.py", scope="b", transform=f"{transforms}:Flip")
    mutated = build_mutant(entry(edit), root).changes[0].mutated
    assert mutated == "def a(x):\n    return x < 1\n\ndef b(x):\n    return x <= 1\n"


def test_a_transform_may_use_libcst_metadata(root, transforms):
    edit = Edit(file="app/ladder.py", transform=f"{transforms}:FlipOnLine5")
    assert "    if base <= 0:\n" in build_mutant(entry(edit), root).changes[0].mutated


def test_a_transform_needing_metadata_cannot_take_a_scope(root, transforms):
    edit = Edit(file="app/ladder.py", scope="cooldown", transform=f"{transforms}:FlipOnLine5")
    [problem] = problems_of(entry(edit), root)
    assert problem.kind == "transform"
    assert "needs metadata" in problem.message


def test_a_transform_with_an_unknown_scope_is_a_scope_problem(root, transforms):
    edit = Edit(file="app/ladder.py", scope="cooldwn", transform=f"{transforms}:Flip")
    [problem] = problems_of(entry(edit), root)
    assert problem.kind == "scope"


def test_a_transform_that_changes_nothing_is_a_no_op(root, transforms):
    [problem] = problems_of(
        entry(Edit(file="app/ladder.py", transform=f"{transforms}:Nothing")), root
    )
    assert problem.kind == "no-op"


@pytest.mark.parametrize(
    ("spec", "says"),
    [
        ("{m}:Boom", "RuntimeError: no names today"),
        ("{m}:Missing", "AttributeError"),
        ("{m}:NotATransformer", "not a libcst.CSTTransformer"),
        ("gc_no_such_module_anywhere:Flip", "ModuleNotFoundError"),
        ("{m}", "is not 'module:ClassName'"),
    ],
)
def test_a_broken_transform_is_a_transform_problem(root, transforms, spec, says):
    edit = Edit(file="app/ladder.py", transform=spec.format(m=transforms))
    [problem] = problems_of(entry(edit), root)
    assert problem.kind == "transform"
    assert says in problem.message
