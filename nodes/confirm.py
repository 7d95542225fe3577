"""confirm: a wave's mutating calls wait in one `interrupt()` for a person's decision.

Nothing with side effects happens here: the node only proposes, pauses and records the
decisions, which the tools node then carries out. It re-runs from the top on resume, so
everything before `interrupt()` is deterministic (the proposal time is the checkpoint's).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.base.id import UUID as CheckpointId
from langgraph.runtime import Runtime
from langgraph.types import Command, interrupt

from graph import events, proposals
from graph.asker import asker_of, stamp
from graph.context import Context
from graph.planner_state import PlannerState
from graph.proposals import ConfirmationRequest, Proposal
from graph.state import AgentState, ConfirmUpdate
from prompts import confirmation
from tools.declaration import ToolArgumentsError
from tools.registry import ToolRegistry

# 100-ns intervals between the UUID epoch (1582-10-15) and the Unix epoch.
_UUID_EPOCH_OFFSET = 0x01B21DD213814000


class Confirm:
    """The confirm node, bound to a registry."""

    def __init__(self, registry: ToolRegistry) -> None:
        self._registry = registry

    async def __call__(
        self, state: AgentState, runtime: Runtime[Context]
    ) -> Command[Literal["tools", "guard"]]:
        """Propose the wave's mutations, wait for the decision, record it."""
        ctx = runtime.context
        message = state["messages"][-1]
        assert isinstance(message, AIMessage), "confirm runs only after an AI message with calls"
        request = self._request(state, message, runtime)
        if not request["proposals"]:
            return Command(goto="tools")
        runtime.stream_writer(
            events.agent_state("waiting_on_user", confirmation.waiting(request["proposals"]))
        )
        tools = {t.name: t for t in self._registry.tools()}
        while True:
            # A refused decision re-asks with the reason; every resume value is replayed in
            # order when the node re-runs, so the loop ends where it ended before.
            value = interrupt(request)
            decisions = proposals.check(
                request,
                value,
                decider=ctx.user_id,
                decider_role=ctx.user_role,
                approver_roles=ctx.approver_roles,
                tools=tools,
                now=time.time(),
            )
            if not isinstance(decisions, str):
                break
            request = {**request, "error": decisions}
        if any(d["decision"] == "dismiss" for d in decisions.values()):
            return self._dismiss(state, message, value, ctx)
        # The decision may come long after the question: what it sets off gets a turn's time.
        update: ConfirmUpdate = {
            "decisions": {**state.get("decisions", {}), **decisions},
            "deadline": time.time() + ctx.turn_timeout_s,
        }
        return Command(goto="tools", update=update)

    def _dismiss(
        self, state: AgentState, message: AIMessage, value: object, ctx: Context
    ) -> Command[Any]:
        """The person moved on: the wave's calls are answered unrun, their message opens a turn."""
        calls = [{"id": c["id"], "name": c["name"]} for c in message.tool_calls]
        calls += [
            {"id": c.get("id"), "name": c.get("name") or "?"} for c in message.invalid_tool_calls
        ]
        return Command(goto="guard", update=_dismissed(calls, value, ctx))

    def _request(
        self, state: AgentState, message: AIMessage, runtime: Runtime[Context]
    ) -> ConfirmationRequest:
        ctx = runtime.context
        asker = asker_of(state, ctx)
        created_at = _proposed_at(runtime)
        run_id = state.get("run_id", "")
        pending: list[Proposal] = []
        for call in message.tool_calls:
            tool = self._registry.get(call["name"])
            # Unknown, read-only, role-denied and invalid calls are the tools node's to answer.
            if tool is None or not tool.mutating or asker.role not in tool.roles:
                continue
            try:
                tool.validate(call["args"])
            except ToolArgumentsError:
                continue
            pending.append(
                proposals.make_proposal(
                    tool,
                    call["args"],
                    call_id=call["id"] or "",
                    run_id=run_id,
                    actor=asker.user_id,
                    created_at=created_at,
                    ttl_s=ctx.confirmation_ttl_s,
                )
            )
        return ConfirmationRequest(
            type="confirmation",
            run_id=run_id,
            turn_run_id=str(state.get("parent_run_id") or run_id),
            actor=asker.user_id,
            expires_at=min((p["expires_at"] for p in pending), default=""),
            proposals=pending,
        )


def _proposed_at(runtime: Runtime[Context]) -> float:
    """Return when the calls were proposed: the time of the checkpoint confirm runs from.

    A re-run on resume starts from the same checkpoint, so proposals (and their
    fingerprints) come out identical; checkpoint ids are time-ordered UUIDv6.
    """
    info = runtime.execution_info
    if info is not None and info.checkpoint_id:
        try:
            ticks = CheckpointId(info.checkpoint_id).time
        except ValueError:
            pass
        else:
            return (ticks - _UUID_EPOCH_OFFSET) / 10_000_000
    # Without a checkpointer there is no resume, so "now" is stable enough.
    return time.time()


class PlannerConfirm(Confirm):
    """confirm inside the planner: a dismissal ends the planner and opens the main turn."""

    async def __call__(  # type: ignore[override]
        self, state: PlannerState, runtime: Runtime[Context]
    ) -> Command[Literal["tools"]]:
        """Propose, wait, record (as the main graph's confirm).

        The annotation matters: LangGraph gives a node the keys of its state type, and
        this node needs the planner's (`parent_calls`, `parent_run_id`).
        """
        return await super().__call__(state, runtime)  # type: ignore[arg-type,return-value]

    def _dismiss(
        self, state: AgentState, message: AIMessage, value: object, ctx: Context
    ) -> Command[Any]:
        # The main graph's wave (the create_plan call) is what goes unanswered up there.
        calls: list[dict[str, str]] = state.get("parent_calls", [])  # type: ignore[assignment]
        update = _dismissed(calls, value, ctx)
        return Command(graph=Command.PARENT, goto="guard", update=update)


def _dismissed(calls: Sequence[Mapping[str, Any]], value: object, ctx: Context) -> ConfirmUpdate:
    """Answer every call of the wave as not run, then open a turn with the new message."""
    text = value.get("message") if isinstance(value, dict) else None
    results: list[AnyMessage] = [
        ToolMessage(
            content=confirmation.not_confirmed(),
            tool_call_id=call["id"] or "",
            name=call["name"] or "?",
            status="error",
            additional_kwargs={"outcome": "not_confirmed"},
        )
        for call in calls
    ]
    opening = HumanMessage(content=str(text or ""), id=str(uuid.uuid4()))
    results.append(stamp(opening, ctx.user_id, ctx.user_role))
    return {"messages": results, "decisions": {}}
