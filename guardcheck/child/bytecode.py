"""Bytecode of the project and its tests, kept in guardcheck's output folder.

The lab starts pytest with PYTHONDONTWRITEBYTECODE, so nothing is written to
the user's tree or virtualenv, and what pytest imports as it starts (itself,
its plugins, the standard library) loads from the installed .pyc files. With
no cache at all, though, every fresh interpreter re-ran pytest's assertion
rewriting over every test module: collecting target_app's tests took 1.5 s,
0.6 s with a cache. So once our plugin is imported, which is before any
conftest.py or test module, bytecode is read and written under the folder the
lab names (the private copy drops the entries of files it refreshes). Setting
the prefix for the whole process instead would recompile the installed
packages into it on a first run: measured +1.6 s a start, against +0.25 s.
A mutated module never lands there: the import hook compiles it and writes
nothing.
"""

from __future__ import annotations

import os
import sys

from guardcheck import messages


def keep_bytecode() -> None:
    folder = os.environ.get(messages.PYCACHE_ENV)
    if folder:
        sys.pycache_prefix = folder  # first: no write may go next to a source file
        sys.dont_write_bytecode = False
