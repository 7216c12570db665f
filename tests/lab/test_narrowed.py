"""lab/prepare/classify.py on only the touched statements gives what the whole module gives.

Regression for issue 8 case 13 (per-mutant cost grows with file size): classification
compiled every mutated module whole and walked both modules' code objects (0.4 s a
mutant at 20,000 lines). It now compiles and diffs only the top-level statements the
change touches (instrument.narrowed) and puts them into the original's compiled
module; on every sweep mutant and catalogue entry of target_app the result must be
exactly the whole-module one.
"""

from __future__ import annotations

import dataclasses
import inspect
import marshal
import textwrap
import types
from pathlib import Path

import pytest

from guardcheck.catalogue.load import parse_catalogue_file
from guardcheck.edit.mutate import build_mutant
from guardcheck.lab.prepare.classify import Unviable, classify
from guardcheck.lab.prepare.instrument import narrowed
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
    # The module's and the classes' own position tables are the original's in the
    # narrowed tree: a def's instructions there span the whole def, whose end column a
    # mutant may move. Only carets of a traceback raised by those instructions (which
    # run at import) could differ.
    trees = [_without_import_time_positions(marshal.loads(f.tree)) for f in activation.files]
    swaps = [
        [(w.qualname, w.at, marshal.loads(w.original)) for w in f.swaps] for f in activation.files
    ]
    files = [dataclasses.replace(f, tree=b"", swaps=()) for f in activation.files]
    return dataclasses.replace(activation, files=()), trees, swaps, files


def _without_import_time_positions(code: types.CodeType) -> types.CodeType:
    consts = tuple(
        _without_import_time_positions(c) if isinstance(c, types.CodeType) else c
        for c in code.co_consts
    )
    function = code.co_flags & inspect.CO_OPTIMIZED
    return code.replace(co_consts=consts, co_linetable=code.co_linetable if function else b"")


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


METHODS = textwrap.dedent(
    """\
    from __future__ import annotations

    import functools


    def logged(fn):
        return fn


    @functools.total_ordering
    class Base:
        limit = 3

        def __init__(self, n):
            self.__n = n

        def size(self):
            return self.__n * 2

        def __lt__(self, other):
            return self.size() < other.size()


    class Child(Base):
        class Inner:
            @logged
            async def fetch(self, items):
                return [i + 1 for i in items]

        def size(self):
            return super().size() + 1

        if True:
            def hidden(self):
                return 1
    """
)


@pytest.mark.parametrize(
    ("find", "replace", "method"),
    [
        ("return self.__n * 2", "return self.__n * 3", "Base.size"),  # name mangling
        ("super().size() + 1", "super().size() - 1", "Child.size"),  # the __class__ cell
        ("return [i + 1 for", "return [i - 1 for", "Child.Inner.fetch"),  # nested, async
        ("other.size()", "other.size() * 1", "Base.__lt__"),  # in a decorated class
    ],
)
def test_a_change_inside_a_method_compiles_only_that_method(tmp_path, find, replace, method):
    """Regression (issue 10, speed): a method's mutant parsed and compiled its whole
    class twice (most of classifying target_app's GatewayRunner mutants); its view is
    now the method in stubs of its classes, and classifies as the whole module does."""
    assert METHODS.count(find) == 1
    mutated = METHODS.replace(find, replace)
    filename = str(tmp_path / "pkg/mod.py")
    view = narrowed(METHODS, mutated, filename, None, compile(METHODS, filename, "exec"))
    assert view is not None
    assert view.method is not None
    (code,) = [c for c in view.original.co_consts if isinstance(c, types.CodeType)]
    while code.co_qualname != method:  # each stub class holds only the next one
        (code,) = [c for c in code.co_consts if isinstance(c, types.CodeType)]
    mutant = Mutant("m", "s", (_change(METHODS, mutated),), "catalogue")
    whole = _classified(mutant, narrow=False)
    assert _classified(mutant, narrow=True) == whole
    assert whole[0].mode is ExecutionPath.FORK
    assert method in [qualname for swaps in whole[2] for qualname, _, _ in swaps]


@pytest.mark.parametrize(
    ("find", "replace"),
    [
        ("return 1\n", "return 2\n"),  # a def under an `if` in the class body
        ("limit = 3", "limit = 4"),  # not in a def
        ("return self.__n * 2", "return self.__n * 2\n        return 0"),  # adds a line
    ],
)
def test_other_changes_in_a_class_are_not_seen_through_a_method(tmp_path, find, replace):
    mutated = METHODS.replace(find, replace)
    filename = str(tmp_path / "pkg/mod.py")
    view = narrowed(METHODS, mutated, filename, None, compile(METHODS, filename, "exec"))
    assert view is None or view.method is None
    mutant = Mutant("m", "s", (_change(METHODS, mutated),), "catalogue")
    assert _classified(mutant, narrow=True) == _classified(mutant, narrow=False)
