"""Which mutants change nothing but literal default values (lab/prepare/default_values.py)."""

from __future__ import annotations

import textwrap

import pytest

from guardcheck.lab.prepare.default_values import NewDefaults, changed_defaults

SOURCE = textwrap.dedent(
    """\
    import time

    def fifo(maxsize=128, typed=False):
        return maxsize, typed

    def timed(ttl=600, *, timer=time.monotonic, label="x"):
        return ttl, timer, label

    class Cache:
        def get(self, key, default=None):
            return default

        class Inner:
            @staticmethod
            def make(size=1):
                return size

    if True:
        def hidden(n=1):
            return n

    square = lambda x=2: x * x
    """
)


def changes(find: str, replace: str) -> tuple[NewDefaults, ...] | None:
    assert SOURCE.count(find) == 1, find
    return changed_defaults(SOURCE, SOURCE.replace(find, replace), None)


@pytest.mark.parametrize(
    ("find", "replace", "expected"),
    [
        ("maxsize=128", "maxsize=129", NewDefaults("fifo", 3, 2, ((0, 129),), ())),
        ("typed=False", "typed=True", NewDefaults("fifo", 3, 2, ((1, True),), ())),
        ('label="x"', 'label="XXxXX"', NewDefaults("timed", 6, 1, (), (("label", "XXxXX"),))),
        ("timer=time.monotonic", "timer=None", NewDefaults("timed", 6, 1, (), (("timer", None),))),
        ("ttl=600", "ttl=(1, -2.5)", NewDefaults("timed", 6, 1, ((0, (1, -2.5)),), ())),
        ("default=None", "default=''", NewDefaults("Cache.get", 10, 1, ((0, ""),), ())),
        # A decorated def's code starts at its first decorator's line.
        ("(size=1)", "(size=2)", NewDefaults("Cache.Inner.make", 14, 1, ((0, 2),), ())),
    ],
)
def test_a_literal_default_of_a_module_or_class_level_def(find, replace, expected):
    assert changes(find, replace) == (expected,)


@pytest.mark.parametrize(
    ("find", "replace"),
    [
        ("ttl=600", "ttl=time.time()"),  # not a literal: only the import can compute it
        ("return maxsize, typed", "return typed, maxsize"),  # the body too
        ("def fifo(maxsize=128, typed=False)", "def fifo(maxsize=128, typed=False, x=1)"),
        ("def fifo(maxsize=128", "def fifo(size=128"),  # a parameter renamed
        ("n=1", "n=2"),  # a def inside a module-level `if`
        ("x=2", "x=3"),  # a lambda at module level
        ("@staticmethod\n", "@classmethod\n"),  # a decorator
        ("import time", "import time as time"),  # anything else at module level
    ],
)
def test_anything_else_is_not_a_defaults_change(find, replace):
    assert changes(find, replace) is None


def test_a_change_of_two_defaults_gives_both_in_one_entry():
    mutated = SOURCE.replace("maxsize=128, typed=False", "maxsize=1, typed=True")
    assert changed_defaults(SOURCE, mutated, None) == (
        NewDefaults("fifo", 3, 2, ((0, 1), (1, True)), ()),
    )
