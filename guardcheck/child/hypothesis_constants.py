"""Hypothesis draws example values from the mutated source, as it would from the file.

Recent Hypothesis versions (6.131+) mix literals found in the project's own
modules into the values they generate: `constants_from_module` reads each
local module's file from disk. The mutant lives in memory, so without help a
property test would draw the original's constants: a boundary mutant
(`x <= 1000` -> `x <= 1001`) that plain pytest catches with the file written
by hand, because 1001 is then a drawn constant, survives here.

`see_mutated_constants` makes Hypothesis read the mutated text for the
mutated files, and forget what it already read from them. It relies on
Hypothesis internals (`providers.constants_from_module`, `_seen_modules`,
`_sys_modules_len`, `constants_ast._constants_from_source`); a version without
them has nothing to correct or is left alone, which `tests/child/` checks
against the pinned range.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
import types
from collections.abc import Callable, Mapping
from typing import Any

_PROVIDERS = "hypothesis.internal.conjecture.providers"
_CONSTANTS = "hypothesis.internal.constants_ast"


def see_mutated_constants(texts: Mapping[str, str]) -> bool:
    """Hypothesis, if imported, takes its local constants as from the files on disk with
    the mutant written into them: `texts` (real path -> mutated source) for the mutated
    files, and nothing from guardcheck's own modules, which are not the project's (an
    editable install of guardcheck looks local to Hypothesis).

    True when Hypothesis was patched; call it in the process that runs the tests,
    after the mutated modules are in place and before Hypothesis' plugin collects the
    constants (its pytest_collection_modifyitems) or the first `@given` test. What
    was computed before (in the host, from the original files) is computed again.
    """
    if "hypothesis" in sys.modules:  # its plugin imports these as it collects: first
        with contextlib.suppress(ImportError):
            importlib.import_module(_PROVIDERS)
    providers = sys.modules.get(_PROVIDERS)
    constants = sys.modules.get(_CONSTANTS)
    if providers is None or constants is None:
        return False
    read = getattr(providers, "constants_from_module", None)
    parse = getattr(constants, "_constants_from_source", None)
    seen = getattr(providers, "_seen_modules", None)
    known = getattr(providers, "_local_constants", None)
    if read is None or parse is None or not isinstance(seen, set) or known is None:
        return False
    providers.constants_from_module = _reading(dict(texts), read, parse)  # type: ignore[attr-defined]
    for kind in ("integers", "floats", "bytes", "strings"):
        getattr(known, kind).clear()
    seen.clear()
    providers._sys_modules_len = None  # type: ignore[attr-defined]
    return True


def _reading(
    texts: Mapping[str, str], read: Callable[..., Any], parse: Callable[..., Any]
) -> Callable[..., Any]:
    def constants_from_module(module: types.ModuleType, *, limit: bool = True) -> Any:
        if getattr(module, "__name__", "").partition(".")[0] == "guardcheck":
            return parse(b"", limit=limit)  # no constants
        text = texts.get(_real_file(module) or "")
        if text is None:
            return read(module, limit=limit)
        try:
            return parse(text.encode("utf-8"), limit=limit)
        except Exception:  # as Hypothesis itself does for a source it cannot read
            return read(module, limit=limit)

    return constants_from_module


def _real_file(module: object) -> str | None:
    filename = getattr(module, "__file__", None)
    return os.path.realpath(filename) if isinstance(filename, str) else None
