"""Who asked for the current turn, and who sends the current run.

The caller of a run is who the server authenticated (a LangGraph Server with agentloop's
auth), or the run's context for a caller that vouches for it: the in-process runner, a relay
that identified the person itself, `langgraph dev`'s unauthenticated default. A context
field never overrides an authenticated caller. The asker is the caller of the run that opened
the turn, fixed then (guard writes it into state) and every later decision is checked
against it: approval is not authorization, and whoever resumes a run does not become its
asker. Each human message is stamped with its author, so the message itself says who sent it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.runtime import Runtime

from core.run_context import RunContext
from core.server_access import RELAY, UNAUTHENTICATED, UNLISTED_ROLE
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


def caller_of(runtime: Runtime[RunContext]) -> Asker:
    """Return who sends this run, with the role they claim (the workspace's comes later).

    On a server with agentloop's auth that is the authenticated user, whatever the run's
    context says; their role is the one the workspace lists (`viewer` when it lists nobody).
    A relay or the unauthenticated development default names the person in the context.
    """
    ctx = runtime.context
    user = runtime.server_info.user if runtime.server_info is not None else None
    if user is None:
        return Asker(ctx.user_id, ctx.user_role)
    granted = set(getattr(user, "permissions", None) or ())
    if granted & {RELAY, UNAUTHENTICATED}:
        return Asker(ctx.user_id, ctx.user_role)
    return Asker(str(user.identity), UNLISTED_ROLE)


def asker_of(state: Mapping[str, Any], ctx: RunContext) -> Asker:
    """Return the turn's asker as guard fixed it (the run's user for a graph run without one)."""
    asker = state.get("asker")
    if asker:
        return Asker(user_id=str(asker["user_id"]), role=str(asker["role"]))
    return Asker(user_id=ctx.user_id, role=ctx.user_role)
