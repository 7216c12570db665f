"""Per-chat state scopes, the legacy dict views, and the runner's session map."""

from __future__ import annotations

import pytest

from target_app.gateway.run import GatewayRunner
from target_app.gateway.session_state import (
    LEGACY_FIELDS,
    UNSET,
    ConversationState,
    PersistentState,
    SessionState,
    TurnState,
    legacy_dict_property,
)

# -- scopes and defaults ------------------------------------------------------------


def test_scope_defaults():
    turn, conversation, persistent = TurnState(), ConversationState(), PersistentState()
    assert (turn.agent, turn.started_ts, turn.lease, turn.busy_ack_ts) == (None, 0.0, None, 0.0)
    assert (turn.lease_token, turn.lease_generation) == (None, None)
    assert conversation.service_tier_override is UNSET
    assert conversation.last_resolved_model == ""
    assert conversation.queued_events == []
    assert conversation.sidecar_notes == []
    assert conversation.model_override is None
    assert conversation.vc_last is None
    assert persistent.approvals == []
    assert persistent.native_image_paths == []
    assert persistent.update_prompt_pending is False
    assert persistent.pending_command_text is None
    assert (persistent.run_generation, persistent.hygiene_failure_streak) == (0, 0)


def test_list_defaults_are_not_shared_between_instances():
    first, second = ConversationState(), ConversationState()
    first.queued_events.append("e")
    assert second.queued_events == []


def test_unset_sentinel_is_distinct_from_none():
    assert UNSET is not None
    assert UNSET != None  # noqa: E711 - the point is that it differs from None
    assert repr(UNSET) == "UNSET"


def test_turn_clear_resets_turn_fields_but_keeps_the_lease_token():
    turn = TurnState(
        agent=object(),
        started_ts=5.0,
        lease="L",
        busy_ack_ts=6.0,
        lease_token="tok",
        lease_generation=3,
    )
    turn.clear()
    assert (turn.agent, turn.started_ts, turn.lease, turn.busy_ack_ts) == (None, 0.0, None, 0.0)
    assert (turn.lease_token, turn.lease_generation) == ("tok", 3)


def test_conversation_clear_resets_every_field():
    conversation = ConversationState(
        model_override="m",
        one_turn_restore="r",
        reasoning_override="high",
        service_tier_override=None,
        last_resolved_model="gpt",
        queued_events=["e"],
        sidecar_notes=["n"],
        ephemeral_pin="p",
        vc_last="v",
    )
    conversation.clear()
    assert conversation == ConversationState()


def test_hygiene_streak_survives_turn_and_conversation_clears():
    """Regression 8: a streak kept on TurnState is wiped every turn; it lives on PersistentState."""
    state = SessionState()
    assert state.persistent.hygiene_failure_streak == 0
    state.persistent.hygiene_failure_streak = 2
    state.persistent.run_generation = 7
    state.persistent.approvals.append("approve?")
    state.end_turn()
    state.reset_conversation()
    assert state.persistent.hygiene_failure_streak == 2
    assert state.persistent.run_generation == 7
    assert state.persistent.approvals == ["approve?"]


def test_hygiene_streak_is_not_a_turn_or_conversation_field():
    """Regression 8: the streak belongs to the scope no turn or conversation reset touches."""
    assert not hasattr(TurnState(), "hygiene_failure_streak")
    assert not hasattr(ConversationState(), "hygiene_failure_streak")


def test_persistent_state_has_no_wholesale_clear():
    assert not hasattr(PersistentState(), "clear")


# -- the runner's session map ---------------------------------------------------------


def test_bare_runner_creates_its_sessions_map_lazily():
    runner = object.__new__(GatewayRunner)
    assert "_sessions" not in vars(runner)
    sessions = runner._sessions_map()
    assert sessions == {}
    assert runner._sessions_map() is sessions
    assert vars(runner)["_sessions"] is sessions
    assert runner._session_db is None


def test_session_state_get_or_creates_one_entry_per_key():
    runner = object.__new__(GatewayRunner)
    state = runner._session_state("chat-1")
    assert isinstance(state, SessionState)
    assert runner._session_state("chat-1") is state
    assert runner._session_state("chat-2") is not state


def test_peek_never_creates_the_map_or_an_entry():
    runner = object.__new__(GatewayRunner)
    assert runner._peek_session_state("chat-1") is None
    assert "_sessions" not in vars(runner)
    runner._sessions_map()
    assert runner._peek_session_state("chat-1") is None
    assert runner._sessions_map() == {}
    state = runner._session_state("chat-1")
    assert runner._peek_session_state("chat-1") is state


def test_run_generation_only_grows_across_turns_and_conversations():
    runner = GatewayRunner()
    assert runner.begin_turn("chat-1", "agent-a") == 1
    runner.end_turn("chat-1")
    runner.reset_conversation("chat-1")
    assert runner.begin_turn("chat-1", "agent-b") == 2
    assert runner._running_agents == {"chat-1": "agent-b"}


def test_end_turn_clears_turn_scope_only():
    runner = GatewayRunner()
    runner.begin_turn("chat-1", "agent")
    runner._session_model_overrides["chat-1"] = "model-x"
    runner.end_turn("chat-1")
    assert "chat-1" not in runner._running_agents
    assert "chat-1" not in runner._running_agents_ts
    assert runner._session_model_overrides["chat-1"] == "model-x"


def test_end_turn_and_reset_on_unknown_chat_create_nothing():
    runner = GatewayRunner()
    runner.end_turn("ghost")
    runner.reset_conversation("ghost")
    assert runner._sessions_map() == {}


# -- legacy dict views ------------------------------------------------------------------

LEGACY_EXPECTED = {
    "_running_agents": ("turn", "agent"),
    "_running_agents_ts": ("turn", "started_ts"),
    "_busy_ack_ts": ("turn", "busy_ack_ts"),
    "_session_model_overrides": ("conversation", "model_override"),
    "_session_reasoning_overrides": ("conversation", "reasoning_override"),
    "_session_service_tier_overrides": ("conversation", "service_tier_override"),
    "_last_resolved_model": ("conversation", "last_resolved_model"),
    "_queued_events": ("conversation", "queued_events"),
    "_pending_approvals": ("persistent", "approvals"),
    "_update_prompt_pending": ("persistent", "update_prompt_pending"),
    "_pending_messages": ("persistent", "pending_command_text"),
    "_session_run_generation": ("persistent", "run_generation"),
}

SAMPLE_VALUES = {
    "agent": object(),
    "started_ts": 12.5,
    "busy_ack_ts": 3.0,
    "model_override": "model-x",
    "reasoning_override": "high",
    "service_tier_override": "flex",
    "last_resolved_model": "model-y",
    "queued_events": ["event"],
    "approvals": ["approve rm -rf?"],
    "update_prompt_pending": True,
    "pending_command_text": "/update",
    "run_generation": 4,
}


def test_legacy_table_maps_each_old_name_to_its_field():
    """The hygiene streak deliberately has no legacy name."""
    assert dict(LEGACY_FIELDS) == LEGACY_EXPECTED


@pytest.mark.parametrize(("name", "target"), sorted(LEGACY_EXPECTED.items()))
def test_legacy_view_writes_through_to_the_session_field(name, target):
    scope, field = target
    runner = GatewayRunner()
    value = SAMPLE_VALUES[field]
    getattr(runner, name)["chat-1"] = value
    assert getattr(getattr(runner._peek_session_state("chat-1"), scope), field) is value
    assert getattr(runner, name)["chat-1"] is value
    assert "chat-1" in getattr(runner, name)
    del getattr(runner, name)["chat-1"]
    assert "chat-1" not in getattr(runner, name)
    fresh = getattr(SessionState(), scope)
    assert getattr(getattr(runner._peek_session_state("chat-1"), scope), field) == getattr(
        fresh, field
    )


def test_view_reads_live_state_without_copying():
    runner = GatewayRunner()
    view = runner._session_model_overrides
    runner._session_state("chat-1").conversation.model_override = "m1"
    assert view["chat-1"] == "m1"
    assert len(view) == 1


def test_key_with_default_value_is_absent():
    runner = GatewayRunner()
    runner._session_state("chat-1")
    view = runner._running_agents_ts
    assert "chat-1" not in view
    assert len(view) == 0
    with pytest.raises(KeyError):
        view["chat-1"]
    assert view.get("chat-1", "missing") == "missing"


def test_setitem_creates_the_session_and_delitem_resets_the_field_only():
    runner = GatewayRunner()
    runner._session_reasoning_overrides["chat-1"] = "high"
    runner._session_model_overrides["chat-1"] = "m"
    del runner._session_reasoning_overrides["chat-1"]
    state = runner._peek_session_state("chat-1")
    assert state.conversation.reasoning_override is None
    assert state.conversation.model_override == "m"


def test_delitem_of_absent_key_raises_keyerror():
    runner = GatewayRunner()
    with pytest.raises(KeyError):
        del runner._pending_messages["ghost"]
    runner._session_state("chat-1")
    with pytest.raises(KeyError):
        del runner._pending_messages["chat-1"]


def test_iter_len_and_equality_with_a_plain_dict():
    runner = GatewayRunner()
    runner._last_resolved_model["a"] = "m-a"
    runner._last_resolved_model["b"] = "m-b"
    runner._session_state("c")
    view = runner._last_resolved_model
    assert sorted(view) == ["a", "b"]
    assert len(view) == 2
    assert view == {"a": "m-a", "b": "m-b"}
    assert view != {"a": "m-a"}
    assert dict(view.items()) == {"a": "m-a", "b": "m-b"}


def test_clear_resets_the_field_in_every_session_and_keeps_other_fields():
    runner = GatewayRunner()
    runner._queued_events["a"] = ["e1"]
    runner._queued_events["b"] = ["e2"]
    runner._session_model_overrides["a"] = "m"
    runner._queued_events.clear()
    assert runner._queued_events == {}
    assert runner._session_model_overrides == {"a": "m"}


def test_deleting_while_iterating_is_safe():
    runner = GatewayRunner()
    for key in "abc":
        runner._busy_ack_ts[key] = 1.0
    view = runner._busy_ack_ts
    for key in view:
        del view[key]
    assert view == {}


def test_setter_replaces_all_entries_from_a_plain_dict():
    runner = GatewayRunner()
    runner._session_model_overrides["old"] = "m-old"
    runner._session_model_overrides = {"new": "m-new", "other": "m-other"}
    assert runner._session_model_overrides == {"new": "m-new", "other": "m-other"}
    assert runner._peek_session_state("old").conversation.model_override is None


def test_setter_accepts_the_view_itself():
    runner = GatewayRunner()
    runner._pending_messages["a"] = "/help"
    runner._pending_messages = runner._pending_messages
    assert runner._pending_messages == {"a": "/help"}


def test_service_tier_none_override_is_present_and_distinct_from_unset():
    runner = GatewayRunner()
    runner._session_service_tier_overrides["chat-1"] = None
    assert "chat-1" in runner._session_service_tier_overrides
    assert runner._session_service_tier_overrides["chat-1"] is None
    del runner._session_service_tier_overrides["chat-1"]
    assert runner._peek_session_state("chat-1").conversation.service_tier_override is UNSET


def test_views_work_on_a_runner_built_without_init():
    runner = object.__new__(GatewayRunner)
    assert runner._running_agents == {}
    runner._update_prompt_pending["chat-1"] = True
    assert runner._update_prompt_pending == {"chat-1": True}


def test_explicit_delete_of_run_generation_resets_it():
    runner = GatewayRunner()
    runner.begin_turn("chat-1", "agent")
    del runner._session_run_generation["chat-1"]
    assert runner._peek_session_state("chat-1").persistent.run_generation == 0


def test_legacy_dict_property_rejects_unknown_names():
    with pytest.raises(KeyError):
        legacy_dict_property("_hygiene_failure_streaks")
