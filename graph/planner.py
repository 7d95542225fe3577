"""The planner subgraph: start → draft → (review) → step ⇄ (propose → confirm →) tools → finish.

It is compiled on its own and added to the main graph as the `planner` node, so Studio
shows it as a subgraph and its interrupts and checkpoints live under the main thread.
`make_planner_graph` is the factory LangGraph Studio/Server loads on its own.
"""

from __future__ import annotations

from typing import TypeVar

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from core.db.engine import Database
from core.models import ModelResolver
from core.planner_state import PlannerInput, PlannerOutput, PlannerRequest, PlannerState
from core.run_context import RunContext
from graph.routing import route_after_planner_tools, route_after_step
from graph.served import served_database, served_models, served_registry
from nodes.confirm import PlannerConfirm
from nodes.planner.draft import Draft
from nodes.planner.finish import Finish
from nodes.planner.review import Review
from nodes.planner.start import Start
from nodes.planner.step import Step
from nodes.propose import PlannerPropose
from nodes.tools import Tools
from tools.registry import ToolRegistry

_Input = TypeVar("_Input", PlannerInput, PlannerRequest)


def build_planner(
    models: ModelResolver, db: Database, registry: ToolRegistry
) -> StateGraph[PlannerState, RunContext, PlannerInput, PlannerOutput]:
    """Return the uncompiled planner graph over the same tools and policy as the main one.

    As the main graph's node it reads the main graph's state it needs (`PlannerInput`): the
    turn's run, deadline and asker, and the thread's plans.
    """
    return _planner(models, db, registry, PlannerInput)


def _planner(
    models: ModelResolver, db: Database, registry: ToolRegistry, request: type[_Input]
) -> StateGraph[PlannerState, RunContext, _Input, PlannerOutput]:
    builder = StateGraph(
        PlannerState,
        context_schema=RunContext,
        input_schema=request,
        output_schema=PlannerOutput,
    )
    builder.add_node("start", Start(db, models))
    builder.add_node("draft", Draft(models))
    builder.add_node("review", Review(models))
    builder.add_node("step", Step(registry, models))
    builder.add_node("propose", PlannerPropose(registry, db))
    builder.add_node("confirm", PlannerConfirm(registry, models, db))
    builder.add_node("tools", Tools(registry, db))
    builder.add_node("finish", Finish(registry))
    builder.add_edge(START, "start")
    mutating = [tool.name for tool in registry.tools() if tool.mutating]
    builder.add_conditional_edges("step", route_after_step(mutating))
    builder.add_conditional_edges("tools", route_after_planner_tools)
    builder.add_edge("finish", END)
    return builder


_served: list[CompiledStateGraph[PlannerState, RunContext, PlannerRequest, PlannerOutput]] = []


async def make_planner_graph() -> CompiledStateGraph[
    PlannerState, RunContext, PlannerRequest, PlannerOutput
]:
    """Compile the planner on its own (Studio/Server), once per process.

    A caller sends it a message (`PlannerRequest`); the rest of its state is its own, kept
    in the thread. It shares the agent graph's model resolver and workspace database
    (`graph.served`).
    """
    if not _served:
        registry = await served_registry()
        planner = _planner(served_models(), served_database(), registry, PlannerRequest)
        _served.append(planner.compile(name="planner"))
    return _served[0]
