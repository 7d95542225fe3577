"""Pure, typed routers between the nodes (confirm routes itself with `Command`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from langchain_core.messages import AIMessage

from graph.state import AgentState


def route_after_guard(state: AgentState) -> Literal["gather", "finalize"]:
    """Guard may answer by itself (a blank message); otherwise gather context."""
    return "finalize" if state.get("final_text") else "gather"


class RouteAfterAct:
    """Tool calls go to tools (through confirm when one changes data), an answer to verify."""

    def __init__(self, mutating: Iterable[str]) -> None:
        self._mutating = frozenset(mutating)

    def __call__(self, state: AgentState) -> Literal["confirm", "tools", "verify", "finalize"]:
        """Route the act node's output."""
        if state.get("cap"):
            return "finalize"
        last = state["messages"][-1]
        if not isinstance(last, AIMessage) or not (last.tool_calls or last.invalid_tool_calls):
            return "verify"
        if any(call["name"] in self._mutating for call in last.tool_calls):
            return "confirm"
        return "tools"


def route_after_tools(state: AgentState) -> Literal["act", "finalize"]:
    """Back to the model with the results, unless the wave hit a limit."""
    return "finalize" if state.get("cap") else "act"


def route_after_verify(state: AgentState) -> Literal["act", "finalize"]:
    """A passed draft or the last failed attempt finalizes; other failures retry."""
    if state.get("status") == "failed_verification" or not state.get("feedback"):
        return "finalize"
    return "act"
