"""The benchmark's do-nothing graph runs the agent graph's checkpointed steps, turn by turn."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from bench.concurrency import ANSWER, TOOL_THEN_ANSWER, Shape, _baseline_quote, quote
from bench.latency_model import LatencyChatModel
from bench.shape_floor import shape_floor
from graph.runner import TurnRequest
from tools.registry import ToolRegistry

TEXT = [{"content": ANSWER}]
TOOL = [{"tool_calls": [{"name": "quote", "args": {"key": "x"}}]}, {"content": ANSWER}]


async def _steps(graph: Any, config: Any) -> list[list[str]]:
    return [
        sorted(task.name for task in snapshot.tasks)
        async for snapshot in graph.aget_state_history(config)
    ]


@pytest.mark.parametrize(("script", "shape"), [(TEXT, None), (TOOL, TOOL_THEN_ANSWER)])
async def test_floor_takes_the_agent_graphs_steps(
    open_runner, write_script, script: list[dict[str, Any]], shape: Shape | None
) -> None:
    config: Any = {"configurable": {"thread_id": "t"}}
    async with open_runner(ToolRegistry([quote]), model=write_script(script)) as runner:
        request = TurnRequest(thread_id="t", user_id="U1", message="What is the answer?")
        result = await runner.run_turn(request)
        agent_steps = await _steps(runner.graph, config)
    assert result.status == "completed" and result.text == ANSWER

    tool = shape.tool if shape else None
    model = LatencyChatModel(latency_s=0, answer=ANSWER, tool=tool, tool_args={"key": "x"})
    floor = shape_floor(model, InMemorySaver(), _baseline_quote)
    state = await floor.ainvoke({"messages": [HumanMessage("What is the answer?")]}, config)

    assert state["status"] == "completed" and state["final_text"] == ANSWER
    assert await _steps(floor, config) == agent_steps
    assert ["tools"] in agent_steps if tool else ["tools"] not in agent_steps
