"""Plans a thread keeps: what the planner drafted, and the reducer that stores them."""

from __future__ import annotations

from typing import Literal

from typing_extensions import TypedDict  # the server's schemas need it on Python 3.11

ExecutionMode = Literal["auto_execute", "draft_only", "agent_review"]
PlanStatus = Literal["drafted", "pending_review", "rejected", "needs_changes", "executed"]


class PlanRecord(TypedDict):
    """A plan the thread keeps: a draft waits here for "run it" or a revision."""

    plan_id: str
    objective: str
    steps: list[str]
    execution_mode: ExecutionMode
    status: PlanStatus
    version: int
    requested_outputs: list[str]
    priority_entities: list[str]


def merge_plans(
    current: dict[str, PlanRecord] | None, update: dict[str, PlanRecord] | None
) -> dict[str, PlanRecord]:
    """Reducer: plans are added or replaced by id, never dropped by a partial update."""
    return {**(current or {}), **(update or {})}
