"""Builds the agent graph; `make_graph` is the factory LangGraph Studio/Server loads."""

from __future__ import annotations

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from core.db.engine import Database
from core.models import ModelResolver
from core.run_context import RunContext
from core.state import OPENING_NODES, AgentInput, AgentOutput, AgentState
from graph.planner import build_planner
from graph.routing import (
    route_after_act,
    route_after_guard,
    route_after_planner,
    route_after_tools,
    route_after_verify,
    route_start,
)
from graph.served import served_database, served_models, served_registry
from nodes.act import Act
from nodes.confirm import Confirm
from nodes.finalize import finalize
from nodes.gather import Gather
from nodes.guard import Guard
from nodes.propose import Propose
from nodes.tools import Tools
from nodes.verify import Verify
from tools.registry import ToolRegistry


def build_graph(
    models: ModelResolver, db: Database, registry: ToolRegistry
) -> StateGraph[AgentState, RunContext, AgentInput, AgentOutput]:
    """Return the uncompiled graph: guard ‖ gather → act ⇄ (propose → confirm →) tools → verify.

    A message sent while a change waits goes from the start to confirm, as the reply to it.
    A caller sends a message (`AgentInput`) and reads the conversation, the answer and the
    turn's status (`AgentOutput`); the rest of the state is the graph's own bookkeeping.
    """
    builder = StateGraph(
        AgentState,
        context_schema=RunContext,
        input_schema=AgentInput,
        output_schema=AgentOutput,
    )
    builder.add_node("guard", Guard(db))
    # guard and gather open a turn side by side (one step); act follows guard's route, with
    # gather's sources (its `destinations` only draws that).
    builder.add_node("gather", Gather(registry, db), destinations=("act",))
    builder.add_node("act", Act(registry, models, db))
    builder.add_node("planner", build_planner(models, db, registry).compile(name="planner"))
    builder.add_node("propose", Propose(registry, db))
    builder.add_node("confirm", Confirm(registry, models, db))
    builder.add_node("tools", Tools(registry, db))
    builder.add_node("verify", Verify(registry, models))
    builder.add_node("finalize", finalize)
    builder.add_conditional_edges(START, route_start, [*OPENING_NODES, "confirm"])
    builder.add_conditional_edges("guard", route_after_guard)
    mutating = [tool.name for tool in registry.tools() if tool.mutating]
    delegates = [tool.name for tool in registry.tools() if tool.kind == "delegate"]
    builder.add_conditional_edges("act", route_after_act(mutating, delegates))
    builder.add_conditional_edges("planner", route_after_planner)
    builder.add_conditional_edges("tools", route_after_tools)
    builder.add_conditional_edges("verify", route_after_verify)
    builder.add_edge("finalize", END)
    return builder


_served: list[CompiledStateGraph[AgentState, RunContext, AgentInput, AgentOutput]] = []


async def make_graph() -> CompiledStateGraph[AgentState, RunContext, AgentInput, AgentOutput]:
    """Compile the graph a LangGraph Server serves, once per process.

    The server calls this factory for every run; one graph, one workspace database, one
    model resolver and one set of tools (the deployment's settings, shared with the
    standalone planner) serve them all. The server brings its own checkpointer. It is a
    coroutine because the MCP servers' tools are listed over their sessions.
    """
    if not _served:
        registry = await served_registry()
        _served.append(
            build_graph(served_models(), served_database(), registry).compile(name="agent")
        )
    return _served[0]
