"""The sweep's mutant set is exactly what `mutmut run` generates, mutant for mutant."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from support.mutmut_oracle import mutmut_dumps, sweep_dumps

from guardcheck.splices import apply_splices
from guardcheck.sweep import generate

REPO = Path(__file__).resolve().parents[2]

# Every operator mutmut has, in the places its skip rules and its rendering care
# about: methods, nested functions, indented multi-line code, `;`, match, pragmas.
ZOO = '''\
"""Module docstring."""
import copy
import enum
import logging

LIMIT = 10  # module level: mutmut makes no mutants here
log = logging.getLogger(__name__)


def numbers(x: int = 3, y: float = 1.5, z: str = "d") -> complex:
    return x + 2 - 0.5 * 3j // 1e999 + 0x10 + 1_000


def strings(name):
    a = "Hello" + r"Raw\\d" + b"bytes".decode() + f"{name} x" + "\\x41bc" + "ünïcode"
    b = """triple"""
    c = "con" "cat"
    return a.lower().upper().lstrip().rstrip().find("x") + a.rfind("y"), b, c


def names(flag=True):
    value = copy.deepcopy(flag)
    if value is None or value is not False and flag in [1] and flag not in (2,):
        return not value
    return ~3


def assignments(items):
    total = 0
    total += 1; count = None
    total -= 2
    total *= 3
    total /= 4
    total //= 5
    total %= 6
    total **= 7
    total <<= 1
    total >>= 1
    total &= 1
    total |= 2
    total ^= 3
    annotated: int = 4
    bare: int
    return total, count, annotated


def calls(data, *args, **kwargs):
    d = dict(a=1, b=2)
    e = dict(d, c=3)
    parts = data.split(",", 1) + data.rsplit(maxsplit=2) + data.split()
    first = len(data) + isinstance(data, str)
    call = max(
        data,
        *args,
        key=len,
        **kwargs,
    )
    return d, e, parts, first, call, sorted(data, reverse=True)


def loops(items):
    for item in items:
        if item > 3:
            break
        elif item < 0:
            continue
        while item <= 2 and item >= 1 or item != 0 or item == 5:
            item = item << 1 | 2 & 3 ^ 4 >> 1
    return [i % 2 for i in items if i], lambda: None, lambda x: x + 1


def branching(a, b):
    x = a if a > b else b
    y = (a or b) if not a else -b
    match a:
        case 1:
            return x
        case [first, *rest]:
            return first
        case {"k": v}:
            return v
        case _:
            return y


def nested():
    def inner(z):
        return z * 2

    class Local:
        attr = 1

        def method(self):
            return self.attr + 1

    return inner(1), Local().method()


async def coroutine(a):
    await a
    async for x in a:
        yield x + 1


def pragmas(a):
    b = a + 1  # pragma: no mutate
    c = (a +
         2)  # pragma: no mutate
    if a > 3:  # pragma: no mutate block
        b = b + 4
        c = c - 5
    # pragma: no mutate start
    d = a * 6
    # pragma: no mutate end
    return b, c, d + 7


def assertions(x):
    assert x > 0, "x must be positive: %d" % x
    log.info("value %s", x + 1)
    return x


@decorated
def decorated_function(x):
    return x + 1


class Color(enum.Enum):
    RED = 1

    def _generate_next_value_(name, start, count, last):
        return count + 1

    def describe(self):
        return self.name + "!"


class Gate:
    """A class docstring."""

    limit = 3  # a class attribute: mutmut makes no mutants here

    def __init__(self, db):
        self.db = db
        self.streak = 0

    def __repr__(self):
        return f"Gate({self.streak!r})" + "x"

    @staticmethod
    def helper(a, b=None):
        return a - b

    @classmethod
    def build(cls):
        return cls(None)

    @property
    def skipped(self):
        return self.streak + 1

    def __getattribute__(self, name):
        return object.__getattribute__(self, name + "")

    def escalate(self, chat_id: str) -> float:
        message = (
            "streak "
            + str(self.streak)
            + " for "
            + chat_id
        )
        self.streak = self.db.bump(chat_id, reason="timeout",
                                   extra=[1,
                                          2])
        return min(300 * 3 ** (self.streak - 1), 3600), message

    class Inner:
        def deep(self):
            return 1 + 1
'''

CRLF = "def f(a):\r\n    return a + 1 if a else [\r\n        2,\r\n    ]\r\n"
NO_FINAL_NEWLINE = "def f(a):\n    return a < 1"
TABS = "class K:\n\tdef m(self, a):\n\t\tif a:\n\t\t\treturn (a +\n\t\t\t\t1)\n\t\treturn -a\n"


def _compare(root: Path, path: str) -> tuple[int, int]:
    source = (root / path).read_text()
    sweep = generate(root, [path], arid_rules=())
    count, mutmut = mutmut_dumps(path, source)
    assert sweep_dumps(sweep.mutants, source) == mutmut, path
    return len(sweep.mutants), count


@pytest.mark.usefixtures("mutmut_config")
@pytest.mark.parametrize(
    "source",
    [ZOO, CRLF, NO_FINAL_NEWLINE, TABS],
    ids=["zoo", "crlf", "no-final-newline", "tabs"],
)
def test_fixture_mutants_are_mutmuts_mutants(write_tree, source):
    root = write_tree({"pkg/mod.py": source})
    ours, theirs = _compare(root, "pkg/mod.py")
    assert ours == theirs
    assert ours > 0


@pytest.mark.usefixtures("mutmut_config")
def test_target_app_mutants_are_mutmuts_mutants():
    files = sorted(p.relative_to(REPO).as_posix() for p in (REPO / "target_app").rglob("*.py"))
    counts = {path: _compare(REPO, path) for path in files}
    assert all(ours == theirs for ours, theirs in counts.values()), counts
    assert sum(ours for ours, _ in counts.values()) > 500  # target_app has hundreds


def test_every_splice_reproduces_the_mutated_text(write_tree):
    root = write_tree({"pkg/mod.py": ZOO, "pkg/crlf.py": CRLF, "pkg/tabs.py": TABS})
    sweep = generate(root, ["pkg"], arid_rules=())
    assert len(sweep.mutants) > 100
    for mutant in sweep.mutants:
        (change,) = mutant.changes
        (splice,) = change.splices
        assert apply_splices(change.original, [splice]) == change.mutated
        assert change.original[splice.start : splice.end] != splice.replacement, mutant.id
        compile(change.mutated, change.path, "exec")


def test_pragmas_skip_what_mutmut_skips_and_are_counted(write_tree):
    root = write_tree({"pkg/mod.py": ZOO})
    honoured = generate(root, ["pkg"], arid_rules=())
    lines = Counter(m.span.line for m in honoured.mutants)
    text = ZOO.splitlines()

    def line(code: str) -> int:
        return text.index(code) + 1

    assert lines[line("    b = a + 1  # pragma: no mutate")] == 0
    assert lines[line("        b = b + 4")] == 0  # inside `if ...:  # pragma: no mutate block`
    assert lines[line("    d = a * 6")] == 0  # between `no mutate start` and `end`
    assert lines[line("    return b, c, d + 7")] == 2  # after them: `+` and `7`
    # mutmut's rule: a pragma after a multi-line statement covers its first line only.
    assert lines[line("    c = (a +")] == 0
    assert lines[line("         2)  # pragma: no mutate")] == 1  # `2` to `3`
    assert honoured.skipped["pragma"] == 16
    skipped_lines = {int(mutant_id.split(":")[1]) for mutant_id, _ in honoured.skips}
    assert line("    d = a * 6") in skipped_lines
    assert {rule for _, rule in honoured.skips} == {"pragma"}
