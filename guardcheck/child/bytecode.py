"""Bytecode of the project and its tests, kept in guardcheck's output folder.

The lab starts pytest with PYTHONDONTWRITEBYTECODE, so nothing is written to
the user's tree or virtualenv, and what pytest imports as it starts (itself,
its plugins, the standard library) loads from the installed .pyc files. With
no cache at all, though, every fresh interpreter re-ran pytest's assertion
rewriting over every test module, and collecting took far longer than with a
cache (bench/README.md). So once our plugin is imported, which is before
any conftest.py or test module, bytecode is read and written under the folder the
lab names (the private copy drops the entries of files it refreshes).

`sys.pycache_prefix` applies to every import, though, and with a fresh output
folder it made Python compile from source whatever installed module came after
our plugin (pytest's entry-point plugins, coverage in the baseline, the tests'
own libraries) and write it into that folder, so each baseline worker compiled
coverage from source before its first test. So a finder placed just before the
standard one hands modules of the Python installation and its site-packages a
loader that reads their installed .pyc as if no prefix were set, and writes
none. A mutated module never lands in the folder: the import hook
(child/importhook.py) comes first, compiles it and writes nothing.
"""

from __future__ import annotations

import os
import site
import sys
import sysconfig
import types
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from importlib.machinery import ModuleSpec, PathFinder, SourceFileLoader

from guardcheck import messages


def keep_bytecode() -> None:
    folder = os.environ.get(messages.PYCACHE_ENV)
    if folder:
        installed = InstalledBytecode(installed_folders())  # sysconfig may import: before
        sys.pycache_prefix = folder  # first: no write may go next to a source file
        sys.dont_write_bytecode = False
        installed.install()


def installed_folders() -> list[str]:
    """Where this interpreter's standard library and installed packages live."""
    paths = sysconfig.get_paths()
    folders = [paths[name] for name in ("stdlib", "platstdlib", "purelib", "platlib")]
    folders += site.getsitepackages()
    if site.ENABLE_USER_SITE and site.USER_SITE:
        folders.append(site.USER_SITE)
    # Spelled both ways: a module's path is compared as found, without resolving links.
    spelled = [form for f in folders if f for form in (os.path.abspath(f), os.path.realpath(f))]
    return sorted({os.path.join(form, "") for form in spelled})


class InstalledBytecode:
    """A meta path finder: installed modules keep their own .pyc, read-only."""

    def __init__(self, folders: Sequence[str]) -> None:
        self.folders = tuple(folders)  # each ends with a separator

    def install(self) -> None:
        """Just before PathFinder: pytest's rewriter and our import hook still come first."""
        if any(isinstance(f, InstalledBytecode) for f in sys.meta_path):
            return
        at = next((i for i, f in enumerate(sys.meta_path) if f is PathFinder), len(sys.meta_path))
        sys.meta_path.insert(at, self)

    def installed(self, filename: str) -> bool:
        return os.path.abspath(filename).startswith(self.folders)

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None,
        target: types.ModuleType | None = None,
    ) -> ModuleSpec | None:
        spec = PathFinder.find_spec(fullname, path, target)
        loader = spec.loader if spec is not None else None
        if spec is None or type(loader) is not SourceFileLoader or spec.origin is None:
            return spec  # what PathFinder, next in line, would answer anyway
        if self.installed(spec.origin):
            spec.loader = InstalledLoader(loader.name, loader.path)
            with _no_prefix():
                spec.cached = spec.cached  # its own __pycache__, not the prefix folder
        return spec


class InstalledLoader(SourceFileLoader):
    """Loads as if no prefix were set and bytecode were never written."""

    def get_code(self, fullname: str) -> types.CodeType | None:
        with _no_prefix():
            return super().get_code(fullname)


@contextmanager
def _no_prefix() -> Iterator[None]:
    # Order matters for a thread importing meanwhile: writes go off before the prefix
    # does and come back after it, so nothing is ever written next to a source file.
    prefix, dont_write = sys.pycache_prefix, sys.dont_write_bytecode
    sys.dont_write_bytecode = True
    sys.pycache_prefix = None
    try:
        yield
    finally:
        sys.pycache_prefix = prefix
        sys.dont_write_bytecode = dont_write
