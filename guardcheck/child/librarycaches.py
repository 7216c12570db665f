"""Caches of the tests' libraries, built once in the host instead of in every child.

A plain pytest session builds such a cache at the first test that needs it and
keeps it for every later test. The host runs no test, so each mutant's child,
forked from it, built it again. freezegun is the one measured: at each
`freeze_time` it looks for the real `datetime`/`time` objects in the attributes
of every loaded module, through a per-module cache checked against the module's
`dir()`. Filled in each child, the cache took 23% of itsdangerous's sweep (its
timed tests freeze time; one failing test cost 80-160 ms in a child against 10 ms).

Filling it here changes nothing a test can see: each entry says which attributes
of a module hold those objects, and freezegun checks the entry against the
module as it is before using it, so a module changed since is looked at again,
as in a session where an earlier test had frozen time first. Modules whose
attribute lookups could run code (a module-level `__getattr__` or `__dir__`, a
module subclass) are left for the child, where the first `freeze_time` looks at
them as it would by hand. freezegun's cache is its internals: with another
shape, nothing is filled.
"""

from __future__ import annotations

import contextlib
import sys
import types


def warm_freezegun() -> None:
    api = sys.modules.get("freezegun.api")  # only if the tests' modules imported it
    fill = getattr(api, "_get_cached_module_attributes", None)
    if not callable(fill):
        return
    for module in list(sys.modules.values()):
        if type(module) is not types.ModuleType:
            continue
        namespace = vars(module)
        if "__getattr__" in namespace or "__dir__" in namespace:
            continue
        with contextlib.suppress(Exception):
            fill(module)
