"""Mutated files whose module was imported before a fresh run could serve the mutant.

A fresh run serves the mutated text through an import hook installed when pytest
loads `-p guardcheck.child.freshrun`. Whatever was imported before that came from
the file as it was: pytest's own dependencies (a project that is pluggy, iniconfig
or packaging), modules a `.pth` file imports at interpreter start, and everything
the warm zygote imported before it forked the run. A run in which such a module
holds the original proves nothing about the mutant; a new interpreter started with
the mutant written into the file imports the mutant at its start, as by hand.
"""

from __future__ import annotations

import os
import sys
import types
from collections.abc import Iterable


def modules_from(paths: Iterable[str]) -> dict[str, types.ModuleType]:
    """Real path -> the module in `sys.modules` loaded from it, for those of `paths`
    (real paths of .py files) that one was."""
    wanted = set(paths)
    found: dict[str, types.ModuleType] = {}
    for module in list(sys.modules.values()):
        filename = getattr(module, "__file__", None)
        if isinstance(filename, str) and filename.endswith(".py"):
            real = os.path.realpath(filename)
            if real in wanted:
                found.setdefault(real, module)
    return found


def imported_from(paths: Iterable[str]) -> list[str]:
    """Those of `paths` (real paths) that a module in `sys.modules` was loaded from."""
    return sorted(modules_from(paths))


def not_served_reason(paths: list[str]) -> str:
    names = ", ".join(paths)
    return (
        f"{names} was imported before guardcheck could serve the mutant (at interpreter "
        "start, by pytest itself or a .pth file), so the tests ran the original"
    )


class ImportsOf:
    """Which of `paths` a module has been imported from so far, looked up again only once
    more modules are loaded: with a mutant written on disk, importing it is its evidence."""

    def __init__(self, paths: Iterable[str]) -> None:
        self.paths = list(paths)
        self.found: list[str] = []
        self._modules = -1  # len(sys.modules) at the last look

    def seen(self) -> list[str]:
        if self.paths and len(self.found) < len(self.paths) and len(sys.modules) != self._modules:
            self._modules = len(sys.modules)
            self.found = imported_from(self.paths)
        return self.found
