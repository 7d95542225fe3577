"""Run a turn of the real compiled graph with chosen per-run context values.

The runner fills `Context` from `Settings`; these tests set context-management values
(guard mode, context folder, window) per run, as LangGraph Studio or a server would.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, messages_from_dict

from graph.runner import Runner, TurnRequest


@dataclass
class Turn:
    """What one turn left behind: the state and every streamed chunk, in order."""

    state: dict[str, Any]
    chunks: list[tuple[str, Any]] = field(default_factory=list)

    def phases(self) -> list[str]:
        """Names of the nodes that finished, in order."""
        return [
            chunk["name"] for mode, chunk in self.chunks if mode == "tasks" and "result" in chunk
        ]

    def update_of(self, node: str) -> dict[str, Any]:
        """The last update a node wrote."""
        updates = [c[node] for mode, c in self.chunks if mode == "updates" and node in c]
        return updates[-1]


async def run(
    runner: Runner, message: str, thread: str = "t", user_role: str = "member", **context: Any
) -> Turn:
    """Run one turn with `context` overriding the runner's per-run context."""
    run_id = str(uuid.uuid4())
    request = TurnRequest(thread_id=thread, user_id="U1", message=message, user_role=user_role)
    ctx = runner.driver.context_for(request, run_id).model_copy(update=context)
    config = runner.driver.config_for(thread, run_id, "U1")
    turn = Turn(state={})
    async for mode, chunk in runner.graph.astream(
        {"messages": [HumanMessage(message)]},
        config,
        context=ctx,
        stream_mode=["tasks", "updates", "custom"],
    ):
        turn.chunks.append((mode, chunk))
    turn.state = dict((await runner.graph.aget_state(config)).values)
    return turn


def requests(transcript: Path) -> list[list[BaseMessage]]:
    """Every request the scripted model received, as messages."""
    if not transcript.exists():
        return []
    lines = transcript.read_text(encoding="utf-8").splitlines()
    return [messages_from_dict(json.loads(line)["messages"]) for line in lines]
