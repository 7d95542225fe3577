"""Graph state: plain JSON-like data plus the message list (it must load after a deploy).

No field has a default: LangGraph ignores TypedDict defaults, so every node that needs
a value either writes it first (guard starts each turn) or reads it with `.get`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypedDict

from langchain_core.messages import AnyMessage, RemoveMessage
from langgraph.graph.message import add_messages

from graph.plans import PlanRecord, merge_plans

TurnStatus = Literal["running", "completed", "capped", "failed_verification", "blocked"]


class Source(TypedDict):
    """Something the answer may rest on: thread history, a file, a tool result."""

    type: str
    reference: str
    excerpt: str


class AgentState(TypedDict, total=False):
    """The state of one conversation (a thread), carried across turns by the checkpointer."""

    messages: Annotated[list[AnyMessage], add_messages]
    run_id: str
    turn_start_id: str
    """Id of the human message that opened the current turn."""
    deadline: float
    """Epoch seconds after which the turn stops (the per-turn watchdog)."""
    rounds: int
    tool_calls_used: int
    attempt: int
    feedback: list[str]
    sources: list[Source]
    context_block: str
    cap: str | None
    """Why the turn was stopped early (a limit), or None."""
    status: TurnStatus
    final_text: str
    decisions: dict[str, Decision]
    """The person's decisions on this turn's proposed mutations, by tool call id."""
    issues: list[str]
    """Every problem verify found in this turn's drafts (for the graceful failure)."""
    summary: str
    """Compaction summary of the messages no longer in `messages` (injected at the top)."""
    compactions: int
    plans: Annotated[dict[str, PlanRecord], merge_plans]
    """Plans the planner drafted in this thread, by plan id (a draft waits here for review)."""
    """How many times this thread's history was compacted."""


class Decision(TypedDict, total=False):
    """What a person decided about one proposed mutation (written by confirm, read by tools)."""

    decision: Literal["approve", "edit", "reject", "dismiss"]
    args: dict[str, Any]
    """The arguments to run with: the proposal's, or the edited ones."""
    idempotency_key: str
    decided_by: str
    reason: str


class GuardUpdate(TypedDict, total=False):
    """What guard writes: a fresh turn."""

    messages: list[AnyMessage]
    run_id: str
    turn_start_id: str
    deadline: float
    rounds: int
    tool_calls_used: int
    attempt: int
    feedback: list[str]
    cap: str | None
    status: TurnStatus
    final_text: str
    decisions: dict[str, Decision]
    issues: list[str]


class GatherUpdate(TypedDict):
    """What gather writes."""

    sources: list[Source]
    context_block: str


class ActUpdate(TypedDict, total=False):
    """What act writes: the model's answer and, after a compaction, the removals and summary."""

    messages: list[AnyMessage | RemoveMessage]
    cap: str | None
    summary: str
    compactions: int


class ToolsUpdate(TypedDict, total=False):
    """What the tools node writes."""

    messages: list[AnyMessage]
    rounds: int
    tool_calls_used: int
    cap: str | None


class ConfirmUpdate(TypedDict, total=False):
    """What confirm writes: the decisions, or (dismissed) the calls' results and a new message."""

    messages: list[AnyMessage]
    decisions: dict[str, Decision]
    deadline: float


class VerifyUpdate(TypedDict, total=False):
    """What verify writes."""

    messages: list[Any]
    attempt: int
    feedback: list[str]
    issues: list[str]
    status: TurnStatus


class FinalizeUpdate(TypedDict, total=False):
    """What finalize writes."""

    messages: list[AnyMessage]
    status: TurnStatus
    final_text: str
