"""`equiv --stateful`: call sequences on two objects, compared step by step."""

from __future__ import annotations

from guardcheck.equiv.check import check
from guardcheck.equiv.request import EquivRequest


def run(root, old, new, **options):
    return check(EquivRequest(root=root, old=old, new=new, stateful=True, **options))


def test_dict_against_itself_does_not_diverge(gates):
    result = run(gates, "builtins:dict", "builtins:dict", examples=200)
    assert result.equal
    assert result.stateful.sequences == 200
    assert {"pop", "popitem", "setdefault", "__eq__", "update"} <= set(result.stateful.methods)


def test_pop_of_a_missing_key_returning_none_is_the_shortest_divergence(gates):
    result = run(gates, "builtins:dict", "gatekit.views:make_lenient_view")
    divergence = result.stateful.divergence
    assert not result.equal
    assert [step.method for step in divergence.steps] == ["pop"]
    assert divergence.old.key == "KeyError"
    assert not divergence.new.raised
    assert divergence.new.value is None
    assert "x.pop('a')" in result.text()


def test_legacy_view_drops_a_key_set_to_the_field_default(gates):
    """target_app's legacy `_pending_messages` view: a key whose value equals the field's
    default (None) reads as absent, where a dict keeps it."""
    result = run(gates, "builtins:dict", "gatekit.views:make_legacy_view")
    divergence = result.stateful.divergence
    assert len(divergence.steps) == 1
    assert divergence.what == "state after"
    assert divergence.steps[0].args[-1] is None or divergence.steps[0].method == "setdefault"
    assert divergence.new.value == []


def test_legacy_view_iterates_in_session_order_not_insertion_order(gates):
    """With values the view can hold, what is left is order: re-inserting a key moves it
    to the end of a dict but not of the view (sessions keep their creation order)."""
    result = run(
        gates,
        "builtins:dict",
        "gatekit.views:make_legacy_view",
        strategy="gatekit.hooks:non_default_text",
        methods=("__setitem__", "__delitem__", "__iter__", "__len__"),
        examples=2_000,
    )
    divergence = result.stateful.divergence
    assert not result.equal
    assert divergence.what == "state after"
    old_keys = [key for key, _ in divergence.old.value]
    new_keys = [key for key, _ in divergence.new.value]
    assert sorted(old_keys) == sorted(new_keys)
    assert old_keys != new_keys
    assert [step.method for step in divergence.steps][-1] == "__setitem__"


def test_methods_not_shared_are_a_usage_error(gates):
    import pytest

    from guardcheck.errors import GuardcheckError

    with pytest.raises(GuardcheckError, match="not supported by both"):
        run(gates, "builtins:dict", "gatekit.views:make_lenient_view", methods=("fromkeys_x",))


def test_a_changed_dataclass_field_default_is_found_when_built(gates):
    """Issue 23, point 2, for --stateful: a field default no method reads (`retries`) used
    to pass every call sequence; the builds are compared first, leaving each field out."""
    result = run(
        gates, "gatekit.settings:Journal", "gatekit.settings:JournalMoreRetries", examples=50
    )
    assert not result.equal
    [found] = result.stateful.built.result.disagreements
    assert found.omitted == ("retries",)
    assert found.old.value["retries"] == 3
    assert found.new.value["retries"] == 5
    text = result.text()
    assert "factory (sep: str = '-', rows: list[str] = list(), retries: int = 3)" in text
    assert "NEW factory (sep: str = '-', rows: list[str] = list(), retries: int = 5)" in text
    assert "called without `retries`: x = factory(" in text


def test_unchanged_field_defaults_are_not_a_false_alarm(gates):
    result = run(
        gates, "gatekit.settings:Journal", "gatekit.settings:JournalRewritten", examples=200
    )
    assert result.equal, result.text()
    built = result.stateful.built.result
    assert built.counts["defaults"] > 0
    assert result.stateful.sequences == 200


def test_a_changed_keyword_only_default_of_a_factory_is_found(gates):
    result = run(gates, "gatekit.settings:make_table", "gatekit.settings:make_table_b")
    assert not result.equal
    [found] = result.stateful.built.result.disagreements
    assert found.omitted == ("first",)
    assert (found.old.value, found.new.value) == ([("a", 0)], [("b", 0)])
    assert "factory (*, first: str = 'a')" in result.text()
