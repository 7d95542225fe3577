"""Per-turn caps end the turn with an honest message and a valid history."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, ToolMessage

from graph.runner import TurnRequest
from tests.support.faulty_tools import faulty_registry


async def turn(open_runner: Any, spec: str, **settings: Any) -> tuple[Any, list, list[dict]]:
    events: list[dict] = []
    async with open_runner(faulty_registry(), model=spec, **settings) as runner:
        result = await runner.run_turn(
            TurnRequest(thread_id="t", user_id="u", message="go"), on_event=events.append
        )
        history = await runner.history("t")
    return result, history, events


def echo_calls(n: int) -> dict:
    return {"tool_calls": [{"name": "echo", "args": {"text": str(i)}} for i in range(n)]}


async def test_more_than_eight_calls_in_a_turn(open_runner, write_script) -> None:
    spec = write_script([echo_calls(5), echo_calls(5)])
    result, history, events = await turn(open_runner, spec)
    assert result.status == "capped"
    assert "more than 8 tool calls" in result.text
    outcomes = [e["outcome"] for e in events if e["type"] == "tool.result"]
    assert outcomes.count("ok") == 8 and outcomes.count("capped") == 2
    tool_messages = [m for m in history if isinstance(m, ToolMessage)]
    assert len(tool_messages) == 10, "every call, capped ones included, has a ToolMessage"
    assert isinstance(history[-1], AIMessage) and history[-1].text == result.text


async def test_seventh_round_is_refused(open_runner, write_script) -> None:
    spec = write_script([echo_calls(1) for _ in range(7)])
    result, history, _ = await turn(open_runner, spec, max_tool_calls_per_turn=50)
    assert result.status == "capped" and "after 6 rounds" in result.text
    assert sum(isinstance(m, ToolMessage) for m in history) == 7
    assert [r.status for r in result.tool_calls].count("ok") == 6


async def test_turn_timeout_stops_the_turn(open_runner, write_script) -> None:
    spec = write_script([{"tool_calls": [{"name": "hang", "args": {}}]}])
    result, history, _ = await turn(open_runner, spec, turn_timeout_s=0.5)
    assert result.status == "capped"
    assert "longer than 0.5 seconds" in result.text
    [message] = [m for m in history if isinstance(m, ToolMessage)]
    assert "timed out" in message.text


async def test_recursion_limit_is_explicit(open_runner) -> None:
    async with open_runner(faulty_registry()) as runner:
        config = runner.driver.config_for("t", "00000000-0000-0000-0000-000000000001", "u")
    # guard + gather, 6 act→propose→confirm→tools rounds, 3 act+verify attempts, finalize;
    # plus the confirm step of a dismissed proposal and a margin of 4.
    assert config["recursion_limit"] == 1 + (2 + 4 * 6 + 2 * 3 + 1) + 4


async def test_a_turn_out_of_time_answers_with_what_its_tools_found(
    open_runner, write_script
) -> None:
    spec = write_script([echo_calls(1), {"content": "too late", "delay_s": 2.0}])
    result, _, _ = await turn(open_runner, spec, turn_timeout_s=1.0)
    assert result.status == "capped"
    assert result.text.startswith("I stopped because this turn took longer than 1 seconds.")
    assert "echo: echo 0" in result.text and "too late" not in result.text
