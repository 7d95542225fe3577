"""A turn cancelled in its tools step leaves no dangling tool call; the next turn is valid."""

from __future__ import annotations

import asyncio

from langchain_core.messages import AIMessage, ToolMessage

from app.slack.stopping import STOPPED, close_stopped_turn, dangling_calls
from graph.runner import TurnRequest
from tests.support.faulty_tools import faulty_registry

HANG_AND_ECHO = {
    "tool_calls": [
        {"name": "hang", "id": "call_hang", "args": {}},
        {"name": "echo", "id": "call_echo", "args": {"text": "Garlic Press"}},
    ]
}


def ask(text: str) -> TurnRequest:
    return TurnRequest(thread_id="t-stop", user_id="U0GRACE", message=text)


async def test_stopping_in_the_tools_step_closes_every_call(open_runner, write_script) -> None:
    spec = write_script([HANG_AND_ECHO, {"content": "Garlic Press echoes back: Garlic Press."}])
    async with open_runner(faulty_registry(), model=spec) as runner:
        calling = asyncio.Event()

        def on_event(event: dict) -> None:
            if event.get("type") == "tool.call":
                calling.set()

        turn = asyncio.create_task(runner.run_turn(ask("echo Garlic Press"), on_event=on_event))
        await asyncio.wait_for(calling.wait(), 10)
        turn.cancel()
        await asyncio.gather(turn, return_exceptions=True)
        stopped = await runner.history("t-stop")
        assert [c["id"] for c in dangling_calls(stopped)] == ["call_hang", "call_echo"]

        assert await close_stopped_turn(runner, "t-stop") is True
        assert await close_stopped_turn(runner, "t-stop") is False
        history = await runner.history("t-stop")
        assert dangling_calls(history) == []
        results = {m.tool_call_id: m for m in history if isinstance(m, ToolMessage)}
        assert set(results) == {"call_hang", "call_echo"}
        assert "stopped by the person" in results["call_hang"].text
        assert isinstance(history[-1], AIMessage) and history[-1].text == STOPPED
        assert await runner.pending("t-stop") is None

        # A button click on the stopped thread finds nothing to finish.
        refused = await runner.resume(ask(""), {"decision": "approve"})
        assert refused.status == "refused"
        result = await runner.run_turn(ask("echo Garlic Press again"))
    assert result.status == "completed"
    assert result.text == "Garlic Press echoes back: Garlic Press."
