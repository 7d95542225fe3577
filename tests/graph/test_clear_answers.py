"""What a person sees around a waiting change and a failed answer, the same on every surface.

A decision typed in the thread stays in its transcript (but is not sent to the model); a
teammate's message about something else, while someone's change waits, is answered as an
ordinary turn and the change waits on, unchanged; a resume that names no decision says
what one looks like; and when every draft fails the answer checks, the person is told in
plain words, while the checks' own reasons stay in the audit.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from sqlalchemy import func, select

from core.db.models import AgentRun
from history.pipeline import is_decision
from tests.support.task_scripts import CREATE, TITLE, ask
from tools.agency.models import Task

DONE = {"content": "Done: the task is created in Thorinox's list."}
OWNER = "Thorinox owns Garlic Press."
UNRELATED = {"tool_calls": [{"name": "unrelated", "args": {}}]}
"""The model's reading of a reply that is about something else."""


def requests(transcript: Path) -> list[list[dict[str, Any]]]:
    return [json.loads(line)["messages"] for line in transcript.read_text().splitlines()]


def said(request: list[dict[str, Any]]) -> list[str]:
    return [m["data"]["content"] for m in request if m["type"] == "human"]


async def tasks(workspace: Any) -> int:
    async with workspace.session() as session:
        query = select(func.count()).select_from(Task).where(Task.title == TITLE)
        return int(await session.scalar(query) or 0)


async def test_a_decision_typed_in_the_thread_stays_in_its_transcript(
    open_runner: Any, write_script: Any, workspace: Any, workspace_url: str, tmp_path: Path
) -> None:
    transcript = tmp_path / "requests.jsonl"
    spec = write_script([CREATE, DONE])
    async with open_runner(
        model=spec, database_url=workspace_url, scripted_transcript=transcript
    ) as runner:
        await runner.run_turn(ask())
        refused = await runner.run_turn(ask("yes, do it", user="U0LINUS"))
        done = await runner.run_turn(ask("yes, create it"))
        history = await runner.history("t1")
    assert refused.status == "refused" and done.status == "completed", done.text
    assert [(type(m).__name__, m.text) for m in history] == [
        ("HumanMessage", "create a task to refresh the images"),
        ("AIMessage", ""),
        ("HumanMessage", "yes, do it"),
        ("HumanMessage", "yes, create it"),
        ("ToolMessage", history[4].text),
        ("AIMessage", DONE["content"]),
    ]
    decisions = [m for m in history if is_decision(m)]
    assert [m.additional_kwargs["user_id"] for m in decisions] == ["U0LINUS", "U0GRACE"]
    # The model learns the decision from the change's result, not from the reply.
    assert said(requests(transcript)[-1]) == ["create a task to refresh the images"]
    assert await tasks(workspace) == 1


async def test_a_teammates_message_is_answered_while_the_change_waits_for_its_asker(
    open_runner: Any, write_script: Any, workspace: Any, workspace_url: str, tmp_path: Path
) -> None:
    transcript = tmp_path / "requests.jsonl"
    spec = write_script([CREATE, UNRELATED, {"content": OWNER}, DONE])
    async with open_runner(
        model=spec, database_url=workspace_url, scripted_transcript=transcript
    ) as runner:
        paused = await runner.run_turn(ask())
        answered = await runner.run_turn(ask("who owns Garlic Press?", user="U0LINUS"))
        waiting = await runner.pending("t1")
        assert await tasks(workspace) == 0
        done = await runner.resume(ask(""), {"decision": "approve"})
        history = await runner.history("t1")

    assert (answered.status, answered.text) == ("completed", OWNER)
    assert answered.run_id != paused.run_id
    [proposal] = paused.interrupts[0]["proposals"]
    assert waiting is not None and waiting["proposals"] == [proposal]
    assert [i["proposals"] for i in answered.interrupts] == [[proposal]]
    assert (done.status, done.text) == ("completed", DONE["content"])
    assert await tasks(workspace) == 1
    assert [(type(m), m.text) for m in history if not isinstance(m, ToolMessage)] == [
        (HumanMessage, "create a task to refresh the images"),
        (HumanMessage, "who owns Garlic Press?"),
        (AIMessage, OWNER),
        (AIMessage, ""),  # the waiting change's calls, back after the answer
        (AIMessage, DONE["content"]),
    ]
    # The teammate's turn was about their question: the waiting calls were not in it.
    aside = requests(transcript)[2]
    assert said(aside) == ["create a task to refresh the images", "who owns Garlic Press?"]
    assert not any(m["type"] == "ai" and m["data"].get("tool_calls") for m in aside)


async def test_a_resume_that_names_no_decision_says_what_one_looks_like(
    open_runner: Any, write_script: Any, workspace_url: str
) -> None:
    async with open_runner(model=write_script([CREATE]), database_url=workspace_url) as runner:
        await runner.run_turn(ask())
        empty = await runner.resume(ask(""), {})
        pending = await runner.pending("t1")
    assert empty.status == "refused"
    assert empty.text.startswith("That names no decision. A decision looks like")
    assert '{"decision": "approve"}' in empty.text and pending is not None


async def test_the_answer_checks_reasons_stay_out_of_the_persons_text(
    open_runner: Any, write_script: Any, workspace: Any, workspace_url: str
) -> None:
    off_topic = {"content": "Bananas are yellow."}
    spec = write_script([off_topic, off_topic, off_topic])
    async with open_runner(model=spec, database_url=workspace_url) as runner:
        result = await runner.run_turn(ask("who owns Garlic Press these days?"))
    assert "after 3 attempts" in result.text
    assert "my drafts did not answer what you asked" in result.text
    assert "mentions none of" not in result.text and "Answer what was asked" not in result.text
    async with workspace.session() as session:
        error = await session.scalar(select(AgentRun.error).where(AgentRun.id == result.run_id))
    assert error is not None and "It does not seem to answer the message" in error
    assert "mentions none of: owns, garlic, press" in error
