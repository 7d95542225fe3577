"""Per-run values that are not state: who is asking, where, with which model and limits."""

from __future__ import annotations

from dataclasses import dataclass

from graph import limits


@dataclass(frozen=True)
class Context:
    """LangGraph `context_schema`: set by the runner (or Studio) for every run."""

    user_id: str = "local-user"
    user_role: str = "member"
    channel: str = "cli"
    context_type: str = "general"
    model: str | None = None
    """Model spec for this run; None means the deployment default from `Settings`."""
    today: str | None = None
    """ISO date the run treats as today; None means today in `timezone`."""
    timezone: str = "UTC"
    run_id: str | None = None
    max_tool_calls: int = limits.MAX_TOOL_CALLS_PER_TURN
    max_rounds: int = limits.MAX_ROUNDS
    turn_timeout_s: float = limits.TURN_TIMEOUT_S
    tool_timeout_s: float = limits.TOOL_TIMEOUT_S
    verify_max_attempts: int = limits.VERIFY_MAX_ATTEMPTS
    confirmation_ttl_s: float = limits.CONFIRMATION_TTL_S
    approver_roles: frozenset[str] = frozenset({"admin"})
    """Roles that may decide on another person's proposal (the proposer always may)."""
