"""Leave a thread valid after its running turn was cancelled ("stop").

LangGraph checkpoints after each step, so a turn cancelled mid-way leaves a checkpoint with
steps still to run and, when it stopped in the tools step, an AI message whose tool calls
have no results. `close_stopped_turn` gives each such call a result saying it was stopped,
adds a short assistant reply, and records them as the finalize step, so the thread has
nothing left to run and its next message starts a fresh, well-formed turn.
"""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, ToolMessage

from core.messages import unanswered_calls
from graph.runner import Runner

STOPPED = "Stopped, as asked. Nothing more will run for that message."
_CALL_STOPPED = (
    "This call was stopped by the person before it finished; its effect is unknown. "
    "Do not assume it ran, and do not retry it unless asked."
)


def dangling_calls(messages: list[BaseMessage]) -> list[dict[str, Any]]:
    """Return the tool calls of the last AI message that have no ToolMessage."""
    return [{"id": c.id, "name": c.name} for c in unanswered_calls(messages) if c.id]


async def close_stopped_turn(runner: Runner, thread_id: str) -> bool:
    """Close a thread's cancelled turn; return False when nothing was left half done."""
    config: Any = {"configurable": {"thread_id": thread_id}}
    snapshot = await runner.graph.aget_state(config)
    if not snapshot.next or snapshot.interrupts:
        return False
    messages = list(snapshot.values.get("messages", []))
    closing: list[BaseMessage] = [
        ToolMessage(
            content=_CALL_STOPPED,
            tool_call_id=call["id"],
            name=call.get("name") or "unknown",
            status="error",
            additional_kwargs={"outcome": "stopped"},
        )
        for call in dangling_calls(messages)
    ]
    closing.append(AIMessage(content=STOPPED))
    await runner.graph.aupdate_state(config, {"messages": closing}, as_node="finalize")
    return True
