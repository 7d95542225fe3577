"""start: reads the main graph's create_plan call and opens the planner's own conversation."""

from __future__ import annotations

import uuid
from typing import Any, Literal

from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage
from langgraph.graph.message import REMOVE_ALL_MESSAGES
from langgraph.runtime import Runtime
from langgraph.types import Command
from pydantic import ValidationError

from graph import events
from graph.asker import asker_of, stamp
from graph.context import Context
from graph.planner_state import PlannerState
from tools.plan import CreatePlanArgs

PLAN_TOOL = "create_plan"


async def start(
    state: PlannerState, runtime: Runtime[Context]
) -> Command[Literal["draft", "review", "step", "finish"]]:
    """Validate the request, pick up a stored draft, and route to the first phase."""
    ctx = runtime.context
    message = state["messages"][-1]
    assert isinstance(message, AIMessage), "the planner runs after an AI message with calls"
    calls: list[dict[str, Any]] = [
        {"id": c["id"] or "", "name": c["name"], "args": c["args"]} for c in message.tool_calls
    ]
    calls += [
        {"id": c.get("id") or "", "name": c.get("name") or "?", "args": c.get("args")}
        for c in message.invalid_tool_calls
    ]
    calls.sort(key=lambda c: c["name"] != PLAN_TOOL)  # the create_plan call first
    asker = asker_of(state, ctx)
    update: dict[str, Any] = {
        "run_id": str(uuid.uuid4()),
        "parent_run_id": state.get("run_id", ""),
        "parent_calls": [{"id": c["id"], "name": c["name"]} for c in calls],
        "rounds": 0,
        "tool_calls_used": 0,
        "decisions": {},
        "step_index": 0,
        "step_notes": [],
        "cap": None,
        "status": "completed",
        "error": "",
    }
    try:
        args = CreatePlanArgs.model_validate(calls[0]["args"])
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or 'arguments'}: {e['msg']}"
            for e in exc.errors(include_url=False)
        )
        update.update(status="failed", error=f"invalid create_plan arguments: {problems}")
        return Command(goto="finish", update=update)
    stored = state.get("plans", {}).get(args.plan_id or "")
    if args.plan_id and stored is None:
        known = ", ".join(state.get("plans", {})) or "none"
        update.update(status="failed", error=f"no stored plan {args.plan_id!r}; known: {known}")
        return Command(goto="finish", update=update)
    objective = args.objective or (stored["objective"] if stored else "")
    runtime.stream_writer(events.agent_state("executing_plan", objective))
    opening = stamp(
        HumanMessage(
            content=_brief(objective, args),
            id=str(uuid.uuid4()),
            additional_kwargs={"planner_run_id": update["run_id"]},
        ),
        asker.user_id,
        asker.role,
    )
    request = {**args.model_dump(), "objective": objective, "execution_mode": args.mode()}
    update.update(
        messages=[RemoveMessage(id=REMOVE_ALL_MESSAGES), opening],
        turn_start_id=opening.id,
        request=request,
    )
    if stored is None or args.revision:
        if stored is not None:
            update["plan"] = stored
        return Command(goto="draft", update=update)
    update["plan"] = {**stored, "execution_mode": args.mode()}
    return Command(goto="review" if args.mode() == "agent_review" else "step", update=update)


def _brief(objective: str, args: CreatePlanArgs) -> str:
    lines = [f"Objective: {objective}"]
    if args.requested_outputs:
        lines.append("Requested outputs: " + "; ".join(args.requested_outputs))
    if args.priority_entities:
        lines.append("Focus on: " + ", ".join(args.priority_entities))
    if args.revision:
        lines.append(f"Revise the stored plan: {args.revision}")
    return "\n".join(lines)
