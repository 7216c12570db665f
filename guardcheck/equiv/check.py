"""One entry point for both modes: resolve, compare, and a result that renders itself."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from guardcheck.equiv.construction import compare_construction
from guardcheck.equiv.functions import FunctionReport, compare_functions, resolve_pair, user_hook
from guardcheck.equiv.report import function_json, function_text, stateful_json, stateful_text
from guardcheck.equiv.request import BACKENDS, EquivRequest
from guardcheck.equiv.stateful import DEFAULT_SEQUENCES, Machine, StatefulResult, compare_objects
from guardcheck.equiv.storage import hypothesis_files_outside_the_project
from guardcheck.errors import GuardcheckError


@dataclass(frozen=True)
class EquivResult:
    request: EquivRequest
    functions: FunctionReport | None = None
    stateful: StatefulResult | None = None

    @property
    def equal(self) -> bool:
        if self.functions is not None:
            return not self.functions.result.disagreements
        assert self.stateful is not None
        return self.stateful.equal

    def text(self) -> str:
        if self.functions is not None:
            return function_text(self.functions)
        assert self.stateful is not None
        return stateful_text(self.request.old, self.request.new, self.stateful)

    def as_json(self) -> dict[str, Any]:
        if self.functions is not None:
            return function_json(self.functions)
        assert self.stateful is not None
        return stateful_json(self.request.old, self.request.new, self.stateful)

    def json_text(self) -> str:
        return json.dumps(self.as_json(), indent=2, ensure_ascii=False)


def _validate(request: EquivRequest) -> None:
    if request.backend not in BACKENDS:
        raise GuardcheckError(f"--backend {request.backend}: choose one of {', '.join(BACKENDS)}")
    if request.examples is not None and request.examples < 1:
        raise GuardcheckError("--examples must be at least 1")
    if request.bound is not None and request.bound < 0:
        raise GuardcheckError("--bound must be 0 or more")
    if request.stateful and (request.assume or request.backend != "hypothesis"):
        raise GuardcheckError("--stateful takes neither --assume nor --backend crosshair")
    if request.methods and not request.stateful:
        raise GuardcheckError("--methods only applies with --stateful")


def check(request: EquivRequest) -> EquivResult:
    _validate(request)
    with hypothesis_files_outside_the_project():
        return _compare(request)


def _compare(request: EquivRequest) -> EquivResult:
    if not request.stateful:
        return EquivResult(request, functions=compare_functions(request))
    old, new, paths = resolve_pair(request)
    hooks = user_hook(request.strategy, paths, "--strategy")
    fresh_old, fresh_new = Machine(old.obj, new.obj, ()).fresh()
    built, why = compare_construction(old.obj, new.obj, fresh_old, fresh_new, request)
    if built is not None and built.result.disagreements:
        return EquivResult(request, stateful=StatefulResult(methods=[], built=built))
    result = compare_objects(
        old.obj,
        new.obj,
        methods=request.methods,
        hooks=hooks,
        sequences=request.examples or DEFAULT_SEQUENCES,
        max_steps=request.steps,
    )
    result.built = built
    result.notes += [why] if why else []
    return EquivResult(request, stateful=result)
