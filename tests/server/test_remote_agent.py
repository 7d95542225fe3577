"""RemoteAgent turns the server's JSON back into what the runner reads (no server needed)."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import httpx
from langchain_core.messages import AIMessage, RemoveMessage
from langgraph_sdk.errors import NotFoundError
from langgraph_sdk.schema import StreamPart

from core.run_context import RunContext
from graph.remote import RemoteAgent, server_thread_id


class FakeClient:
    """The two calls of the SDK client the runner's reads and runs go through."""

    def __init__(self, parts: list[StreamPart]) -> None:
        self.parts = parts
        self.runs = self
        self.threads = self
        self.calls: list[dict[str, Any]] = []

    async def stream(self, **kwargs: Any):
        self.calls.append(kwargs)
        for part in self.parts:
            yield part

    async def get_state(self, **kwargs: Any) -> dict[str, Any]:
        self.calls.append(kwargs)
        request = httpx.Request("GET", "http://127.0.0.1/threads")
        raise NotFoundError("no thread", response=httpx.Response(404, request=request), body=None)


def test_thread_ids_map_to_stable_uuids() -> None:
    known = str(uuid.uuid4())
    assert server_thread_id(known) == known
    assert server_thread_id("T0:C1:1.2") == server_thread_id("T0:C1:1.2") != server_thread_id("t1")
    uuid.UUID(server_thread_id("t1"))


async def test_a_run_streams_message_objects_and_sends_the_callers_context() -> None:
    answer = AIMessage("", tool_calls=[{"name": "lookup", "args": {}, "id": "c1"}], id="a1")
    client = FakeClient(
        [
            StreamPart("updates", {"act": {"messages": [answer.model_dump()]}}),
            StreamPart(
                "updates|planner:p1", {"start": {"messages": [{"type": "remove", "id": "m1"}]}}
            ),
            StreamPart("custom", {"type": "agent_state", "state": "thinking"}),
        ]
    )
    agent = RemoteAgent("agent", client=client)  # type: ignore[arg-type]
    chunks = [
        chunk
        async for chunk in agent.astream(
            {"messages": []},
            {"configurable": {"thread_id": "t1"}},
            context=RunContext(user_id="U1", context_dir=Path("/srv/context")),
            stream_mode=["custom", "updates"],
            subgraphs=True,
            durability="sync",
        )
    ]
    assert chunks[0] == ((), "updates", {"act": {"messages": [answer]}})
    [removed] = chunks[1][2]["start"]["messages"]
    assert chunks[1][0] == ("planner:p1",) and isinstance(removed, RemoveMessage)
    assert chunks[2] == ((), "custom", {"type": "agent_state", "state": "thinking"})
    [call] = client.calls
    assert call["thread_id"] == server_thread_id("t1") and call["durability"] == "sync"
    # Only what a caller may choose travels; the deployment's values are the server's.
    assert call["context"]["user_id"] == "U1" and "context_dir" not in call["context"]


async def test_a_thread_the_server_never_saw_is_empty() -> None:
    agent = RemoteAgent("agent", client=FakeClient([]))  # type: ignore[arg-type]
    snapshot = await agent.aget_state({"configurable": {"thread_id": "t-new"}})
    assert snapshot.values == {} and snapshot.next == () and snapshot.interrupts == ()
