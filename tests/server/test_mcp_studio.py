"""An MCP server's tools in Studio: `langgraph dev` lists them; reads answer, changes interrupt."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from langgraph_sdk import get_client

from tests.server.conftest import seeded_workspace, serve
from tests.server.dev_server import DevServer
from tests.support.mcp.desk import Desk

CLOSE = {"tool_calls": [{"name": "tickets__close_ticket", "args": {"ticket": "42"}}]}
LIST = {"tool_calls": [{"name": "tickets__list_tickets", "args": {"status": "open"}}]}


@pytest.fixture(
    scope="module", params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]
)
def desk_server(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[DevServer, Desk]]:
    """A dev server offering the ticket desk (over stdio, its annotations trusted)."""
    home = tmp_path_factory.mktemp(f"mcp-dev-server-{request.param}")
    desk = Desk(home)
    config = desk.write_config({"tickets": desk.stdio(trust="annotations")})
    settings = {"AGENTLOOP_MCP_CONFIG": str(config)}
    with (
        seeded_workspace(request, home) as workspace,
        serve(home, workspace, [], settings) as server,
    ):
        yield server, desk


async def test_a_read_answers_in_studio(desk_server: tuple[DevServer, Desk], write_script) -> None:
    server, desk = desk_server
    client = get_client(url=server.url)
    thread = await client.threads.create()
    await client.runs.wait(
        thread["thread_id"],
        "agent",
        input={"messages": [{"type": "human", "content": "what's open?"}]},
        context={"model": write_script([LIST, {"content": "Tickets 41 and 42 are open."}])},
    )
    state = await client.threads.get_state(thread["thread_id"])
    assert state["values"]["final_text"] == "Tickets 41 and 42 are open."
    [result] = [m for m in state["values"]["messages"] if m["type"] == "tool"]
    assert result["additional_kwargs"]["outcome"] == "ok" and '"41"' in result["content"]
    assert len(desk.calls("list_tickets")) == 1


async def test_a_change_interrupts_and_an_approval_calls_the_server_once(
    desk_server: tuple[DevServer, Desk], write_script
) -> None:
    server, desk = desk_server
    client = get_client(url=server.url)
    thread_id = (await client.threads.create())["thread_id"]
    await client.runs.wait(
        thread_id,
        "agent",
        input={"messages": [{"type": "human", "content": "close 42"}]},
        context={"model": write_script([CLOSE])},
    )
    paused = await client.threads.get_state(thread_id)
    [interrupt] = paused["interrupts"]
    [proposal] = interrupt["value"]["proposals"]
    assert proposal["tool"] == "tickets__close_ticket"
    assert "marks this tool destructive" in proposal["description"]
    assert desk.calls("close_ticket") == []

    done = write_script([{"content": "Ticket 42 is closed."}])
    command = {"resume": {interrupt["id"]: {"decision": "approve"}}}
    await client.runs.wait(thread_id, "agent", command=command, context={"model": done})
    final = await client.threads.get_state(thread_id)
    assert final["values"]["final_text"] == "Ticket 42 is closed."
    assert desk.status("42") == "closed"
    # The same approval sent again (a double click, a retried request) calls nothing.
    again = write_script([{"content": "Nothing is waiting."}])
    await client.runs.wait(thread_id, "agent", command=command, context={"model": again})
    assert len(desk.calls("close_ticket")) == 1
