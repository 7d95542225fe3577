"""Re-running from the checkpoint that waits inside the planner (Studio's "re-run from here"),
through langgraph-sdk against an authenticating `langgraph dev` (SQLite and PostgreSQL)."""

from __future__ import annotations

import json

from tests.server.dev_server import DONE, DevServer, create_task

STEPS = ["Create the kickoff task"]


async def test_a_rerun_of_the_planners_wait_shows_the_recorded_proposal_and_creates_once(
    authed_server: DevServer, write_script
) -> None:
    title = "Planner re-run once"
    grace = authed_server.client("U0GRACE")
    thread = await grace.threads.create()
    thread_id = thread["thread_id"]
    plan = {"tool_calls": [{"name": "create_plan", "args": {"objective": "kick off"}}]}
    draft = {"content": json.dumps({"steps": STEPS})}
    await grace.runs.wait(
        thread_id,
        "agent",
        input={"messages": [{"type": "human", "content": "plan the kickoff"}]},
        context={"model": write_script([plan, draft, create_task(title)])},
    )
    state = await grace.threads.get_state(thread_id)
    assert state["next"] == ["planner"]
    [interrupt] = state["interrupts"]
    [proposal] = interrupt["value"]["proposals"]
    checkpoint = state["checkpoint"]["checkpoint_id"]
    finish = [{"content": "The kickoff task is made."}, {"content": DONE}]
    await grace.runs.wait(
        thread_id,
        "agent",
        command={"resume": {interrupt["id"]: {"decision": "approve"}}},
        context={"model": write_script(finish)},
    )
    assert authed_server.tasks_titled(title) == 1
    # "Re-run from here" on the waiting checkpoint: LangGraph starts the planner over, and
    # the planner resumes at its recorded proposal, asking the model nothing.
    asked = len(authed_server.model_requests())
    await grace.runs.wait(
        thread_id,
        "agent",
        input=None,
        checkpoint_id=checkpoint,
        context={"model": write_script([])},
    )
    rerun = await grace.threads.get_state(thread_id)
    assert len(authed_server.model_requests()) == asked
    [again] = rerun["interrupts"]
    assert again["value"]["proposals"] == [proposal]
    await grace.runs.wait(
        thread_id,
        "agent",
        command={"resume": {again["id"]: {"decision": "approve"}}},
        context={"model": write_script(finish)},
    )
    done = await grace.threads.get_state(thread_id)
    assert done["values"]["final_text"] == DONE
    assert authed_server.task_creators(title) == ["U0GRACE"]
