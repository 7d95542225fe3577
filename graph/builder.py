"""Builds the agent graph; `make_graph` is the factory LangGraph Studio/Server loads."""

from __future__ import annotations

import functools

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from app.db.engine import Database, open_database
from app.models import ModelResolver
from app.settings import get_settings
from graph.context import Context
from graph.planner import build_planner
from graph.routing import (
    route_after_act,
    route_after_guard,
    route_after_planner,
    route_after_tools,
    route_after_verify,
)
from graph.state import AgentState
from nodes.act import Act
from nodes.confirm import Confirm
from nodes.finalize import finalize
from nodes.gather import Gather
from nodes.guard import guard
from nodes.tools import Tools
from nodes.verify import Verify
from tools.registry import ToolRegistry, default_registry


def build_graph(
    registry: ToolRegistry | None = None,
    models: ModelResolver | None = None,
    db: Database | None = None,
) -> StateGraph[AgentState, Context, AgentState, AgentState]:
    """Return the uncompiled graph: guard → gather → act ⇄ (confirm →) tools → verify → finalize."""
    registry = default_registry() if registry is None else registry
    builder = StateGraph(AgentState, context_schema=Context)
    builder.add_node("guard", guard)
    builder.add_node("gather", Gather(db))
    builder.add_node("act", Act(registry, models, db))
    builder.add_node("planner", build_planner(registry, models, db).compile(name="planner"))
    builder.add_node("confirm", Confirm(registry))
    builder.add_node("tools", Tools(registry, db))
    builder.add_node("verify", Verify(registry, models))
    builder.add_node("finalize", finalize)
    builder.add_edge(START, "guard")
    builder.add_conditional_edges("guard", route_after_guard)
    builder.add_edge("gather", "act")
    mutating = [tool.name for tool in registry.tools() if tool.mutating]
    delegates = [tool.name for tool in registry.tools() if tool.kind == "delegate"]
    builder.add_conditional_edges("act", route_after_act(mutating, delegates))
    builder.add_conditional_edges("planner", route_after_planner)
    builder.add_conditional_edges("tools", route_after_tools)
    builder.add_conditional_edges("verify", route_after_verify)
    builder.add_edge("finalize", END)
    return builder


@functools.cache
def make_graph() -> CompiledStateGraph[AgentState, Context, AgentState, AgentState]:
    """Compile the graph a LangGraph Server serves, once per process.

    The server calls this factory for every run; one graph and one workspace database (the
    deployment's settings) serve them all, so gather searches the workspace there too. The
    server brings its own checkpointer.
    """
    return build_graph(db=open_database(get_settings())).compile(name="agent")
