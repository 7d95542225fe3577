"""A relay (the Slack app, a CLI worker) acts only for people the workspace lists, with the role
it lists for them (langgraph-sdk against an authenticating `langgraph dev`, SQLite and
PostgreSQL workspaces)."""

from __future__ import annotations

import uuid
from typing import Any

from tests.server.dev_server import DONE, TEAM, DevServer, create_task, refusal

MAKE = {"messages": [{"type": "human", "content": "make the task"}]}


async def waiting_for(server: DevServer, user: str, title: str, write_script: Any) -> tuple:
    """A thread where `user` asked for a task titled `title`: its id and the interrupt."""
    client = server.client(user)
    thread = await client.threads.create()
    await client.runs.wait(
        thread["thread_id"],
        "agent",
        input=MAKE,
        context={"model": write_script([create_task(title)])},
    )
    [interrupt] = (await client.threads.get_state(thread["thread_id"]))["interrupts"]
    return thread["thread_id"], interrupt


async def test_a_relay_run_for_someone_the_workspace_does_not_list_is_refused(
    authed_server: DevServer, write_script
) -> None:
    title = "Relay: for a stranger"
    worker = authed_server.client("slack-worker")
    thread = await worker.threads.create()
    script = write_script([create_task(title)])
    for context, said in (
        (
            {"user_id": "U0NOBODY", "user_role": "admin"},
            "U0NOBODY is not a member of this workspace; a relay acts only for its members.",
        ),
        (
            {"user_id": "local-user"},
            "local-user is not a member of this workspace; a relay acts only for its members.",
        ),
        ({}, "A relay's run must name the person it acts for (the context's user_id)."),
        (
            {"user_role": "admin"},
            "A relay's run must name the person it acts for (the context's user_id).",
        ),
    ):
        detail = await refusal(
            worker.runs.wait(
                thread["thread_id"], "agent", input=MAKE, context={**context, "model": script}
            )
        )
        assert detail == said
    # Nor may a stranger decide on a member's waiting change through a relay.
    thread_id, interrupt = await waiting_for(authed_server, "U0GRACE", title, write_script)
    approve = {"resume": {interrupt["id"]: {"decision": "approve"}}}
    for context in ({"user_id": "U0NOBODY", "user_role": "admin"}, {}):
        await refusal(worker.runs.wait(thread_id, "agent", command=approve, context=context))
    state = await worker.threads.get_state(thread_id)
    assert [i["id"] for i in state["interrupts"]] == [interrupt["id"]]
    assert authed_server.tasks_titled(title) == 0
    assert authed_server.recorded_people() - {"seed"} <= TEAM


async def test_a_relay_acts_with_the_listed_role_never_a_claimed_one(
    authed_server: DevServer, write_script
) -> None:
    worker = authed_server.client("slack-worker")
    # Maya is a viewer: claiming admin for her gets no proposal.
    title = "Relay: viewer claimed admin"
    thread = await worker.threads.create()
    out = await worker.runs.wait(
        thread["thread_id"],
        "agent",
        input=MAKE,
        context={
            "user_id": "U0MAYA",
            "user_role": "admin",
            "model": write_script([create_task(title), {"content": "Viewers cannot make tasks."}]),
        },
    )
    [result] = [m for m in out["messages"] if m["type"] == "tool"]
    assert "role 'viewer' may not use create_task" in result["content"]
    state = await worker.threads.get_state(thread["thread_id"])
    assert state["values"]["asker"] == {"user_id": "U0MAYA", "role": "viewer"}
    # Linus is a member: claiming admin does not let him decide on Grace's change.
    title = "Relay: member claimed admin"
    thread_id, interrupt = await waiting_for(authed_server, "U0GRACE", title, write_script)
    approve = {"resume": {interrupt["id"]: {"decision": "approve"}}}
    await worker.runs.wait(
        thread_id, "agent", command=approve, context={"user_id": "U0LINUS", "user_role": "admin"}
    )
    [refused] = (await worker.threads.get_state(thread_id))["interrupts"]
    assert refused["value"]["error"].startswith("Only U0GRACE or an admin can decide")
    assert authed_server.tasks_titled(title) == 0
    # Ada is an admin by the workspace's list: she may.
    approve = {"resume": {refused["id"]: {"decision": "approve"}}}
    await worker.runs.wait(
        thread_id,
        "agent",
        command=approve,
        context={"user_id": "U0ADA", "model": write_script([{"content": DONE}])},
    )
    assert authed_server.task_creators(title) == ["U0GRACE"]
    assert authed_server.recorded_people() - {"seed"} <= TEAM


async def test_a_relay_run_may_not_write_who_asked(authed_server: DevServer) -> None:
    worker = authed_server.client("slack-worker")
    forged = {**MAKE, "asker": {"user_id": "U0NOBODY", "role": "admin"}}
    detail = await refusal(
        worker.runs.wait(
            str(uuid.uuid4()),
            "agent",
            input=forged,
            context={"user_id": "U0GRACE"},
            if_not_exists="create",
        )
    )
    assert detail == "Only an admin may write asker into a thread's state."
