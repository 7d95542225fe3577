"""Per-run values that are not state: who is asking, where, with which model and limits."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from app.context import context_block, history, injection
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
    input_guard: injection.GuardMode = injection.DEFAULT_MODE
    """Prompt-injection screening: off, log, warn or block."""
    context_dir: Path | None = None
    """Folder of markdown files gather searches; None: no context folder."""
    context_block_tokens: int = context_block.CONTEXT_BLOCK_TOKENS
    history_turns: int = history.HISTORY_TURNS
    context_window: int = history.CONTEXT_WINDOW
    """Tokens the run's model accepts per request."""
    compaction_model: str | None = None
    """Model spec for the memory flush and the summary; None: the run's model."""
    verify_judge: bool = False
    """Whether verify asks the model to judge an answer that passed the rules."""
    deadline: float | None = None
    """When this invocation must end (epoch seconds), set by the runner for each one; None:
    the deadline the turn set when it opened (a Studio run)."""

    def deadline_for(self, turn_deadline: float | None) -> float:
        """Return when the work of this invocation must end.

        An approval may come hours after the question, and a crashed run may be finished
        later still: each invocation gets its own time budget, not what is left of the turn's.
        """
        return self.deadline or turn_deadline or time.time() + self.turn_timeout_s

    def __post_init__(self) -> None:
        # A server (Studio, or the runner through `RemoteGraph`) builds this from JSON.
        if isinstance(self.context_dir, str):
            object.__setattr__(self, "context_dir", Path(self.context_dir))
        if not isinstance(self.approver_roles, frozenset):
            object.__setattr__(self, "approver_roles", frozenset(self.approver_roles))
