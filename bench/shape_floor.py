"""The agent graph's shape with nodes that do nothing: what its checkpointed steps cost alone.

A text turn of the agent graph, opened as the runner opens one after a turn that ended
(the message written with guard and gather as the next step), is four checkpointed steps
(guard beside gather, act, verify, finalize) over every channel of `AgentState`; a turn of
`create_agent` is three (the input, `START`, the model). A turn with one tool call adds
tools and a second act (six against five). This graph has the same steps and channels,
and nodes that only write what the real ones write (act asks the model; tools answers each
call with the tool's result), so its CPU per turn is the floor any implementation of the
design's phases pays on that saver, before any of the phases' work: screening, the
workspace search, the prompt, the confirmation rules, the checks, the audit.
"""

from __future__ import annotations

from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import BaseTool
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from core.state import AgentState, GuardUpdate, changes
from nodes.guard import fresh_turn


def shape_floor(
    model: BaseChatModel, checkpointer: Any, tool: BaseTool
) -> CompiledStateGraph[Any, Any, Any, Any]:
    """Compile guard ‖ gather → act ⇄ tools → verify → finalize with nodes that do no work."""

    def guard(state: AgentState) -> GuardUpdate:
        update = fresh_turn("floor", state["messages"][-1].id or "", 0.0)
        update["asker"] = {"user_id": "bench", "role": "member"}
        return changes(update, state)

    def gather(state: AgentState) -> dict[str, Any]:
        return {"sources": [], "context_block": ""}

    async def act(state: AgentState) -> dict[str, Any]:
        return {"messages": [await model.ainvoke(state["messages"])]}

    def tools(state: AgentState) -> dict[str, Any]:
        calls = state["messages"][-1].tool_calls  # type: ignore[union-attr]
        results = [
            ToolMessage(str(tool.invoke(c["args"])), tool_call_id=c["id"], name=c["name"])
            for c in calls
        ]
        return {"messages": results, "rounds": 1}

    def after_act(state: AgentState) -> str:
        last = state["messages"][-1]
        return "tools" if isinstance(last, AIMessage) and last.tool_calls else "verify"

    def verify(state: AgentState) -> dict[str, Any]:
        return {"attempt": 1}

    def finalize(state: AgentState) -> dict[str, Any]:
        return {"final_text": state["messages"][-1].text, "status": "completed"}

    builder = StateGraph(AgentState)
    for name, node in (
        ("guard", guard),
        ("gather", gather),
        ("act", act),
        ("tools", tools),
        ("verify", verify),
        ("finalize", finalize),
    ):
        builder.add_node(name, node)
    builder.add_edge(START, "guard")
    builder.add_edge(START, "gather")
    builder.add_edge(["guard", "gather"], "act")
    builder.add_conditional_edges("act", after_act, ["tools", "verify"])
    builder.add_edge("tools", "act")
    builder.add_edge("verify", "finalize")
    builder.add_edge("finalize", END)
    return builder.compile(checkpointer=checkpointer, name="shape-floor")
