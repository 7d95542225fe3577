"""Who asks and who decides on a server that authenticates its callers (langgraph-sdk against
`langgraph dev` with AGENTLOOP_SERVER_TOKENS, over SQLite and PostgreSQL workspaces)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from langgraph_sdk import get_client

from tests.server.dev_server import DONE, TOKENS, DevServer, create_task

# What an impostor claims in the run's context: another person, and a role they lack.
CLAIMED = {"user_id": "U0ADA", "user_role": "admin"}
NOT_MADE = {"content": "Viewers cannot make tasks, so I did not make it."}


async def proposed(client: Any, title: str, script: str, **context: str) -> tuple[str, Any]:
    """A thread where the client's caller asked for a task titled `title`, and its interrupt."""
    thread = await client.threads.create()
    await client.runs.wait(
        thread["thread_id"],
        "agent",
        input={"messages": [{"type": "human", "content": "make the task"}]},
        context={"model": script, **context},
    )
    state = await client.threads.get_state(thread["thread_id"])
    [interrupt] = state["interrupts"]
    return thread["thread_id"], interrupt


async def test_a_request_without_a_known_token_is_refused(authed_server: DevServer) -> None:
    for client in (
        authed_server.client(),
        get_client(url=authed_server.url, headers={"Authorization": "Bearer not-a-token"}),
    ):
        with pytest.raises(httpx.HTTPStatusError) as refused:
            await client.threads.create()
        assert refused.value.response.status_code == 401
    # The SDK's api_key (x-api-key, what RemoteGraph sends from LANGGRAPH_API_KEY) works too.
    thread = await get_client(url=authed_server.url, api_key=TOKENS["U0GRACE"]).threads.create()
    assert thread["thread_id"]


async def test_the_authenticated_user_asks_and_decides_whatever_the_context_claims(
    authed_server: DevServer, write_script
) -> None:
    title = "Auth: asked by Grace"
    grace = authed_server.client("U0GRACE")
    thread_id, interrupt = await proposed(
        grace, title, write_script([create_task(title)]), **CLAIMED
    )
    assert interrupt["value"]["actor"] == "U0GRACE"
    state = await grace.threads.get_state(thread_id)
    assert state["values"]["asker"] == {"user_id": "U0GRACE", "role": "member"}
    [message] = [m for m in state["values"]["messages"] if m["type"] == "human"]
    assert message["additional_kwargs"]["user_id"] == "U0GRACE"
    # Linus is a member, not the asker: naming Grace (or an admin) in his context is no use.
    linus = authed_server.client("U0LINUS")
    for context in ({}, {"user_id": "U0GRACE"}, CLAIMED):
        await linus.runs.wait(
            thread_id,
            "agent",
            command={"resume": {interrupt["id"]: {"decision": "approve"}}},
            context=context,
        )
        [refused] = (await linus.threads.get_state(thread_id))["interrupts"]
        assert refused["value"]["error"].startswith("Only U0GRACE or an admin can decide")
        interrupt = refused
    assert authed_server.tasks_titled(title) == 0
    # Ada is an admin: she may decide; the task is still Grace's.
    await authed_server.client("U0ADA").runs.wait(
        thread_id,
        "agent",
        command={"resume": {interrupt["id"]: {"decision": "approve"}}},
        context={"model": write_script([{"content": DONE}])},
    )
    assert authed_server.task_creators(title) == ["U0GRACE"]


async def test_a_viewer_gets_no_proposal_whatever_role_the_context_claims(
    authed_server: DevServer, write_script
) -> None:
    title = "Auth: asked by a viewer"
    maya = authed_server.client("U0MAYA")
    thread = await maya.threads.create()
    out = await maya.runs.wait(
        thread["thread_id"],
        "agent",
        input={"messages": [{"type": "human", "content": "make the task"}]},
        context={"model": write_script([create_task(title), NOT_MADE]), **CLAIMED},
    )
    [result] = [m for m in out["messages"] if m["type"] == "tool"]
    assert result["additional_kwargs"]["outcome"] == "refused"
    assert "role 'viewer' may not use create_task" in result["content"]
    assert (await maya.threads.get_state(thread["thread_id"]))["interrupts"] == []


async def test_a_relay_names_the_person_it_acts_for(authed_server: DevServer, write_script) -> None:
    # The Slack app or CLI driving the server with AGENTLOOP_GRAPH_URL has identified the
    # person itself: its runs' context says who they are.
    title = "Auth: relayed for Linus"
    worker = authed_server.client("slack-worker")
    thread_id, interrupt = await proposed(
        worker, title, write_script([create_task(title)]), user_id="U0LINUS"
    )
    assert interrupt["value"]["actor"] == "U0LINUS"
    await worker.runs.wait(
        thread_id,
        "agent",
        command={"resume": {interrupt["id"]: {"decision": "approve"}}},
        context={"user_id": "U0LINUS", "model": write_script([{"content": DONE}])},
    )
    assert authed_server.task_creators(title) == ["U0LINUS"]
