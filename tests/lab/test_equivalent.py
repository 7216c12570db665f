"""Which mutants run exactly the original's program (lab/prepare/classify.py).

Regression (issue 22, more-itertools 10.5.0): `while 1:` -> `while 2:` compiles to the
original's loop; run, no line of it could show the mutant was active, so the verdict
was `error`, where by hand the suite passes. Such a mutant is now `equivalent`: it
survives without a run (tests/sweep/test_sweep_equivalent_e2e.py), and only a mutant
the interpreter cannot tell apart from the original, positions included, counts.
"""

from __future__ import annotations

import textwrap

import pytest

from guardcheck.edit.samecode import identical
from guardcheck.lab.prepare.classify import after_collection, classify
from guardcheck.messages import RanFunction
from guardcheck.model import ExecutionPath, FileChange, Mutant, Where

SOURCE = textwrap.dedent(
    """\
    LIMIT = 1000


    def drain(items):
        out = []
        while 1:
            if not items:
                return out
            out.append(items.pop())
    """
)


def mutant(find: str, replace: str) -> Mutant:
    assert SOURCE.count(find) == 1, find
    change = FileChange("pkg/core.py", SOURCE, SOURCE.replace(find, replace), Where("m.py", 1))
    return Mutant("m", "m", (change,))


def test_a_constant_the_compiler_folds_away_is_equivalent(tmp_path):
    activation = classify(mutant("while 1:", "while 2:"), tmp_path)
    assert activation.mode is ExecutionPath.FORK
    assert activation.equivalent


@pytest.mark.parametrize(
    ("find", "replace"),
    [
        ("if not items:", "if items:"),  # another program
        ("out.append(items.pop())", "out.append(items.pop(0))"),
        ("LIMIT = 1000", "LIMIT = 1001"),  # module level: the fresh path
    ],
)
def test_a_change_the_interpreter_runs_is_not_equivalent(tmp_path, find, replace):
    assert not classify(mutant(find, replace), tmp_path).equivalent


def test_same_code_at_other_positions_is_not_identical():
    """Line numbers and columns reach tracebacks, warnings and `inspect`: a mutant that
    moved code without changing it is run, not assumed to pass."""
    base = compile(SOURCE, "core.py", "exec")
    moved_line = compile(SOURCE.replace("out = []\n", "out = [\n        ]\n"), "core.py", "exec")
    moved_column = compile(SOURCE.replace("(items.pop())", "( items.pop())"), "core.py", "exec")
    assert identical(base, compile(SOURCE.replace("while 1:", "while 2:"), "core.py", "exec"))
    assert not identical(base, moved_line)
    assert not identical(base, moved_column)


def test_an_equivalent_mutant_stays_on_the_fork_path_though_its_function_ran_at_import(
    tmp_path,
):
    """What the function computed at import is what the original computed: nothing to
    redo in a fresh interpreter."""
    activation = classify(mutant("while 1:", "while 2:"), tmp_path)
    ran = [RanFunction("pkg/core.py", "drain", 4, "")]
    assert after_collection(activation, ran) is activation
