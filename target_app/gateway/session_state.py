"""Per-chat gateway state, split by how long each piece lives.

The runner used to keep ~19 dicts keyed by session key, each cleared (or not)
by hand at different moments. One `SessionState` per chat replaces them, with
three scopes that say when a field is reset:

* `TurnState` is cleared at the end of every turn,
* `ConversationState` at conversation boundaries (/new, /resume),
* `PersistentState` never wholesale. Anything that must outlive a turn, an
  agent or a conversation (the hygiene failure streak above all) lives here.

`legacy_dict_property` keeps the old dict attribute names working as live views.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterator, Mapping, MutableMapping
from dataclasses import dataclass, field
from typing import Any, Final, Protocol


class _Unset(enum.Enum):
    UNSET = "UNSET"

    def __repr__(self) -> str:
        return "UNSET"


# "No override recorded", distinct from an explicit None override (which means
# "use no service tier").
UNSET: Final = _Unset.UNSET


def _field_default(dc_field: dataclasses.Field[Any]) -> Any:
    if dc_field.default_factory is not dataclasses.MISSING:
        return dc_field.default_factory()
    return dc_field.default


def _reset_fields(scope: Any, keep: frozenset[str] = frozenset()) -> None:
    # Reset from the dataclass declaration rather than a hand-written list, so
    # a field added to (or moved into) a scope is cleared with it.
    for dc_field in dataclasses.fields(scope):
        if dc_field.name not in keep:
            setattr(scope, dc_field.name, _field_default(dc_field))


# The lease token and generation identify a lease across turns, so a late
# release from an old turn can be recognised; TurnState.clear() keeps them.
_TURN_FIELDS_KEPT_ON_CLEAR: Final = frozenset({"lease_token", "lease_generation"})


@dataclass
class TurnState:
    """Cleared at the end of every turn (except the lease token fields)."""

    agent: Any = None
    started_ts: float = 0.0
    lease: Any = None
    busy_ack_ts: float = 0.0
    lease_token: str | None = None
    lease_generation: int | None = None

    def clear(self) -> None:
        _reset_fields(self, keep=_TURN_FIELDS_KEPT_ON_CLEAR)


@dataclass
class ConversationState:
    """Cleared at conversation boundaries such as /new or /resume."""

    model_override: Any = None
    one_turn_restore: Any = None
    reasoning_override: Any = None
    service_tier_override: Any = UNSET
    last_resolved_model: str = ""
    queued_events: list[Any] = field(default_factory=list)
    sidecar_notes: list[Any] = field(default_factory=list)
    ephemeral_pin: Any = None
    vc_last: Any = None

    def clear(self) -> None:
        _reset_fields(self)


@dataclass
class PersistentState:
    """Outlives turns, agents and conversations; never cleared wholesale."""

    approvals: list[Any] = field(default_factory=list)
    update_prompt_pending: bool = False
    native_image_paths: list[str] = field(default_factory=list)
    pending_command_text: str | None = None
    # Monotonic: a run compares its generation with this to detect that a
    # newer run superseded it, so it must never go backwards.
    run_generation: int = 0
    # Consecutive session-hygiene compaction failures of this chat. Here, not
    # on the agent or the turn, so the cooldown ladder can escalate.
    hygiene_failure_streak: int = 0


@dataclass
class SessionState:
    """Everything the gateway keeps for one chat (one session key)."""

    turn: TurnState = field(default_factory=TurnState)
    conversation: ConversationState = field(default_factory=ConversationState)
    persistent: PersistentState = field(default_factory=PersistentState)

    def end_turn(self) -> None:
        self.turn.clear()

    def reset_conversation(self) -> None:
        self.conversation.clear()


# Legacy runner attribute -> (scope, field). The one place that maps old names.
LEGACY_FIELDS: Final[Mapping[str, tuple[str, str]]] = {
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

_SCOPE_TYPES: Final[Mapping[str, type]] = {
    "turn": TurnState,
    "conversation": ConversationState,
    "persistent": PersistentState,
}


class SessionHost(Protocol):
    """What a legacy view needs from its owner (the gateway runner)."""

    def _sessions_map(self) -> dict[str, SessionState]: ...

    def _session_state(self, session_key: str) -> SessionState: ...

    def _peek_session_state(self, session_key: str) -> SessionState | None: ...


class LegacyFieldView(MutableMapping[str, Any]):
    """A live dict-like view of one field across all sessions.

    A key is present when its session exists and the field differs from its
    default. Setting get-or-creates the session; deleting resets the field.
    """

    def __init__(self, host: SessionHost, scope: str, field_name: str) -> None:
        scope_type = _SCOPE_TYPES[scope]
        declared = {f.name: f for f in dataclasses.fields(scope_type)}
        self._host = host
        self._scope = scope
        self._field = field_name
        self._default_field = declared[field_name]

    def _default(self) -> Any:
        return _field_default(self._default_field)

    def _is_default(self, value: Any) -> bool:
        default = self._default()
        if value is default:
            return True
        try:
            return bool(value == default)
        except Exception:
            # An exotic value that cannot compare with the default is not it.
            return False

    def _value(self, state: SessionState) -> Any:
        return getattr(getattr(state, self._scope), self._field)

    def __getitem__(self, key: str) -> Any:
        state = self._host._peek_session_state(key)
        if state is None:
            raise KeyError(key)
        value = self._value(state)
        if self._is_default(value):
            raise KeyError(key)
        return value

    def __setitem__(self, key: str, value: Any) -> None:
        setattr(getattr(self._host._session_state(key), self._scope), self._field, value)

    def __delitem__(self, key: str) -> None:
        state = self._host._peek_session_state(key)
        if state is None or self._is_default(self._value(state)):
            raise KeyError(key)
        setattr(getattr(state, self._scope), self._field, self._default())

    def __iter__(self) -> Iterator[str]:
        # Snapshot: callers delete while iterating, as they did with the dicts.
        keys = [
            key
            for key, state in self._host._sessions_map().items()
            if not self._is_default(self._value(state))
        ]
        return iter(keys)

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def clear(self) -> None:
        for state in self._host._sessions_map().values():
            setattr(getattr(state, self._scope), self._field, self._default())

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._scope}.{self._field}: {dict(self.items())!r})"


def legacy_dict_property(name: str) -> property:
    """A property exposing the legacy dict `name` as a `LegacyFieldView`.

    Assigning a mapping replaces every entry (fields of sessions not in the
    mapping go back to their default).
    """
    scope, field_name = LEGACY_FIELDS[name]

    def getter(host: SessionHost) -> LegacyFieldView:
        return LegacyFieldView(host, scope, field_name)

    def setter(host: SessionHost, value: Mapping[str, Any]) -> None:
        entries = dict(value)  # copy first: `value` may be this very view
        view = LegacyFieldView(host, scope, field_name)
        view.clear()
        view.update(entries)

    return property(getter, setter, doc=f"Legacy view of {scope}.{field_name} by session key.")
