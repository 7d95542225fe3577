"""Edits of a waiting change's state, through Studio's surface (langgraph-sdk against an
authenticating `langgraph dev`, SQLite and PostgreSQL workspaces): who asked and who may
decide come from the workspace's record, and only an admin may edit them at all."""

from __future__ import annotations

import copy
from typing import Any

import httpx
import pytest

from prompts import confirmation
from tests.server.dev_server import DONE, DevServer, create_task


async def waiting(server: DevServer, title: str, write_script: Any) -> tuple[str, dict[str, Any]]:
    """A thread where Grace asked for a task titled `title`: its id and the waiting state."""
    grace = server.client("U0GRACE")
    thread = await grace.threads.create()
    await grace.runs.wait(
        thread["thread_id"],
        "agent",
        input={"messages": [{"type": "human", "content": "make the task"}]},
        context={"model": write_script([create_task(title)])},
    )
    return thread["thread_id"], await grace.threads.get_state(thread["thread_id"])


async def reply(server: DevServer, user: str, thread_id: str, text: str, script: str) -> Any:
    """`user` types `text` into the thread (a new run with the message); its state after."""
    client = server.client(user)
    await client.runs.wait(
        thread_id,
        "agent",
        input={"messages": [{"type": "human", "content": text}]},
        context={"model": script},
    )
    return await client.threads.get_state(thread_id)


def with_actor(pending: dict[str, Any], actor: str) -> dict[str, Any]:
    """The waiting request, edited so that `actor` seems to be who asked."""
    edited = copy.deepcopy(pending)
    edited["actor"] = actor
    for proposal in edited["proposals"]:
        proposal["actor"] = actor
    return edited


async def test_editing_who_may_decide_is_refused_and_never_lets_them_decide(
    authed_server: DevServer, write_script
) -> None:
    title = "Forged: pending actor"
    thread_id, state = await waiting(authed_server, title, write_script)
    edited = with_actor(state["values"]["pending"], "U0LINUS")
    linus = authed_server.client("U0LINUS")
    # A member may not edit the state, by a state update or by a Command carrying the edit.
    with pytest.raises(httpx.HTTPStatusError) as refused:
        await linus.threads.update_state(thread_id, {"pending": edited})
    assert refused.value.response.status_code == 403
    [interrupt] = state["interrupts"]
    with pytest.raises(httpx.HTTPStatusError) as refused:
        await linus.runs.wait(
            thread_id,
            "agent",
            command={
                "update": {"pending": edited},
                "resume": {interrupt["id"]: {"decision": "approve"}},
            },
        )
    assert refused.value.response.status_code == 403
    # An admin may edit it; the record still says Grace asked, so Linus still may not decide.
    await authed_server.client("U0ADA").threads.update_state(thread_id, {"pending": edited})
    after = await reply(authed_server, "U0LINUS", thread_id, "yes, create it", write_script([]))
    [again] = after["interrupts"]
    assert again["value"]["error"] == confirmation.not_as_recorded()
    assert again["value"]["actor"] == "U0GRACE"
    after = await reply(authed_server, "U0LINUS", thread_id, "yes, create it", write_script([]))
    [again] = after["interrupts"]
    assert again["value"]["error"].startswith("Only U0GRACE or an admin can decide")
    assert authed_server.tasks_titled(title) == 0
    # Grace decides her own proposal; it is created once, as hers.
    await reply(authed_server, "U0GRACE", thread_id, "yes, create it", write_script([DONE_TURN]))
    assert authed_server.task_creators(title) == ["U0GRACE"]


DONE_TURN = {"content": DONE}


async def test_rewriting_the_asker_reproposes_the_recorded_change(
    authed_server: DevServer, write_script
) -> None:
    title = "Forged: asker"
    thread_id, state = await waiting(authed_server, title, write_script)
    linus_asks = {"asker": {"user_id": "U0LINUS", "role": "member"}}
    linus = authed_server.client("U0LINUS")
    with pytest.raises(httpx.HTTPStatusError) as refused:
        await linus.threads.update_state(thread_id, linus_asks, as_node="act")
    assert refused.value.response.status_code == 403
    # Written by an admin as the model's step, the call is proposed again: as recorded,
    # Grace's, whoever the state now says asked.
    await authed_server.client("U0ADA").threads.update_state(thread_id, linus_asks, as_node="act")
    await linus.runs.wait(thread_id, "agent", input=None, context={"model": write_script([])})
    after = await linus.threads.get_state(thread_id)
    assert after["values"]["asker"]["user_id"] == "U0LINUS"
    [again] = after["interrupts"]
    [before] = state["interrupts"]
    assert again["value"]["proposals"] == before["value"]["proposals"]
    assert again["value"]["actor"] == "U0GRACE"
    after = await reply(authed_server, "U0LINUS", thread_id, "yes, create it", write_script([]))
    assert after["interrupts"][0]["value"]["error"].startswith("Only U0GRACE or an admin")
    assert authed_server.tasks_titled(title) == 0
    # An admin approves: the change is made as the one who asked, not as the state says.
    await reply(authed_server, "U0ADA", thread_id, "yes, create it", write_script([DONE_TURN]))
    assert authed_server.task_creators(title) == ["U0GRACE"]


async def test_a_forged_fingerprint_on_a_fork_after_approval_makes_nothing_twice(
    authed_server: DevServer, write_script
) -> None:
    title = "Forged: fingerprint"
    thread_id, state = await waiting(authed_server, title, write_script)
    checkpoint = state["checkpoint"]["checkpoint_id"]
    after = await reply(
        authed_server, "U0GRACE", thread_id, "yes, create it", write_script([DONE_TURN])
    )
    assert after["values"]["status"] == "completed"
    assert authed_server.tasks_titled(title) == 1
    # A fork of the waiting checkpoint whose proposal carries another fingerprint (a new
    # idempotency key, were it believed), then the asker's "yes".
    forged = copy.deepcopy(state["values"]["pending"])
    forged["proposals"][0]["proposal_fingerprint"] = "f" * 64
    await authed_server.client("U0ADA").threads.update_state(
        thread_id, {"pending": forged}, checkpoint_id=checkpoint
    )
    after = await reply(authed_server, "U0GRACE", thread_id, "yes, create it", write_script([]))
    [again] = after["interrupts"]
    assert again["value"]["error"] == confirmation.not_as_recorded()
    recorded = state["values"]["pending"]["proposals"][0]["proposal_fingerprint"]
    assert again["value"]["proposals"][0]["proposal_fingerprint"] == recorded
    # Approved again as recorded: the first change's result, not a second change.
    after = await reply(
        authed_server, "U0GRACE", thread_id, "yes, create it", write_script([DONE_TURN])
    )
    [result] = [m for m in after["values"]["messages"] if m["type"] == "tool"]
    assert '"replayed": true' in result["content"]
    assert authed_server.tasks_titled(title) == 1
