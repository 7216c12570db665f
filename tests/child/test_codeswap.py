"""Which path a mutant takes (code swap vs fresh interpreter), and the in-process swap."""

from __future__ import annotations

import base64
import builtins
import importlib
import marshal
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from guardcheck.child.codeswap import (
    MARKER,
    ActivationError,
    LiveFunctions,
    NeedsFileOnDisk,
    RecompiledFunction,
    activate,
    code_at,
    install_marker,
)
from guardcheck.lab.prepare.classify import Unviable, classify
from guardcheck.model import ExecutionPath, FileChange, Mutant, Where

SOURCE = textwrap.dedent(
    '''\
    """A module shaped like real code: every kind of definition a mutation can touch."""
    import functools

    LIMIT = 3


    def logged(fn):
        @functools.wraps(fn)
        def wrapper(*args):
            return fn(*args)
        return wrapper


    @logged
    def add(a, b=1):
        """Docstring stays the docstring."""
        return a + b


    class Shape:
        sides = 4

        def area(self, x):
            return [i * x for i in range(2)]

        @staticmethod
        def rank(items):
            return sorted(items, key=lambda v: -v)

        @classmethod
        def make(cls):
            return cls.sides


    def outer():
        def inner(y):
            return y + LIMIT
        return inner


    INNER = outer()
    key = lambda v: v + 1
    '''
)


def mutant(find: str, replace: str, source: str = SOURCE) -> Mutant:
    assert source.count(find) == 1, find
    change = FileChange("pkg_mod.py", source, source.replace(find, replace), Where("m.py", 1))
    return Mutant("m", "m", (change,))


@pytest.mark.parametrize(
    ("find", "replace"),
    [
        ("return a + b", "return a - b"),  # function body
        ("return [i * x", "return [i + x"),  # comprehension inside a method
        ("key=lambda v: -v", "key=lambda v: v"),  # lambda inside a staticmethod
        ("return cls.sides", "return cls.sides + 1"),  # classmethod
        ("return fn(*args)", "return fn(*args[:1])"),  # decorator's wrapper, alive since import
        ("return y + LIMIT", "return y - LIMIT"),  # closure
        # Issue 10: a comprehension removed from a method is made at each call, never
        # alive since import, so swapping the method's code covers it.
        ("return [i * x for i in range(2)]", "return None"),
        # Likewise a lambda: one alive since import means its function ran then, which
        # after_collection sends fresh (tests/lab/test_import_time.py).
        ("key=lambda v: -v", "key=None"),
    ],
)
def test_changes_inside_function_bodies_take_the_fork_path(tmp_path, find, replace):
    activation = classify(mutant(find, replace), tmp_path)
    assert activation.mode is ExecutionPath.FORK, activation.why


@pytest.mark.parametrize(
    ("find", "replace", "why"),
    [
        ("LIMIT = 3", "LIMIT = 4", "module-level"),
        ("    sides = 4", "    sides = 5", "class body of Shape"),
        ("@logged\n", "", "module-level"),  # decorator removed
        ("b=1", "b=LIMIT", "module-level"),  # a default value only the import computes
        ("import functools", "import functools as ft\nfunctools = ft", "module-level"),
        ("lambda v: v + 1", "lambda v: v + 2", "lambda or comprehension outside any def"),
        ("return y + LIMIT", "return y + len(inner.__name__)", "closure variables"),
        ("return inner", "return [lambda: 0, inner][1]", "removes or renames"),  # added
    ],
)
def test_import_time_changes_take_the_subprocess_path(tmp_path, find, replace, why):
    activation = classify(mutant(find, replace), tmp_path)
    assert activation.mode is ExecutionPath.FRESH
    assert why in activation.why


DEFAULTS = textwrap.dedent(
    """\
    import functools


    @functools.lru_cache
    def cached(maxsize=128, *, typed=False):
        return maxsize, typed


    class Store:
        def get(self, key, default=None):
            return default


    def calls():
        return cached.__wrapped__()
    """
)


@pytest.fixture
def defaults_module(tmp_path) -> Iterator[object]:
    yield from imported(tmp_path, DEFAULTS)


@pytest.mark.parametrize(
    ("find", "replace", "call", "before", "after", "marker"),
    [
        ("maxsize=128", "maxsize=129", "calls", (128, False), (129, False), "cached"),
        ("typed=False", "typed=True", "calls", (128, False), (128, True), "cached"),
        ("default=None", 'default=""', "get", None, "", "Store.get"),
    ],
)
def test_new_literal_defaults_are_set_on_the_live_function_and_undone(
    tmp_path, defaults_module, find, replace, call, before, after, marker
):
    """Issue 10 (speed): a default-value mutant of a module- or class-level def used to
    need a fresh interpreter; the fork sets the live function's defaults instead, and
    its evidence marker fires when the function runs."""
    run = {"calls": defaults_module.calls, "get": lambda: defaults_module.Store().get("k")}[call]
    mutated = mutant(find, replace, DEFAULTS)
    activation = classify(mutated, tmp_path)
    assert activation.mode is ExecutionPath.FORK, activation.why
    seen = install_marker()
    applied = activate([f.to_message() for f in activation.files], LiveFunctions())
    assert seen == set()
    assert run() == after
    assert seen == {marker}
    applied.undo()
    assert run() == before


def test_a_module_served_after_activation_has_the_new_defaults(tmp_path):
    """Issue 10 (speed): the served module is the whole mutated module, defaults included
    (a narrowed tree would keep the original module code, which makes them)."""
    (tmp_path / "pkg_mod.py").write_text(DEFAULTS, encoding="utf-8")
    activation = classify(mutant("maxsize=128", "maxsize=7", DEFAULTS), tmp_path)
    seen = install_marker()
    applied = activate([f.to_message() for f in activation.files], LiveFunctions())
    sys.path.insert(0, str(tmp_path))
    try:
        assert importlib.import_module("pkg_mod").calls() == (7, False)
        assert seen == {"cached"}
    finally:
        applied.undo()
        sys.path.remove(str(tmp_path))
        sys.modules.pop("pkg_mod", None)
        delattr(builtins, MARKER)


def test_a_live_function_with_other_defaults_is_an_activation_error(tmp_path, defaults_module):
    defaults_module.Store.get.__defaults__ = (None, 1)  # not what the original text makes
    activation = classify(mutant("default=None", "default=0", DEFAULTS), tmp_path)
    with pytest.raises(ActivationError, match="other default values"):
        activate([f.to_message() for f in activation.files], LiveFunctions())
    assert defaults_module.Store.get.__defaults__ == (None, 1)  # nothing half-applied


def test_a_literal_of_another_type_is_a_real_change(tmp_path):
    # (1,) == (True,) in Python: the comparison must look at types.
    source = "def f():\n    return 1\n"
    activation = classify(mutant("return 1", "return True", source), tmp_path)
    assert activation.mode is ExecutionPath.FORK
    assert [s.qualname for s in activation.files[0].swaps] == ["f"]


def test_mutated_text_that_does_not_compile_is_unviable(tmp_path):
    with pytest.raises(Unviable, match="does not compile"):
        classify(mutant("return a + b", "return a +"), tmp_path)


def imported(tmp_path: Path, source: str) -> Iterator[object]:
    """`source` imported as a real module from tmp_path, removed again afterwards."""
    (tmp_path / "pkg_mod.py").write_text(source, encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    try:
        yield importlib.import_module("pkg_mod")
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("pkg_mod", None)
        if hasattr(builtins, MARKER):
            delattr(builtins, MARKER)


@pytest.fixture
def module(tmp_path) -> Iterator[object]:
    yield from imported(tmp_path, SOURCE)


def swap(tmp_path: Path, find: str, replace: str):
    activation = classify(mutant(find, replace), tmp_path)
    assert activation.mode is ExecutionPath.FORK
    seen = install_marker()
    applied = activate([f.to_message() for f in activation.files], LiveFunctions())
    return applied, seen


def test_swapping_reaches_methods_wrappers_and_closures_alive_before_it(tmp_path, module):
    cases = [
        ("return a + b", "return a - b", lambda m: m.add(5, 2), 7, 3),
        ("return [i * x", "return [i + x", lambda m: m.Shape().area(3), [0, 3], [3, 4]),
        ("-v)", "v)", lambda m: m.Shape.rank([1, 3, 2]), [3, 2, 1], [1, 2, 3]),
        ("cls.sides\n", "cls.sides * 2\n", lambda m: m.Shape.make(), 4, 8),
        ("[i * x for i in range(2)]", "None", lambda m: m.Shape().area(3), [0, 3], None),
        ("key=lambda v: -v", "key=None", lambda m: m.Shape.rank([1, 3, 2]), [3, 2, 1], [1, 2, 3]),
        ("return y + LIMIT", "return y - LIMIT", lambda m: m.INNER(10), 13, 7),
    ]
    for find, replace, call, before, after in cases:
        assert call(module) == before
        applied, seen = swap(tmp_path, find, replace)
        assert call(module) == after, find
        assert seen, f"no evidence marker fired for {find!r}"
        applied.undo()
        assert call(module) == before


def test_evidence_fires_only_when_the_mutated_function_runs(tmp_path, module):
    applied, seen = swap(tmp_path, "return a + b", "return a - b")
    module.Shape.make()
    assert seen == set()
    module.add(1, 1)
    # Entered, and the changed statement reached (lab/prepare/instrument.py).
    assert seen == {"add", "add#reached"}
    assert module.add.__doc__ == "Docstring stays the docstring."
    applied.undo()


def test_tracebacks_show_the_mutated_source(tmp_path, module):
    applied, _ = swap(tmp_path, "return a + b", "return a / 0")
    with pytest.raises(ZeroDivisionError) as info:
        module.add(1, 2)
    assert "return a / 0" in str(info.traceback[-1].statement)
    applied.undo()


def test_a_live_function_compiled_from_other_text_needs_the_mutant_on_disk(tmp_path, module):
    """Live functions of that name whose code is not the text's (a decorator such as
    typeguard's @typechecked compiled them again, instrumented): no swap, the mutant
    runs written on disk. Guards the `error` inflect 7.4.0's mutants got."""
    recompiled = SOURCE.replace("return a + b", "return b + a")
    activation = classify(mutant("return b + a", "return b - a", recompiled), tmp_path)
    with pytest.raises(RecompiledFunction, match=r"add in pkg_mod\.py is a copy compiled again"):
        activate([f.to_message() for f in activation.files], LiveFunctions())
    assert module.add(5, 2) == 7  # nothing half-applied


def test_a_function_no_live_module_defines_is_an_error(tmp_path, module):
    renamed = SOURCE.replace("def add(a, b=1):", "def plus(a, b=1):")
    activation = classify(mutant("return a + b", "return a - b", renamed), tmp_path)
    with pytest.raises(ActivationError, match="no live function plus") as raised:
        activate([f.to_message() for f in activation.files], LiveFunctions())
    assert not isinstance(raised.value, NeedsFileOnDisk)
    assert module.add(5, 2) == 7


def test_a_module_imported_after_activation_is_served_mutated_from_memory(tmp_path):
    (tmp_path / "pkg_mod.py").write_text(SOURCE, encoding="utf-8")
    activation = classify(mutant("return a + b", "return a * b"), tmp_path)
    seen = install_marker()
    applied = activate([f.to_message() for f in activation.files], LiveFunctions())
    sys.path.insert(0, str(tmp_path))
    try:
        lazily = importlib.import_module("pkg_mod")
        assert lazily.add(5, 2) == 10
        assert seen == {"add", "add#reached"}
        assert not (tmp_path / "__pycache__").exists()
    finally:
        applied.undo()
        sys.path.remove(str(tmp_path))
        sys.modules.pop("pkg_mod", None)
        delattr(builtins, MARKER)


CLOSURES = textwrap.dedent(
    """\
    def field(name, default=None):
        def getter(host):
            return host.get(name, default)

        def setter(host, value):
            host[name] = value

        return getter, setter


    GET, SET = field("size")
    """
)


def test_dropping_closure_references_keeps_the_closure_layout_and_the_fork_path(tmp_path):
    """Issue 10, cause 1: `replace ... with None` in a closure used to need a fresh run."""
    activation = classify(
        mutant("return host.get(name, default)", "return None", CLOSURES), tmp_path
    )
    assert activation.mode is ExecutionPath.FORK, activation.why
    (file,) = activation.files
    tree = marshal.loads(base64.b64decode(file.to_message().tree))
    original = compile(CLOSURES, str(tmp_path / "pkg_mod.py"), "exec")
    for swap in file.swaps:
        before, after = code_at(original, swap.at), code_at(tree, swap.at)
        assert (after.co_freevars, after.co_cellvars) == (before.co_freevars, before.co_cellvars)
    assert [s.qualname for s in file.swaps] == ["field", "field.<locals>.getter"]


def test_a_closure_alive_since_import_runs_the_mutant_with_evidence(tmp_path):
    """Issue 10, cause 1: the live closure is swapped, and only the mutated code runs."""
    (tmp_path / "pkg_mod.py").write_text(CLOSURES, encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    try:
        live = importlib.import_module("pkg_mod")
        assert live.GET({"size": 3}) == 3
        activation = classify(
            mutant("return host.get(name, default)", "return None", CLOSURES), tmp_path
        )
        seen = install_marker()
        applied = activate([f.to_message() for f in activation.files], LiveFunctions())
        assert live.GET({"size": 3}) is None
        assert seen == {"field.<locals>.getter", "field.<locals>.getter#reached"}
        made_after = live.field("kind")[0]  # closures created after activation are mutated too
        assert made_after({"kind": 1}) is None
        applied.undo()
        assert live.GET({"size": 3}) == 3
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("pkg_mod", None)
        if hasattr(builtins, MARKER):
            delattr(builtins, MARKER)


@pytest.mark.parametrize(
    ("find", "replace"),
    [
        ("return host.get(name, default)", "return getter"),  # a new free variable
        ("host[name] = value", "name = value"),  # the name becomes the setter's own local
    ],
)
def test_closure_layouts_that_cannot_be_kept_take_the_subprocess_path(tmp_path, find, replace):
    activation = classify(mutant(find, replace, CLOSURES), tmp_path)
    assert activation.mode is ExecutionPath.FRESH
    assert "closure variables" in activation.why


COUNTERS = textwrap.dedent(
    """\
    def counter():
        hits = misses = 0

        def bump():
            nonlocal hits
            hits += 1

        info = lambda: (hits, misses)
        return bump, info


    BUMP, INFO = counter()
    """
)


def test_a_lambda_alive_since_import_that_drops_a_reference_is_swapped(tmp_path):
    """Issue 10, cause 1: cachetools' `cache_info = lambda: info(hits, misses)` mutants."""
    (tmp_path / "pkg_mod.py").write_text(COUNTERS, encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    try:
        live = importlib.import_module("pkg_mod")
        activation = classify(mutant("(hits, misses)", "(hits, None)", COUNTERS), tmp_path)
        assert activation.mode is ExecutionPath.FORK, activation.why
        seen = install_marker()
        applied = activate([f.to_message() for f in activation.files], LiveFunctions())
        live.BUMP()
        assert live.INFO() == (1, None)
        assert seen == set()  # the marker is in counter(), which ran at import
        applied.undo()
        assert live.INFO() == (1, 0)
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("pkg_mod", None)
        if hasattr(builtins, MARKER):
            delattr(builtins, MARKER)


def test_two_lambdas_on_one_line_dropping_a_reference_stay_fresh(tmp_path):
    source = COUNTERS.replace(
        "info = lambda: (hits, misses)", "info = lambda: (hits, misses), lambda: 0"
    )
    activation = classify(mutant("(hits, misses)", "(hits, None)", source), tmp_path)
    assert activation.mode is ExecutionPath.FRESH
    assert "closure variables" in activation.why


def test_a_change_below_a_removed_lambda_takes_the_subprocess_path(tmp_path):
    """Regression guard (issue 10, lambdas removed on the fork path): below a function a
    lambda was removed from, the mutated code objects no longer sit where the original's
    do, so a function changed there would be swapped against the wrong original. A
    comprehension there is not swapped (keys.py's `typedkey` keeps the fork path)."""
    source = textwrap.dedent(
        """\
        def factory(k):
            key = lambda v: v + k
            def inner(y):
                return y * 2
            return key, inner
        """
    )
    mutated = source.replace("lambda v: v + k", "None").replace("y * 2", "y * 3")
    change = FileChange("pkg_mod.py", source, mutated, Where("m.py", 1))
    activation = classify(Mutant("m", "m", (change,)), tmp_path)
    assert activation.mode is ExecutionPath.FRESH
    assert "after removing a nested function, lambda or comprehension" in activation.why
    alone = source.replace("lambda v: v + k", "None")
    only = FileChange("pkg_mod.py", source, alone, Where("m.py", 1))
    assert classify(Mutant("m", "m", (only,)), tmp_path).mode is ExecutionPath.FORK
    two = "def typed(args, kw):\n    return tuple(type(v) for v in args) + tuple(v for v in kw)\n"
    first_gone = FileChange(
        "pkg_mod.py", two, two.replace("type(v) for v in args", "None"), Where("m.py", 1)
    )
    assert classify(Mutant("m", "m", (first_gone,)), tmp_path).mode is ExecutionPath.FORK
