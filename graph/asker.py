"""Who asked for the current turn: the person whose request tools act for.

The runner stamps the author on each human message, so a turn resumed by someone else (an
approver) still proposes and executes with the asker's identity and role: approval is not
authorization.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage

from graph.context import Context


@dataclass(frozen=True)
class Asker:
    """The author of the turn's message."""

    user_id: str
    role: str


def stamp(message: HumanMessage, user_id: str, role: str) -> HumanMessage:
    """Return the message with its author recorded (kept out of what the model is sent)."""
    message.additional_kwargs.update({"user_id": user_id, "user_role": role})
    return message


def asker_of(state: Mapping[str, Any], ctx: Context) -> Asker:
    """Return the author of the turn's opening message; the run's user when it has none."""
    opening = _turn_message(state)
    extra = opening.additional_kwargs if opening is not None else {}
    return Asker(
        user_id=str(extra.get("user_id") or ctx.user_id),
        role=str(extra.get("user_role") or ctx.user_role),
    )


def _turn_message(state: Mapping[str, Any]) -> BaseMessage | None:
    start = state.get("turn_start_id")
    for message in reversed(state.get("messages", [])):
        if isinstance(message, HumanMessage) and (not start or message.id == start):
            return message
    return None
