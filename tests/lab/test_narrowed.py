"""lab/classify.py on only the touched statements gives what the whole module gives.

Regression for issue 8 case 13 (per-mutant cost grows with file size): classification
compiled every mutated module whole and walked both modules' code objects (0.4 s a
mutant at 20,000 lines). It now compiles and diffs only the top-level statements the
change touches (instrument.narrowed) and puts them into the original's compiled
module; on every sweep mutant and catalogue entry of target_app the result must be
exactly the whole-module one.
"""

from __future__ import annotations

import dataclasses
import marshal
import textwrap
from pathlib import Path

from guardcheck.catalogue.load import parse_catalogue_file
from guardcheck.edit.mutate import build_mutant
from guardcheck.lab.classify import Unviable, classify
from guardcheck.lab.instrument import narrowed
from guardcheck.model import ExecutionPath, FileChange, Mutant, Where
from guardcheck.sweep.generate import generate

REPO = Path(__file__).resolve().parents[2]


def _mutants() -> list[Mutant]:
    mutants = list(generate(REPO, ["target_app"]).mutants)
    for toml in sorted((REPO / "mutations").glob("*.toml")):
        mutants += [build_mutant(e, REPO) for e in parse_catalogue_file(toml, toml.name).entries]
    return mutants


def _classified(mutant: Mutant, *, narrow: bool) -> object:
    """The activation, its trees as code objects (marshal's bytes vary with refcounts)."""
    try:
        activation = classify(mutant, REPO, narrow=narrow)
    except Unviable as exc:
        return str(exc)
    # The module's own position table is the original's in the narrowed tree: a def's
    # module-level instructions span the whole def, whose end column a mutant may move.
    # Only carets of a traceback raised by those instructions could differ.
    trees = [marshal.loads(f.tree).replace(co_linetable=b"") for f in activation.files]
    swaps = [
        [(w.qualname, w.at, marshal.loads(w.original)) for w in f.swaps] for f in activation.files
    ]
    files = [dataclasses.replace(f, tree=b"", swaps=()) for f in activation.files]
    return dataclasses.replace(activation, files=()), trees, swaps, files


def _narrows(change: FileChange) -> bool:
    filename = str(REPO / change.path)
    compiled = compile(change.original, filename, "exec", dont_inherit=True)
    return narrowed(change.original, change.mutated, filename, None, compiled) is not None


def test_every_sweep_mutant_and_catalogue_entry_classifies_as_the_whole_module_does():
    mutants = _mutants()
    assert len(mutants) > 600
    forks = narrow = 0
    for mutant in mutants:
        whole = _classified(mutant, narrow=False)
        assert _classified(mutant, narrow=True) == whole, mutant.id
        forks += isinstance(whole, tuple) and whole[0].mode is ExecutionPath.FORK
        narrow += all(_narrows(change) for change in mutant.changes)
    assert forks > 300  # the swap path, where the narrowing matters, is well exercised
    assert narrow > len(mutants) * 0.8  # and the narrowed view is the usual one


def _change(original: str, mutated: str) -> FileChange:
    return FileChange("pkg/mod.py", original, mutated, Where("pkg/mod.py", 1))


SOURCE = textwrap.dedent(
    """\
    import math


    def area(r):
        return math.pi * r * r


    def double(x):
        return x * 2
    """
)


def test_a_change_that_adds_lines_compiles_the_whole_module(tmp_path):
    """Every code object after it moves: the original's cannot stand in for them."""
    mutated = SOURCE.replace("return x * 2", "x = x + 1\n    return x * 2")
    compiled = compile(SOURCE, str(tmp_path / "pkg/mod.py"), "exec")
    assert narrowed(SOURCE, mutated, str(tmp_path / "pkg/mod.py"), None, compiled) is None
    activation = classify(
        Mutant("m", "s", (_change(SOURCE, mutated),), "catalogue"), tmp_path, narrow=True
    )
    assert activation.mode is ExecutionPath.FORK
    assert [s.qualname for s in activation.files[0].swaps] == ["double"]


def test_a_same_length_change_swaps_only_its_function(tmp_path):
    mutated = SOURCE.replace("return x * 2", "return x + 2")
    compiled = compile(SOURCE, str(tmp_path / "pkg/mod.py"), "exec")
    view = narrowed(SOURCE, mutated, str(tmp_path / "pkg/mod.py"), None, compiled)
    assert view is not None
    assert view.at((0,)) == (1,)  # `double` is the module's second code object
    activation = classify(
        Mutant("m", "s", (_change(SOURCE, mutated),), "catalogue"), tmp_path, narrow=True
    )
    assert [(s.qualname, s.at) for s in activation.files[0].swaps] == [("double", (1,))]
