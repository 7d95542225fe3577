"""The clear answers a Studio user gets, through `langgraph dev` and langgraph-sdk.

One bad run context value is one line naming the field; a resume of `{}` or `null` says what
a decision looks like; in a copy of a thread, the asker's approval says why it was not
carried out there; a decision typed in the chat stays in the transcript; a teammate's
message about something else while a change waits is answered, and the change waits on.
"""

from __future__ import annotations

from typing import Any

from langgraph_sdk import get_client

from tests.server.dev_server import DONE, DevServer
from tests.server.test_studio_integrity import waiting_thread

OWNER = "Thorinox owns Garlic Press."
UNRELATED = {"tool_calls": [{"name": "unrelated", "args": {}}]}


def human(text: str) -> dict[str, Any]:
    return {"messages": [{"type": "human", "content": text}]}


async def test_a_bad_context_value_is_one_line_naming_the_field(dev_server: DevServer) -> None:
    client = get_client(url=dev_server.url)
    thread = await client.threads.create()
    run = await client.runs.create(
        thread["thread_id"], "agent", input=human("hi"), context={"user_role": "boss"}
    )
    ended = await client.runs.join(thread["thread_id"], run["run_id"])
    error = ended["__error__"]
    assert error["message"] == (
        "invalid run context: user_role: input should be 'viewer', 'member' or 'admin' (got 'boss')"
    ), error


async def test_a_resume_of_nothing_says_what_a_decision_looks_like(
    dev_server: DevServer, write_script: Any
) -> None:
    client = get_client(url=dev_server.url)
    for value in ({}, None):
        thread_id, interrupt = await waiting_thread(client, f"Studio resume {value}", write_script)
        await client.runs.wait(thread_id, "agent", command={"resume": value})
        [again] = (await client.threads.get_state(thread_id))["interrupts"]
        assert again["id"] == interrupt["id"]
        assert again["value"]["proposals"] == interrupt["value"]["proposals"]
        assert again["value"]["error"].startswith("That carried no decision"), again
        assert '{"decision": "approve"}' in again["value"]["error"]
        assert dev_server.tasks_titled(f"Studio resume {value}") == 0


async def test_an_approval_in_a_copied_thread_says_why_nothing_ran(
    dev_server: DevServer, write_script: Any
) -> None:
    title = "Studio copied thread"
    client = get_client(url=dev_server.url)
    thread_id, interrupt = await waiting_thread(client, title, write_script)
    copy = await client.threads.copy(thread_id)
    [copied] = (await client.threads.get_state(copy["thread_id"]))["interrupts"]
    done = {"model": write_script([{"content": DONE}])}
    await client.runs.wait(
        copy["thread_id"], "agent", command={"resume": {copied["id"]: {"decision": "approve"}}},
        context=done,
    )  # fmt: skip
    [refused] = (await client.threads.get_state(copy["thread_id"]))["interrupts"]
    assert refused["value"]["error"].startswith("This change was proposed in another thread")
    assert dev_server.tasks_titled(title) == 0
    await client.runs.wait(
        thread_id, "agent", command={"resume": {interrupt["id"]: {"decision": "approve"}}},
        context=done,
    )  # fmt: skip
    assert dev_server.tasks_titled(title) == 1


async def test_a_decision_typed_in_the_chat_stays_in_the_transcript(
    dev_server: DevServer, write_script: Any
) -> None:
    title = "Studio typed decision"
    client = get_client(url=dev_server.url)
    thread_id, _ = await waiting_thread(client, title, write_script)
    await client.runs.wait(
        thread_id,
        "agent",
        input=human("yes, create it"),
        context={"model": write_script([{"content": DONE}])},
    )
    state = await client.threads.get_state(thread_id)
    spoken = [
        (m["type"], m["content"])
        for m in state["values"]["messages"]
        if m["content"] and m["type"] != "tool"
    ]
    assert spoken == [("human", "make the task"), ("human", "yes, create it"), ("ai", DONE)]
    assert dev_server.tasks_titled(title) == 1


async def test_a_teammates_message_is_answered_and_the_change_waits_on(
    dev_server: DevServer, write_script: Any
) -> None:
    title = "Studio teammate"
    client = get_client(url=dev_server.url)
    thread_id, interrupt = await waiting_thread(client, title, write_script)
    await client.runs.wait(
        thread_id,
        "agent",
        input=human("who owns Garlic Press?"),
        context={"user_id": "U0LINUS", "model": write_script([UNRELATED, {"content": OWNER}])},
    )
    state = await client.threads.get_state(thread_id)
    assert state["values"]["final_text"] == OWNER
    [waiting] = state["interrupts"]
    assert waiting["value"]["proposals"] == interrupt["value"]["proposals"]
    assert "error" not in waiting["value"]
    await client.runs.wait(
        thread_id, "agent", command={"resume": {waiting["id"]: {"decision": "approve"}}},
        context={"model": write_script([{"content": DONE}])},
    )  # fmt: skip
    assert dev_server.tasks_titled(title) == 1
