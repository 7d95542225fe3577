"""Studio's path: langgraph.json served by `langgraph dev`, a confirmation interrupt resumed."""

from __future__ import annotations

from langgraph_sdk import get_client

from tests.server.dev_server import DONE, DevServer, create_task

TITLE = "Reshoot the Garlic Press hero image"


async def test_a_confirmation_interrupts_and_resumes_on_the_dev_server(
    dev_server: DevServer, write_script
) -> None:
    client = get_client(url=dev_server.url)
    thread = await client.threads.create()
    thread_id = thread["thread_id"]
    # What Studio sends: a message, and the run's context (here only the scripted model).
    message = {"type": "human", "content": "make the task"}
    await client.runs.wait(
        thread_id,
        "agent",
        input={"messages": [message]},
        context={"model": write_script([create_task(TITLE)])},
    )

    paused = await client.threads.get_state(thread_id)
    assert paused["next"] == ["confirm"]
    [interrupt] = paused["interrupts"]
    assert interrupt["value"]["type"] == "confirmation"
    [proposal] = interrupt["value"]["proposals"]
    assert proposal["tool"] == "create_task" and proposal["args"]["title"] == TITLE
    assert dev_server.tasks_titled(TITLE) == 0

    await client.runs.wait(
        thread_id,
        "agent",
        command={"resume": {interrupt["id"]: {"decision": "approve"}}},
        context={"model": write_script([{"content": DONE}])},
    )

    final = await client.threads.get_state(thread_id)
    assert final["next"] == [] and final["interrupts"] == []
    assert final["values"]["final_text"] == DONE
    [result] = [m for m in final["values"]["messages"] if m["type"] == "tool"]
    assert result["tool_call_id"] == proposal["tool_call_id"]
    assert result["additional_kwargs"]["outcome"] == "ok"
    assert dev_server.tasks_titled(TITLE) == 1
