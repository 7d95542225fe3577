"""Pure, typed routers between the nodes (confirm routes itself with `Command`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Literal

from langchain_core.messages import AIMessage, HumanMessage

from core.planner_state import PlannerState
from core.state import OPENING_NODES, AgentState


def route_start(state: AgentState) -> Literal["confirm"] | tuple[str, ...]:
    """A reply to a waiting change goes to confirm; other messages open a turn.

    A turn opens with guard and gather side by side.

    (The runner answers a waiting change by resuming its interrupt; a chat message typed in
    Studio instead starts a new run, which lands here.)
    """
    pending = state.get("pending")
    if pending and pending.get("proposals") and isinstance(state["messages"][-1], HumanMessage):
        return "confirm"
    return OPENING_NODES


def route_after_guard(state: AgentState) -> Literal["act", "finalize"]:
    """Guard may answer by itself (a blank or blocked message); otherwise act.

    Gather ran in the same step, so its sources are already in the state act reads.
    """
    return "finalize" if state.get("final_text") else "act"


# The routers that depend on the registry are built by factories: LangGraph reads the
# possible destinations from a plain function's `Literal` return type (not from a callable
# object's), and that is what draws the graph.


def route_after_act(
    mutating: Iterable[str], delegates: Iterable[str] = ()
) -> Callable[[AgentState], Literal["planner", "propose", "tools", "verify", "finalize"]]:
    """Return the router after act, knowing which tools change data or delegate."""
    changes, delegated = frozenset(mutating), frozenset(delegates)

    def after_act(
        state: AgentState,
    ) -> Literal["planner", "propose", "tools", "verify", "finalize"]:
        """Calls go to tools (changes via propose and confirm) or the planner; text to verify."""
        if state.get("cap"):
            return "finalize"
        last = state["messages"][-1]
        if not isinstance(last, AIMessage) or not (last.tool_calls or last.invalid_tool_calls):
            return "verify"
        names = {call["name"] for call in last.tool_calls}
        if names & delegated:
            return "planner"
        if names & changes:
            return "propose"
        return "tools"

    return after_act


def route_after_step(
    mutating: Iterable[str],
) -> Callable[[PlannerState], Literal["propose", "tools", "step", "finish"]]:
    """Return the router after the planner's step node."""
    changes = frozenset(mutating)

    def after_step(state: PlannerState) -> Literal["propose", "tools", "step", "finish"]:
        """Tools (through propose and confirm for changes), the next step, or finish."""
        if state.get("cap"):
            return "finish"
        last = state["messages"][-1]
        if isinstance(last, AIMessage) and (last.tool_calls or last.invalid_tool_calls):
            names = {call["name"] for call in last.tool_calls}
            return "propose" if names & changes else "tools"
        if state.get("step_index", 0) >= len(state["plan"]["steps"]):
            return "finish"
        return "step"

    return after_step


def route_after_planner(state: AgentState) -> Literal["act", "__end__"]:
    """The planner's report goes back to act; a dismissal inside it already went to guard.

    (A proposal dismissed inside the planner ends it with `Command.PARENT` to guard, so
    this edge must not also start act.)
    """
    return "__end__" if isinstance(state["messages"][-1], HumanMessage) else "act"


def route_after_planner_tools(state: PlannerState) -> Literal["step", "finish"]:
    """Back to the step with the results, unless the planner hit a limit."""
    return "finish" if state.get("cap") else "step"


def route_after_tools(state: AgentState) -> Literal["act", "finalize"]:
    """Back to the model with the results, unless the wave hit a limit."""
    return "finalize" if state.get("cap") else "act"


def route_after_verify(state: AgentState) -> Literal["act", "finalize"]:
    """A passed draft or the last failed attempt finalizes; other failures retry."""
    if state.get("status") == "failed_verification" or not state.get("feedback"):
        return "finalize"
    return "act"
