"""The escape hatch: a `transform` entry names a libcst.CSTTransformer in the project.

A catalogue with transforms is code guardcheck imports (as pytest imports
conftest.py). Whatever that code does, guardcheck must report it against the
entry, never die of it: the class is checked before anything of it is called,
and anything it raises (SystemExit included) becomes a "transform" problem.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

import libcst as cst
from libcst.metadata import MetadataWrapper

from guardcheck.edit.context import Context, EditFailure

_FIX = "set `transform` to 'package.module:ClassName', a libcst.CSTTransformer with no args"
T = TypeVar("T")


def run_transform(context: Context, spec: str, root: Path | None) -> str:
    """The module's code after the transformer ran on it (or on each scope node)."""
    transformer = _load_transformer(spec, context.edit.file, root)
    module = context.parsed.module
    if context.edit.scope and transformer.get_inherited_dependencies():
        raise EditFailure(
            "transform",
            f"transform {spec} needs metadata, which cannot be limited to "
            f"scope {context.edit.scope} (editing {context.edit.file})",
            "drop `scope` and restrict the transformer itself",
        )
    fix = "fix the transformer (it is run on the whole module, or on each scope node)"
    failed = f"transform {spec} failed on {context.searched}"
    if context.edit.scope:
        for start, _end in context.scopes:
            node = context.parsed.nodes[start]
            new = _guarded(lambda n=node: n.visit(transformer), failed, fix)
            module = module.deep_replace(node, new)  # type: ignore[arg-type]
    elif transformer.get_inherited_dependencies():
        module = _guarded(lambda: MetadataWrapper(module).visit(transformer), failed, fix)
    else:
        module = _guarded(lambda: module.visit(transformer), failed, fix)
    return _guarded(lambda: module.code, failed, fix)


def _guarded(call: Callable[[], T], failed: str, fix: str) -> T:
    """Run transform code; whatever it raises is the entry's problem (Ctrl-C still stops)."""
    try:
        return call()
    except KeyboardInterrupt:
        raise
    except EditFailure:
        raise
    except BaseException as exc:  # SystemExit from `sys:exit` must not end `guardcheck check`
        raise EditFailure("transform", f"{failed}: {type(exc).__name__}: {exc}", fix) from exc


def _load_transformer(spec: str, file: str, root: Path | None) -> cst.CSTTransformer:
    module_name, _, class_name = spec.partition(":")
    if not module_name or not class_name:
        raise EditFailure("transform", f"transform {spec!r} is not 'module:ClassName'", _FIX)
    cannot = f"cannot load transform {spec} (editing {file})"
    with _on_sys_path(root):
        module = _guarded(lambda: importlib.import_module(module_name), cannot, _FIX)
    factory = _guarded(lambda: getattr(module, class_name), cannot, _FIX)
    # Checked before it is called: `sys:exit` names a function that would end the process.
    if not (isinstance(factory, type) and issubclass(factory, cst.CSTTransformer)):
        what = factory.__name__ if isinstance(factory, type) else type(factory).__name__
        raise EditFailure(
            "transform",
            f"transform {spec} is a {what}, not a libcst.CSTTransformer subclass (editing {file})",
            _FIX,
        )
    return _guarded(factory, cannot, _FIX)


@contextmanager
def _on_sys_path(root: Path | None) -> Iterator[None]:
    entry = str(root) if root is not None else None
    if entry is None or entry in sys.path:
        yield
        return
    sys.path.insert(0, entry)
    try:
        yield
    finally:
        sys.path.remove(entry)
