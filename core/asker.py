"""Who asked for the current turn: the person whose request tools act for.

The asker is fixed when a turn opens (guard writes it into state) and every later decision
is checked against it, whatever context a resume carries: approval is not authorization, and
whoever resumes a run does not become its asker. The runner also stamps each human message
with its author, so the message itself says who sent it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import HumanMessage

from core.run_context import RunContext
from core.state import AskerRecord


@dataclass(frozen=True)
class Asker:
    """A person the run acts for or hears from, with the role that governs what they may do."""

    user_id: str
    role: str

    def record(self) -> AskerRecord:
        """Return the asker as state keeps it (plain data)."""
        return AskerRecord(user_id=self.user_id, role=self.role)


def stamp(message: HumanMessage, user_id: str, role: str) -> HumanMessage:
    """Return the message with its author recorded (kept out of what the model is sent)."""
    message.additional_kwargs.update({"user_id": user_id, "user_role": role})
    return message


def author_of(message: HumanMessage, ctx: RunContext) -> Asker:
    """Return who sent `message`: its stamp, or the run's user for an unstamped one."""
    extra = message.additional_kwargs
    return Asker(
        user_id=str(extra.get("user_id") or ctx.user_id),
        role=str(extra.get("user_role") or ctx.user_role),
    )


def asker_of(state: Mapping[str, Any], ctx: RunContext) -> Asker:
    """Return the turn's asker as guard fixed it (the run's user for a graph run without one)."""
    asker = state.get("asker")
    if asker:
        return Asker(user_id=str(asker["user_id"]), role=str(asker["role"]))
    return Asker(user_id=ctx.user_id, role=ctx.user_role)
