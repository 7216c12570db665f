"""mutmut's own generator as the sweep's oracle: what each tool's mutants do to a function.

In `support`, not in tests/sweep/conftest.py: `from conftest import ...` resolves to
whichever conftest.py pytest imported first under that name (tests/target_app's, on
pytest 7.4), so test modules import these from here. bench/sweep_bench.py pairs its
mutants by the same rule, so it imports `mangled_functions` and `dump_as` from here too.
"""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterator

from mutmut.mutation.file_mutation import mutate_file_contents

from guardcheck.model import Mutant

FunctionDumps = Counter[tuple[str, str]]  # (mangled function name, ast dump of a mutated copy)


Function = ast.FunctionDef | ast.AsyncFunctionDef


def mangled_functions(tree: ast.Module) -> Iterator[tuple[str, Function]]:
    """Module-level functions and methods of module-level classes, with mutmut's mangled key."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield f"x_{node.name}", node
        elif isinstance(node, ast.ClassDef):
            for item in node.body:
                if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
                    yield f"xǁ{node.name}ǁ{item.name}", item


def dump_as(function: Function, name: str) -> str:
    function.name = name
    return ast.dump(function)


def mutmut_dumps(path: str, source: str) -> tuple[int, FunctionDumps]:
    """What `mutmut run` generates for a file: its mutant count and each mutated function.

    Its mutated file holds a copy `x_f__mutmut_3` (or `xǁClassǁm__mutmut_3`, in
    the class) of the function per mutant; renamed back, each is comparable.
    """
    mutated = mutate_file_contents(path, source)
    dumps: FunctionDumps = Counter()
    tree = ast.parse(mutated.code)
    functions = [n for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            functions += [
                n for n in node.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)
            ]
    for function in functions:
        key, marker, number = function.name.rpartition("__mutmut_")
        if marker and number.isdigit():
            name = key.removeprefix("x_") if key.startswith("x_") else key.rpartition("ǁ")[2]
            dumps[(key, dump_as(function, name))] += 1
    return len(mutated.mutant_names), dumps


def sweep_dumps(mutants: list[Mutant], source: str) -> FunctionDumps:
    """Each sweep mutant's mutated function: the function around its line, which must change."""
    original = {key: ast.dump(f) for key, f in mangled_functions(ast.parse(source))}
    dumps: FunctionDumps = Counter()
    for mutant in mutants:
        (change,) = mutant.changes
        # The line of the character before the splice is the function's even when the
        # splice deletes the function's last lines (a `case` dropped from a `match`).
        line = change.mutated.count("\n", 0, max(change.splices[0].start - 1, 0)) + 1
        around = [
            (key, f)
            for key, f in mangled_functions(ast.parse(mutant.changes[0].mutated))
            if f.lineno <= line <= (f.end_lineno or f.lineno)
        ]
        assert len(around) == 1, f"{mutant.id} is in {len(around)} functions"
        key, function = around[0]
        dump = ast.dump(function)
        assert dump != original[key], f"{mutant.id} does not change {key}"
        dumps[(key, dump)] += 1
    return dumps
