"""The graphs langgraph.json declares load from their factories, as a server loads them."""

from __future__ import annotations

import importlib.util
import json
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from pydantic import TypeAdapter

import core.models
import graph.served
from core.planner_state import PlannerResult, PlannerState
from core.run_context import RunContext
from core.settings import get_settings
from core.state import AgentState
from graph.served import served_database, served_models

ROOT = Path(__file__).resolve().parents[2]
GRAPHS = json.loads((ROOT / "langgraph.json").read_text())["graphs"]


def load(entry: str):
    """Load a factory the way the server does: its file as a module of its own."""
    path, _, name = entry.partition(":")
    spec = importlib.util.spec_from_file_location(Path(path).stem, ROOT / path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


@pytest.fixture
async def served(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, sqlite_template: Path
) -> AsyncIterator[None]:
    """A fresh "server process": its settings, model resolver and workspace built anew."""
    workspace = tmp_path / "workspace.sqlite"
    shutil.copy(sqlite_template, workspace)
    monkeypatch.setenv("DATABASE_URL", f"sqlite:///{workspace}")
    monkeypatch.setenv("AGENTLOOP_DATA_DIR", str(tmp_path / "data"))
    _forget_the_process()
    try:
        yield
    finally:
        if served_database.cache_info().currsize:
            await served_database().dispose()
        _forget_the_process()


def _forget_the_process() -> None:
    graph.served._registry.clear()
    get_settings.cache_clear()
    served_models.cache_clear()
    served_database.cache_clear()


async def test_langgraph_json_declares_the_agent_and_the_planner(served) -> None:
    assert set(GRAPHS) == {"agent", "planner"}
    agent = await load(GRAPHS["agent"])()
    assert "planner" in agent.get_graph().nodes
    planner = await load(GRAPHS["planner"])()
    assert {"start", "draft", "review", "step", "confirm", "tools", "finish"} <= set(
        planner.get_graph().nodes
    )


async def test_the_planner_graph_alone_returns_the_report_contract(
    served, write_script, monkeypatch
) -> None:
    steps = ["Look up Thorinox", "Summarize its brands"]
    spec = write_script([{"content": json.dumps({"steps": steps})}])
    monkeypatch.setenv("AGENTLOOP_MODEL", spec)
    planner = await load(GRAPHS["planner"])()
    call = {
        "name": "create_plan",
        "id": "c1",
        "args": {"objective": "Review Thorinox", "execution_mode": "draft_only"},
    }
    out = await planner.ainvoke(
        {"messages": [HumanMessage("plan it"), AIMessage("", tool_calls=[call])]},
        context=RunContext(),
    )
    [message] = out["messages"]
    assert isinstance(message, ToolMessage) and message.tool_call_id == "c1"
    result = PlannerResult.model_validate_json(message.text)
    assert result.parent_run_id == "" and result.status == "blocked"
    assert result.plan is not None and result.plan["steps"] == steps
    assert set(out["plans"]) == {result.plan["plan_id"]}


async def test_each_served_graph_takes_only_a_message(served) -> None:
    # Studio draws its input form from this: what a person sends, not the graph's state.
    for entry in GRAPHS.values():
        inputs = (await load(entry)()).get_input_jsonschema()
        assert set(inputs["properties"]) == {"messages"}, entry
        assert inputs["required"] == ["messages"], entry


async def test_the_planner_node_still_reads_the_turn_from_the_main_graph(served) -> None:
    agent = await load(GRAPHS["agent"])()
    [planner] = [graph for name, graph in agent.get_subgraphs() if name == "planner"]
    assert {"messages", "plans", "run_id", "deadline", "turn_start_id", "asker"} == set(
        planner.get_input_jsonschema()["properties"]
    )


async def test_every_schema_the_server_builds_works_on_this_python(served) -> None:
    # pydantic refuses typing.TypedDict before Python 3.12, anywhere inside a schema; the
    # server then answers null for the schema and Studio shows no input form.
    for entry in GRAPHS.values():
        served_graph = await load(entry)()
        assert served_graph.get_input_jsonschema()["properties"]
        assert served_graph.get_output_jsonschema()["properties"]
    for state in (AgentState, PlannerState):
        assert TypeAdapter(state).json_schema()["properties"]


async def test_both_served_graphs_share_one_model_per_process(
    served, write_script, monkeypatch
) -> None:
    steps = ["Look up Thorinox", "Summarize its brands"]
    answer = "Thorinox sells Garlic Press."
    # One file for the whole process: the planner's draft and steps, then the agent's act.
    spec = write_script(
        [
            {"content": json.dumps({"steps": steps})},
            {"content": "Found Thorinox."},
            {"content": "It has one brand."},
            {"content": answer},
        ]
    )
    monkeypatch.setenv("AGENTLOOP_MODEL", spec)
    built: list[str] = []
    build = core.models.build_chat_model

    def counted(model_spec: str, settings):  # type: ignore[no-untyped-def]
        built.append(model_spec)
        return build(model_spec, settings)

    monkeypatch.setattr(core.models, "build_chat_model", counted)
    agent, planner = await load(GRAPHS["agent"])(), await load(GRAPHS["planner"])()

    planned = await planner.ainvoke(
        {"messages": [HumanMessage("Review Thorinox")]}, context=RunContext()
    )
    [report] = planned["messages"]
    result = PlannerResult.model_validate_json(report.text)
    assert result.status == "completed" and result.plan is not None
    assert result.plan["steps"] == steps

    answered = await agent.ainvoke(
        {"messages": [HumanMessage("Which brands does Thorinox have?")]}, context=RunContext()
    )
    assert answered["final_text"] == answer and answered["status"] == "completed"
    assert set(answered) == {"messages", "final_text", "status", "run_id", "turn_start_id"}
    assert built == [spec]
    assert served_models().resolve(None).unused() == 0  # type: ignore[attr-defined]
