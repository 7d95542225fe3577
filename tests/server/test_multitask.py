"""A run that interrupts another (`multitask_strategy="interrupt"`) keeps every message the
person sent (langgraph-sdk against an authenticating `langgraph dev`)."""

from __future__ import annotations

from typing import Any

from tests.server.dev_server import DevServer

SLOW = {"content": "The first answer.", "delay_s": 5}


def human(text: str) -> dict[str, Any]:
    return {"messages": [{"type": "human", "content": text}]}


async def started(client: Any, thread_id: str, script: str) -> str:
    """Start a slow run, return its id once its first step has run (its input is in)."""
    stream = client.runs.stream(
        thread_id,
        "agent",
        input=human("FIRST"),
        context={"model": script},
        stream_mode="updates",
        on_disconnect="continue",
    )
    run_id = ""
    async for part in stream:
        if part.event == "metadata":
            run_id = part.data["run_id"]
        elif part.event == "updates":
            break
    await stream.aclose()
    return run_id


async def test_an_interrupting_run_keeps_the_message_of_the_run_it_interrupts(
    authed_server: DevServer, write_script
) -> None:
    grace = authed_server.client("U0GRACE")
    # The first run has not started when the second interrupts it (its input never reached
    # the thread), then one that has.
    for settle in (False, True):
        thread = await grace.threads.create()
        thread_id = thread["thread_id"]
        slow = write_script([SLOW])
        if settle:
            first_id = await started(grace, thread_id, slow)
        else:
            first = await grace.runs.create(
                thread_id, "agent", input=human("FIRST"), context={"model": slow}
            )
            first_id = first["run_id"]
        second = await grace.runs.create(
            thread_id,
            "agent",
            input=human("SECOND"),
            context={"model": write_script([{"content": "The second answer."}])},
            multitask_strategy="interrupt",
        )
        await grace.runs.join(thread_id, second["run_id"])
        state = await grace.threads.get_state(thread_id)
        said = [m["content"] for m in state["values"]["messages"] if m["type"] == "human"]
        assert said == ["FIRST", "SECOND"], settle
        assert state["values"]["final_text"] == "The second answer."
        assert (await grace.runs.get(thread_id, first_id))["status"] == "interrupted"
