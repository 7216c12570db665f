"""What counts as a use of an old name: libcst references, allowed places, assertion counts."""

from __future__ import annotations

import ast
import textwrap

from guardcheck.refactor.checks.assertions import count_assertions
from guardcheck.refactor.checks.moves import allowed, refers_to
from guardcheck.refactor.moves_file import Move
from guardcheck.refactor.references import scan

RUNNER = """
from relay.runner import _cooldown_seconds as old_cooldown
from unittest import mock


class Relay:
    _running_agents = legacy("_running_agents")  # _running_agents in a comment

    def busy(self):
        return list(self._running_agents)


def test_patches(monkeypatch):
    monkeypatch.setattr("relay.runner._cooldown_seconds", lambda s: 0)
    with mock.patch.object(Relay, "_running_agents", {}):
        old_cooldown(1)
"""


def references(tmp_path, text=RUNNER, name="relay/x.py"):
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return scan(tmp_path, path)


def move(**fields):
    return Move(
        old=fields.get("old", "Relay._running_agents"),
        new=None,
        allowed_in=fields.get("allowed_in", ()),
        view=None,
        reference="builtins:dict",
        strategy=None,
        methods=None,
        examples=None,
        line=1,
    )


def test_old_name_references_are_code_not_comments_or_strings(tmp_path):
    found = [r for r in references(tmp_path) if refers_to(r, "Relay._running_agents")]
    assert [(r.kind, r.line, r.enclosing) for r in found] == [
        ("name", 7, "Relay._running_agents"),
        ("attribute", 10, "Relay.busy"),
    ]


def test_adapters_are_allowed_by_qualified_name_or_by_file(tmp_path):
    found = [r for r in references(tmp_path) if refers_to(r, "Relay._running_agents")]
    only_definition = move(allowed_in=("Relay._running_agents",))
    assert [r.enclosing for r in found if not allowed(r, only_definition)] == ["Relay.busy"]
    whole_file = move(allowed_in=("relay/",))
    assert [r for r in found if not allowed(r, whole_file)] == []


def test_imports_names_and_patch_targets_resolve_to_qualified_names(tmp_path):
    found = references(tmp_path)
    uses = [(r.kind, r.line) for r in found if r.stands_for("relay.runner._cooldown_seconds")]
    assert uses == [("import", 2), ("patch target", 14), ("call", 16), ("name", 16)]
    (call,) = (r for r in found if r.kind == "call" and r.line == 16)
    assert call.call is not None
    assert (call.call.positional, call.call.keywords, call.call.unpacks) == (1, frozenset(), False)
    patched = [r for r in found if r.stands_for("relay.x.Relay._running_agents")]
    assert [(r.kind, r.line) for r in patched if r.kind == "patch target"] == [("patch target", 15)]


def test_relative_imports_resolve_against_the_package(tmp_path):
    found = references(tmp_path, "from .runner import Relay\n", "relay/sub/mod.py")
    assert [sorted(r.qualified) for r in found] == [["relay.sub.runner.Relay"]]


def test_assertions_count_asserts_raises_and_assert_methods():
    tree = ast.parse(
        textwrap.dedent("""
        def test_x(spy):
            assert 1
            with pytest.raises(ValueError):
                f()
            spy.assert_called_once_with(2)
            pytest.warns(UserWarning, g)
            helper()
    """)
    )
    assert count_assertions(tree.body[0]) == 4
