"""lab/prepare/instrument.py: compiling only the changed statements gives the whole module's code.

Regression for issue 10 (parent per-mutant work): classification parsed and compiled
every mutated module twice more (~25 ms a mutant on target_app's run.py); it now
recompiles only the top-level statements the change touches, which must give exactly
the code objects a whole compile gives.
"""

from __future__ import annotations

import ast
import textwrap
import types

import pytest

from guardcheck.child.codeswap import nested
from guardcheck.lab.prepare.instrument import Part, instrument, recompile, touched_part

SOURCE = textwrap.dedent(
    '''\
    """A module with imports a method calls through, decorators and a class."""
    from __future__ import annotations

    import functools
    import time

    try:
        import json
    except ImportError:  # pragma: no cover
        json = None


    def stamp(label: str) -> str:
        return f"{label}@{time.time()}"


    @functools.cache
    def dumped(value):
        return json.dumps(value)


    class Clock:
        def now(self):
            return time.monotonic() + 0

        def later(self, by=1):
            return [self.now() + by for _ in range(2)]
    '''
)
FILENAME = "/project/pkg/clock.py"


def flat(code: types.CodeType) -> list[tuple[object, ...]]:
    """Everything a child runs or a traceback shows, for the whole tree."""
    own = [c for c in code.co_consts if not isinstance(c, types.CodeType)]
    row = (code.co_qualname, code.co_code, code.co_names, code.co_freevars, code.co_cellvars)
    row += (tuple(code.co_lines()), code.co_exceptiontable, tuple(map(repr, own)))
    return [row, *(r for inner in nested(code) for r in flat(inner))]


def marked_function(tree: types.CodeType, qualname: str) -> types.CodeType:
    found = [c for c in _walk(tree) if c.co_qualname == qualname]
    assert len(found) == 1
    return found[0]


def _walk(code: types.CodeType):
    yield code
    for inner in nested(code):
        yield from _walk(inner)


@pytest.mark.parametrize(
    ("find", "replace", "qualname"),
    [
        ("time.time()", "time.time() + 1", "stamp"),
        ("json.dumps(value)", "None", "dumped"),
        ("time.monotonic() + 0", "time.monotonic() + 1", "Clock.now"),
        ("self.now() + by", "self.now() - by", "Clock.later"),
        ('return f"{label}', 'return f"\\n\\n{label}', "stamp"),  # more lines after it
    ],
)
def test_recompiling_the_touched_statement_equals_a_whole_compile(find, replace, qualname):
    mutated = SOURCE.replace(find, replace)
    compiled = compile(mutated, FILENAME, "exec", dont_inherit=True)
    marked = [marked_function(compiled, qualname)]
    part = touched_part(SOURCE, mutated, FILENAME, compiled)
    assert not part.whole
    instrument(part, marked)
    whole = Part(ast.parse(mutated, FILENAME), whole=True)
    instrument(whole, marked)
    narrow, wide = recompile(part, compiled, FILENAME), recompile(whole, compiled, FILENAME)
    assert narrow is not None
    assert wide is not None
    assert flat(narrow) == flat(wide)
    assert flat(narrow) != flat(compiled)  # the marker is in
