"""Pure, typed routers between the nodes."""

from __future__ import annotations

from typing import Literal

from langchain_core.messages import AIMessage

from graph.state import AgentState


def route_after_guard(state: AgentState) -> Literal["gather", "finalize"]:
    """Guard may answer by itself (a blank message); otherwise gather context."""
    return "finalize" if state.get("final_text") else "gather"


def route_after_act(state: AgentState) -> Literal["tools", "verify", "finalize"]:
    """Tool calls go to the tools node, a text answer to verify, a hit limit to finalize."""
    if state.get("cap"):
        return "finalize"
    last = state["messages"][-1]
    if isinstance(last, AIMessage) and (last.tool_calls or last.invalid_tool_calls):
        return "tools"
    return "verify"


def route_after_tools(state: AgentState) -> Literal["act", "finalize"]:
    """Back to the model with the results, unless the wave hit a limit."""
    return "finalize" if state.get("cap") else "act"


def route_after_verify(state: AgentState) -> Literal["act", "finalize"]:
    """A passed draft or the last failed attempt finalizes; other failures retry."""
    if state.get("status") == "failed_verification" or not state.get("feedback"):
        return "finalize"
    return "act"
