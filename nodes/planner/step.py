"""step: the planner's act — one model call with the tools bound, for the current step."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, SystemMessage, ToolMessage
from langgraph.runtime import Runtime

from core import events
from core.models import ModelResolver
from core.planner_state import PlannerState, step_complete, step_start
from core.run_context import RunContext
from nodes.planner.prompting import PlannerModel, plan_listing
from prompts import replies
from prompts.system import context_guidance, section
from tools.registry import ToolRegistry


class Step:
    """The step node: works through the plan one step at a time."""

    def __init__(self, registry: ToolRegistry, models: ModelResolver | None = None) -> None:
        # The planner uses every tool except the ones that would start another planner.
        self._schemas = [t.openai_schema() for t in registry.tools() if t.kind != "delegate"]
        self._model = PlannerModel(models)

    async def __call__(self, state: PlannerState, runtime: Runtime[RunContext]) -> dict[str, Any]:
        """Start or continue the current step; a text reply completes it."""
        ctx = runtime.context
        plan = state["plan"]
        index = state.get("step_index", 0)
        deadline = ctx.deadline_for(state.get("deadline"))
        if deadline - time.time() <= 0:
            return {"cap": replies.turn_timeout(ctx.turn_timeout_s)}
        new: list[AnyMessage] = []
        if not isinstance(state["messages"][-1], ToolMessage):
            step = plan["steps"][index]
            runtime.stream_writer(step_start(plan["plan_id"], index + 1, step))
            runtime.stream_writer(events.agent_state("executing_plan", f"step {index + 1}"))
            total = len(plan["steps"])
            new.append(HumanMessage(content=f"Step {index + 1} of {total}: {step}"))
        guidance = context_guidance(ctx.context_type)
        listing = plan_listing(plan["steps"])
        system = SystemMessage(
            content=f"{section('planner')}\n\n{guidance}\n\nThe plan:\n{listing}"
        )
        model = self._model.resolve(ctx.model).bind_tools(self._schemas)
        try:
            reply = await asyncio.wait_for(
                model.ainvoke([system, *state["messages"], *new]),
                timeout=max(deadline - time.time(), 0.001),
            )
        except TimeoutError:
            return {"messages": new, "cap": replies.turn_timeout(ctx.turn_timeout_s)}
        if not isinstance(reply, AIMessage):
            reply = AIMessage(content=reply.text)
        if reply.tool_calls or reply.invalid_tool_calls:
            return {"messages": [*new, reply]}
        note = reply.text.strip()
        runtime.stream_writer(step_complete(plan["plan_id"], index + 1, note))
        return {
            "messages": [*new, reply],
            "step_index": index + 1,
            "step_notes": [*state.get("step_notes", []), f"Step {index + 1}: {note}"],
        }
