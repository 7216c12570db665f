"""`# guardcheck: allow RULE[, RULE...] why` comments: the rules each line allows.

The comment must sit on the finding's line; text after the rule list is the
reason and is encouraged. An id that names no rule allows nothing, so a typo
leaves the finding visible rather than hiding it.
"""

from __future__ import annotations

import re

import libcst as cst

from guardcheck.lint.parsed import TestFile

MARKER = "guardcheck: allow"
# A comma-separated list of rule ids at the start of the comment's remainder.
_RULE_LIST = re.compile(r"\s*([a-z][a-z-]*(?:\s*,\s*[a-z][a-z-]*)*)")


def rules_in(comment: str) -> frozenset[str]:
    """The rule ids a comment's text allows (empty when it is not an allow comment)."""
    start = comment.find(MARKER)
    if start < 0:
        return frozenset()
    listed = _RULE_LIST.match(comment, start + len(MARKER))
    if listed is None:
        return frozenset()
    return frozenset(rule.strip() for rule in listed.group(1).split(","))


class _Comments(cst.CSTVisitor):
    def __init__(self, file: TestFile) -> None:
        self.file = file
        self.allowed: dict[int, set[str]] = {}

    def visit_Comment(self, node: cst.Comment) -> None:
        rules = rules_in(node.value)
        if rules:
            self.allowed.setdefault(self.file.line(node), set()).update(rules)


def allowed_by_line(file: TestFile) -> dict[int, set[str]]:
    comments = _Comments(file)
    file.module.visit(comments)
    return comments.allowed
