"""Who may call a LangGraph Server that serves agentloop: its callers' tokens and relays.

The server's custom auth (`app/server/auth.py`) reads this section of `Settings`
(`AGENTLOOP_SERVER_TOKENS`, `AGENTLOOP_SERVER_RELAYS`) and grants each caller the
permissions below; the graph reads them back from the run's authenticated user to know
whether the run's context may name the person it acts for.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, SecretStr

RELAY = "agentloop:relay"
"""A service (the Slack app or CLI through `AGENTLOOP_GRAPH_URL`) that acts for the person
its run's context names, having identified them itself."""
UNAUTHENTICATED = "agentloop:unauthenticated"
"""The development default of `langgraph dev` with no tokens set: nobody is authenticated,
and a run's context says who it is for, as Studio's form does."""
ADMIN = "agentloop:admin"
"""The caller is an admin of the workspace: the only person who may edit a thread's state."""
UNLISTED_ROLE = "viewer"
"""The role of an authenticated caller the workspace's `team_members` does not list."""


class ServerSection(BaseModel):
    """How a LangGraph Server authenticates its callers (`AGENTLOOP_SERVER_*`)."""

    model_config = ConfigDict(frozen=True)

    tokens: dict[str, SecretStr] = Field(
        default_factory=dict,
        description="Bearer tokens the server accepts, a JSON object of user id → token; the "
        "user id is the caller (a Slack id or email the workspace lists, or a relay's name).",
    )
    relays: frozenset[str] = Field(
        default=frozenset(),
        description="User ids (of `tokens`) that act for the person their run's context "
        "names, a JSON list: the Slack app or CLI driving the server with AGENTLOOP_GRAPH_URL.",
    )
