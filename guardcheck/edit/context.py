"""What every stage of applying an edit shares: the failure type and the edit's context."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

from guardcheck.edit.parsed import ParsedModule, Range
from guardcheck.model import Edit

_SNIPPET_WIDTH = 80


class EditFailure(Exception):
    """An edit that cannot be applied.

    kind: "scope" (scope not found), "stale" (find matches nothing), "ambiguous"
    (several matches, no occurrence), "occurrence" (occurrence out of range),
    "pattern" (find/replace not parseable or not expressible, replace uses an
    unbound $VAR or a bare `...`, or replace does not fit the match),
    "transform" (transform import/instantiate/run failed), "file" (the source
    itself does not parse).
    """

    def __init__(self, kind: str, message: str, fix: str, details: tuple[str, ...] = ()) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind = kind
        self.message = message
        self.fix = fix
        self.details = details


@dataclass(frozen=True)
class Context:
    edit: Edit
    parsed: ParsedModule
    scopes: tuple[Range, ...]  # the module, or every def/class with the scope's name

    @property
    def searched(self) -> str:
        scope = f" (scope {self.edit.scope})" if self.edit.scope else ""
        return f"{self.edit.file}{scope}"

    def snippet_at(self, node: cst.CSTNode) -> str:
        return f"{self.edit.file}:{self.parsed.line_of(node)} {snippet(self.parsed, node)}"


def snippet(parsed: ParsedModule, node: cst.CSTNode) -> str:
    if isinstance(node, cst.BaseExpression):
        text = parsed.module.code_for_node(node)
    else:  # a statement: its first line (the code, without the comments above it)
        text = parsed.source.splitlines()[parsed.line_of(node) - 1]
    text = " ".join(text.split())
    return text if len(text) <= _SNIPPET_WIDTH else text[: _SNIPPET_WIDTH - 3] + "..."
