"""The graphs langgraph.json declares load from their factories; the planner runs standalone."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from app.settings import get_settings
from graph.context import Context
from graph.planner_state import PlannerResult

ROOT = Path(__file__).resolve().parents[2]


def load(entry: str):
    path, _, name = entry.partition(":")
    spec = importlib.util.spec_from_file_location(Path(path).stem, ROOT / path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def test_langgraph_json_declares_the_agent_and_the_planner() -> None:
    graphs = json.loads((ROOT / "langgraph.json").read_text())["graphs"]
    assert set(graphs) == {"agent", "planner"}
    agent = load(graphs["agent"])()
    assert "planner" in agent.get_graph().nodes
    planner = load(graphs["planner"])()
    assert {"start", "draft", "review", "step", "confirm", "tools", "finish"} <= set(
        planner.get_graph().nodes
    )


async def test_the_planner_graph_alone_returns_the_report_contract(
    write_script, monkeypatch
) -> None:
    steps = ["Look up Thorinox", "Summarize its brands"]
    spec = write_script([{"content": json.dumps({"steps": steps})}])
    monkeypatch.setenv("AGENTLOOP_MODEL", spec)
    get_settings.cache_clear()
    try:
        planner = load(json.loads((ROOT / "langgraph.json").read_text())["graphs"]["planner"])()
        call = {
            "name": "create_plan",
            "id": "c1",
            "args": {"objective": "Review Thorinox", "execution_mode": "draft_only"},
        }
        out = await planner.ainvoke(
            {
                "messages": [HumanMessage("plan it"), AIMessage("", tool_calls=[call])],
                "run_id": "parent-run",
            },
            context=Context(),
        )
    finally:
        get_settings.cache_clear()
    [message] = out["messages"]
    assert isinstance(message, ToolMessage) and message.tool_call_id == "c1"
    result = PlannerResult.model_validate_json(message.text)
    assert result.parent_run_id == "parent-run" and result.status == "blocked"
    assert result.plan is not None and result.plan["steps"] == steps
    assert set(out["plans"]) == {result.plan["plan_id"]}
