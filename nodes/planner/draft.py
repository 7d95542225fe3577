"""draft: one model call writes (or revises) the plan's steps; no tools, no side effects."""

from __future__ import annotations

import uuid
from typing import Literal

from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.runtime import Runtime
from langgraph.types import Command

from core.models import ModelResolver
from core.planner_state import PlannerState, plan_created, plan_ready_for_review
from core.run_context import RunContext
from core.state import PlanRecord
from nodes.planner.model_json import reply_json
from nodes.planner.prompting import PlannerModel, plan_listing
from prompts.system import section

MAX_STEPS = 6


class Draft:
    """The draft node."""

    def __init__(self, models: ModelResolver | None = None) -> None:
        self._model = PlannerModel(models)

    async def __call__(
        self, state: PlannerState, runtime: Runtime[RunContext]
    ) -> Command[Literal["review", "step", "finish"]]:
        """Draft the steps, store the plan, and route by execution mode."""
        request = state["request"]
        previous = state.get("plan")
        ask: str = state["messages"][-1].text
        if previous is not None:
            listing = plan_listing(previous["steps"])
            ask = f"{ask}\n\nThe stored plan (version {previous['version']}):\n{listing}"
        model = self._model.resolve(runtime.context.model)
        reply = await model.ainvoke(
            [
                SystemMessage(content=f"{section('planner')}\n\n{section('plan_draft')}"),
                HumanMessage(content=ask),
            ]
        )
        steps = _steps(reply.text)
        if not steps:
            return Command(
                goto="finish",
                update={"status": "failed", "error": "the planner could not draft any steps"},
            )
        mode = request["execution_mode"]
        plan = PlanRecord(
            plan_id=previous["plan_id"] if previous else uuid.uuid4().hex[:8],
            objective=request["objective"],
            steps=steps,
            execution_mode=mode,
            status="pending_review" if mode == "draft_only" else "drafted",
            version=previous["version"] + 1 if previous else 1,
            requested_outputs=list(request.get("requested_outputs", [])),
            priority_entities=list(request.get("priority_entities", [])),
        )
        runtime.stream_writer(plan_created(plan["plan_id"], steps, mode, plan["version"]))
        update = {"plan": plan, "plans": {plan["plan_id"]: plan}}
        if mode == "draft_only":
            runtime.stream_writer(plan_ready_for_review(plan["plan_id"], steps))
            return Command(goto="finish", update={**update, "status": "blocked"})
        return Command(goto="review" if mode == "agent_review" else "step", update=update)


def _steps(text: str) -> list[str]:
    data = reply_json(text)
    raw = data.get("steps") if data else None
    if isinstance(raw, list):
        steps = [str(step).strip() for step in raw if str(step).strip()]
    else:
        # A model that ignored the format: one step per non-empty line, numbering dropped.
        steps = [line.strip().lstrip("-*0123456789.) ").strip() for line in text.splitlines()]
        steps = [step for step in steps if step]
    return steps[:MAX_STEPS]
