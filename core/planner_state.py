"""The planner subgraph's state, its report contract, and the events it streams.

The plans themselves (`PlanRecord`) are thread state, kept in `core.state` beside the other
things a thread carries; this module imports them from there.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from pydantic import BaseModel, ConfigDict, Field, with_config
from typing_extensions import TypedDict  # the server's schemas need it on Python 3.11

from core.state import AskerRecord, ConfirmationRequest, Decision, PlanRecord, merge_plans

PlannerStatus = Literal["completed", "blocked", "failed"]


class PlannerReport(BaseModel):
    """What the planner returns to the main agent (never straight to the person)."""

    model_config = ConfigDict(extra="forbid")
    summary: str
    actions_taken: list[str] = Field(default_factory=list)
    evidence: list[str] = Field(default_factory=list)
    open_questions: list[str] = Field(default_factory=list)
    confidence: float = Field(ge=0.0, le=1.0)


class PlannerResult(BaseModel):
    """The create_plan tool result: the report, the run and the plan it concerns."""

    model_config = ConfigDict(extra="forbid")
    report: PlannerReport
    planner_run_id: str
    parent_run_id: str
    status: PlannerStatus
    plan: dict[str, Any] | None = None
    review: dict[str, str] | None = None


@with_config(ConfigDict(use_attribute_docstrings=True))
class PlannerRequest(TypedDict):
    """What a person sends the planner served on its own: a message (Studio's input form)."""

    messages: Annotated[list[AnyMessage], add_messages]
    """The objective as a human message, or the main graph's form: an AI message calling
    create_plan, last."""


class PlannerInput(TypedDict, total=False):
    """What the planner reads from the main graph, as its subgraph node."""

    messages: Annotated[list[AnyMessage], add_messages]
    plans: Annotated[dict[str, PlanRecord], merge_plans]
    run_id: str
    deadline: float
    turn_start_id: str
    asker: AskerRecord


class PlannerOutput(TypedDict, total=False):
    """What the planner gives back: the create_plan results, and the thread's plans."""

    messages: Annotated[list[AnyMessage], add_messages]
    plans: Annotated[dict[str, PlanRecord], merge_plans]


class PlannerState(TypedDict, total=False):
    """The planner's own state (its messages are its own conversation, not the thread's)."""

    messages: Annotated[list[AnyMessage], add_messages]
    plans: Annotated[dict[str, PlanRecord], merge_plans]
    run_id: str
    """The planner run's id (tools record their results under it)."""
    parent_run_id: str
    deadline: float
    turn_start_id: str
    parent_calls: list[dict[str, str]]
    """The main graph's calls this planner run answers: [{id, name}] (create_plan first)."""
    request: dict[str, Any]
    plan: PlanRecord
    review: dict[str, str]
    step_index: int
    step_notes: list[str]
    rounds: int
    tool_calls_used: int
    asker: AskerRecord
    """The turn's asker, from the main graph: whom the planner's changes are proposed for."""
    pending: ConfirmationRequest | None
    decisions: dict[str, Decision]
    cap: str | None
    status: PlannerStatus
    error: str


# The events the planner streams while it drafts, reviews and carries out a plan.


def _event(kind: str, plan_id: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "plan_id": plan_id, **fields}


def plan_created(plan_id: str, steps: list[str], mode: str, version: int) -> dict[str, Any]:
    """A plan was drafted (or revised)."""
    return _event("plan_created", plan_id, steps=steps, execution_mode=mode, version=version)


def plan_ready_for_review(plan_id: str, steps: list[str]) -> dict[str, Any]:
    """A draft waits for the person (draft_only)."""
    return _event("plan_ready_for_review", plan_id, steps=steps)


def plan_review(plan_id: str, verdict: str, notes: str) -> dict[str, Any]:
    """The reviewer's verdict on a plan (agent_review)."""
    return _event("plan_review", plan_id, verdict=verdict, notes=notes)


def step_start(plan_id: str, index: int, step: str) -> dict[str, Any]:
    """The planner began a step (1-based index)."""
    return _event("step_start", plan_id, index=index, step=step)


def step_complete(plan_id: str, index: int, note: str) -> dict[str, Any]:
    """The planner finished a step."""
    return _event("step_complete", plan_id, index=index, note=note)
