"""A change left waiting while another person's message is answered.

While a change waits for its asker, a teammate's message about something else is answered
as an ordinary turn (confirm sets the change aside, finalize puts it back). The wave that
proposed the change leaves the transcript for that turn (its calls have no results yet, and
the teammate's turn is not about them), with the keys of the turn it belongs to; when the
teammate's turn ends, the wave is put back last and the change waits again: the same
proposal (same fingerprints, same record), for the same person.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    HumanMessage,
    RemoveMessage,
    message_to_dict,
    messages_from_dict,
)

from core.asker import Asker, stamp
from core.state import AgentState, ConfirmationRequest, ConfirmUpdate, SetAside

TURN_KEYS = (
    "asker",
    "run_id",
    "turn_start_id",
    "rounds",
    "tool_calls_used",
    "decisions",
    "sources",
    "context_block",
)
"""The waiting turn's own keys, which the teammate's turn overwrites."""


def set_aside(
    state: AgentState, request: ConfirmationRequest, text: str, sender: Asker, typed: bool
) -> ConfirmUpdate:
    """Take the waiting wave out of the transcript and open a turn with the sender's message.

    `typed`: the message is already the thread's last (a chat message sent to a waiting
    thread); otherwise it is added, stamped with its sender.
    """
    wave = next(m for m in reversed(state["messages"]) if isinstance(m, AIMessage))
    kept: SetAside = {
        "message": message_to_dict(wave),
        "pending": {k: v for k, v in request.items() if k != "error"},  # type: ignore[typeddict-item]
        "turn": {k: state[k] for k in TURN_KEYS if k in state},  # type: ignore[literal-required]
    }
    messages: list[AnyMessage | RemoveMessage] = [RemoveMessage(id=wave.id or "")]
    if not typed:
        messages.append(stamp(HumanMessage(content=text), sender.user_id, sender.role))
    return {"messages": messages, "pending": None, "set_aside": kept}


def put_back(state: AgentState) -> dict[str, Any] | None:
    """The update that makes the set-aside change wait again (None: nothing was set aside).

    The wave goes last, after the answer just given; the turn's keys are as they were.
    """
    kept = state.get("set_aside")
    if not kept:
        return None
    [wave] = messages_from_dict([kept["message"]])
    return {**kept["turn"], "messages": [wave], "pending": kept["pending"], "set_aside": None}
