"""The running turn within a thread's history: where it starts, what it holds."""

from __future__ import annotations

from collections.abc import Sequence

from langchain_core.messages import AnyMessage, BaseMessage

from core.state import AgentState


def turn_start(messages: Sequence[BaseMessage], turn_start_id: str) -> int:
    """Index of the message that opened the turn (the last message when the id is unknown)."""
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].id == turn_start_id:
            return index
    return max(len(messages) - 1, 0)


def turn_messages(state: AgentState) -> list[AnyMessage]:
    """The messages of the running turn, from the one that opened it."""
    messages = state.get("messages", [])
    return list(messages[turn_start(messages, state.get("turn_start_id", "")) :])
