"""The plan meta tool: the model delegates a multi-step objective to the planner subgraph."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, model_validator

from core.state import ExecutionMode
from tools.declaration import Shows, ToolContext, declare


class CreatePlanArgs(BaseModel):
    """Arguments of create_plan."""

    objective: str = Field(
        default="",
        max_length=2000,
        description="What to accomplish end to end. Empty only when running or revising "
        "a stored plan (plan_id).",
    )
    execution_mode: ExecutionMode | None = Field(
        default=None,
        description="auto_execute (default) runs the plan; draft_only returns it for the "
        "person to review; agent_review has a reviewer check it before it runs.",
    )
    auto_execute: bool | None = Field(
        default=None, description="Legacy: false means draft_only. Prefer execution_mode."
    )
    requested_outputs: list[str] = Field(
        default_factory=list, max_length=10, description="Deliverables the person expects."
    )
    priority_entities: list[str] = Field(
        default_factory=list,
        max_length=10,
        description="Clients, brands or people the plan must focus on.",
    )
    plan_id: str | None = Field(
        default=None,
        description='A stored draft\'s plan_id: run it ("run it") or revise it (with revision).',
    )
    revision: str | None = Field(
        default=None,
        max_length=2000,
        description='How to change the stored draft, e.g. "change step 2 to ...".',
    )

    @model_validator(mode="after")
    def _needs_a_goal(self) -> CreatePlanArgs:
        if not self.objective.strip() and not self.plan_id:
            raise ValueError("give an objective, or the plan_id of a stored draft")
        return self

    def mode(self) -> ExecutionMode:
        """Return the execution mode, honouring the legacy `auto_execute: false`."""
        if self.execution_mode is not None:
            return self.execution_mode
        return "draft_only" if self.auto_execute is False else "auto_execute"


@declare(
    pack="meta",
    kind="delegate",
    asks=(
        "plan the steps to onboard a new client and then do them",
        "audit the brands, then fix each one, then report",
        "work through this multi-step objective",
        "plan the onboarding of a brand and let me review the plan first",
        "break Globex's spring launch into steps with an owner for each",
    ),
    shows=Shows(
        fields=("summary", "actions_taken", "open_questions", "status"),
        lead={"": "The planner's report"},
    ),
)
async def create_plan(args: CreatePlanArgs, ctx: ToolContext) -> dict[str, Any]:
    """Hand a multi-step objective to the planner, which drafts a plan and carries it out.

    Use it when the request needs several dependent steps (e.g. "onboard Thorinox: check
    its brand mappings, fix what is missing, create the kickoff tasks"); answer simple
    requests with the other tools directly. Call it alone in its step. Changes the plan
    makes still wait for the person's approval. The result is the planner's report:
    {summary, actions_taken, evidence, open_questions, confidence, planner_run_id,
    status, plan}.

    Returns:
        The planner's report (the graph's planner node produces it).
    """
    raise RuntimeError("create_plan is carried out by the graph's planner node")


TOOLS = [create_plan]
