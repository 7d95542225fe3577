"""Mutations pause for a decision and run exactly once (real create_task on the workspace)."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import HumanMessage, ToolMessage
from langgraph.types import Command
from sqlalchemy import func, select

from core.db.models import MutationReceipt
from tests.support.task_scripts import CREATE, TITLE, ask
from tools.agency.models import Task

DONE = {"content": "Done: the task is created in Thorinox's list."}


async def tasks(workspace: Any, title: str = TITLE) -> int:
    async with workspace.session() as session:
        return await session.scalar(
            select(func.count()).select_from(Task).where(Task.title == title)
        )


def requests(transcript: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in transcript.read_text().splitlines()]


def tool_results(history: list) -> dict[str, ToolMessage]:
    return {m.tool_call_id: m for m in history if isinstance(m, ToolMessage)}


async def test_ask_pauses_then_approve_runs_once(
    open_runner, write_script, workspace, workspace_url
) -> None:
    spec = write_script([CREATE, DONE])
    async with open_runner(model=spec, database_url=workspace_url) as runner:
        paused = await runner.run_turn(ask())
        assert paused.status == "needs_confirmation"
        assert "Shall I go ahead?" in paused.text
        [request] = paused.interrupts
        [proposal] = request["proposals"]
        assert proposal["tool"] == "create_task" and proposal["actor"] == "U0GRACE"
        assert proposal["args"]["title"] == TITLE
        assert TITLE in proposal["description"]
        assert len(proposal["proposal_fingerprint"]) == 64
        assert proposal["expires_at"] > proposal["created_at"]
        assert paused.tool_calls[0].status == "pending_confirmation"
        assert await tasks(workspace) == 0

        done = await runner.resume(ask(), {"decision": "approve"})
        assert done.status == "completed"
        assert done.text == DONE["content"]
        assert done.tool_calls[0].status == "ok"
        assert done.tool_calls[0].result["status"] == "created"
        assert await tasks(workspace) == 1

        again = await runner.resume(ask(), {"decision": "approve"})
        assert again.status == "refused"
        assert "nothing waiting" in again.text
    assert await tasks(workspace) == 1


async def test_a_clear_yes_in_the_thread_approves(
    open_runner, write_script, workspace, workspace_url
) -> None:
    spec = write_script([CREATE, DONE])
    async with open_runner(model=spec, database_url=workspace_url) as runner:
        await runner.run_turn(ask())
        result = await runner.run_turn(ask("yes, create it"))
    assert result.status == "completed" and result.text == DONE["content"]
    assert await tasks(workspace) == 1


async def test_a_clear_no_rejects_and_the_model_is_told(
    open_runner, write_script, workspace, workspace_url, tmp_path
) -> None:
    transcript = tmp_path / "requests.jsonl"
    spec = write_script([CREATE, {"content": "OK, I did not create the task."}])
    async with open_runner(
        model=spec, database_url=workspace_url, scripted_transcript=transcript
    ) as runner:
        await runner.run_turn(ask())
        result = await runner.run_turn(ask("no, cancel"))
        history = await runner.history("t1")
    assert result.status == "completed"
    assert result.tool_calls[0].status == "rejected"
    message = tool_results(history)["call_create"]
    assert "rejected this change" in message.text and "do not call this tool again" in message.text
    assert "no, cancel" in message.text
    last_request = requests(transcript)[-1]["messages"]
    assert "rejected this change" in last_request[-1]["data"]["content"]
    assert await tasks(workspace) == 0


async def test_an_unrelated_message_drops_the_proposal_and_is_answered(
    open_runner, write_script, workspace, workspace_url, tmp_path
) -> None:
    transcript = tmp_path / "requests.jsonl"
    spec = write_script(
        [CREATE, {"content": "unrelated"}, {"content": "Garlic Press belongs to Thorinox."}]
    )
    async with open_runner(
        model=spec, database_url=workspace_url, scripted_transcript=transcript
    ) as runner:
        await runner.run_turn(ask())
        result = await runner.run_turn(ask("which client owns Garlic Press?"))
        assert await runner.pending("t1") is None
        history = await runner.history("t1")
    assert result.status == "completed"
    assert result.text == "Garlic Press belongs to Thorinox."
    assert "did not confirm" in tool_results(history)["call_create"].text
    assert isinstance(history[-2], HumanMessage)
    assert history[-2].text == "which client owns Garlic Press?"
    sent = requests(transcript)
    classify = sent[1]
    assert classify["tools"] == ["unrelated", "approve", "reject"]
    assert "Proposed change(s)" in classify["messages"][0]["data"]["content"]
    assert classify["messages"][-1]["data"]["content"] == "which client owns Garlic Press?"
    answer_request = [m["data"]["content"] for m in sent[2]["messages"]]
    assert any("did not confirm" in str(c) for c in answer_request)
    assert answer_request[-1] == "which client owns Garlic Press?"
    assert await tasks(workspace) == 0


@pytest.mark.parametrize(
    "meaning",
    [
        {"content": "approve"},  # a model that answers in text: its first word
        {"tool_calls": [{"name": "approve", "args": {}}]},  # one that calls the meaning tool
    ],
)
async def test_an_unclear_reply_the_model_reads_as_yes_approves(
    open_runner, write_script, workspace, workspace_url, meaning
) -> None:
    spec = write_script([CREATE, meaning, DONE])
    async with open_runner(model=spec, database_url=workspace_url) as runner:
        await runner.run_turn(ask())
        result = await runner.run_turn(ask("alright, that title works for me"))
    assert result.status == "completed"
    assert await tasks(workspace) == 1


async def test_a_reply_the_model_calls_reject_on_runs_nothing(
    open_runner, write_script, workspace, workspace_url
) -> None:
    rejected = {"tool_calls": [{"name": "reject", "args": {}}]}
    spec = write_script([CREATE, rejected, {"content": "Left it."}])
    async with open_runner(model=spec, database_url=workspace_url) as runner:
        await runner.run_turn(ask())
        result = await runner.run_turn(ask("hmm, I'd rather not"))
        history = await runner.history("t1")
    assert result.status == "completed"
    assert "rejected this change" in tool_results(history)["call_create"].text
    assert await tasks(workspace) == 0


async def test_only_the_actor_or_an_approver_role_decides(
    open_runner, write_script, workspace, workspace_url
) -> None:
    spec = write_script([CREATE, DONE])
    async with open_runner(model=spec, database_url=workspace_url) as runner:
        await runner.run_turn(ask())
        other = await runner.resume(ask(user="U0MALLORY"), {"decision": "approve"})
        assert other.status == "refused"
        assert "Only U0GRACE or an admin can decide" in other.text
        assert await runner.pending("t1") is not None
        also = await runner.run_turn(ask("yes", user="U0MALLORY"))
        assert also.status == "refused"
        assert await tasks(workspace) == 0
        admin = await runner.resume(ask(user="U0ADA", user_role="admin"), {"decision": "approve"})
    assert admin.status == "completed"
    assert await tasks(workspace) == 1


async def test_an_expired_proposal_is_refused(
    open_runner, write_script, workspace, workspace_url
) -> None:
    spec = write_script([CREATE])
    async with open_runner(model=spec, database_url=workspace_url) as runner:
        await runner.run_turn(ask())
        runner.clock = lambda: time.time() + 25 * 3600  # a day and an hour later
        result = await runner.resume(ask(), {"decision": "approve"})
        assert result.status == "refused" and "expired" in result.text
        yes = await runner.run_turn(ask("yes"))
        assert yes.status == "refused" and "expired" in yes.text
    assert await tasks(workspace) == 0


async def test_edit_is_validated_then_runs_with_the_new_arguments(
    open_runner, write_script, workspace, workspace_url
) -> None:
    spec = write_script([CREATE, DONE])
    async with open_runner(model=spec, database_url=workspace_url) as runner:
        await runner.run_turn(ask())
        bad = await runner.resume(ask(), {"decision": "edit", "args": {"title": ""}})
        assert bad.status == "refused"
        assert "title" in bad.text and "not valid" in bad.text
        assert await runner.pending("t1") is not None
        good = await runner.resume(ask(), {"decision": "edit", "args": {"title": "New title"}})
    assert good.status == "completed"
    assert good.tool_calls[0].result["task"]["title"] == "New title"
    assert await tasks(workspace) == 0
    assert await tasks(workspace, "New title") == 1


async def test_a_decision_for_another_proposal_is_never_applied(
    open_runner, write_script, workspace, workspace_url
) -> None:
    spec = write_script([CREATE, DONE])
    async with open_runner(model=spec, database_url=workspace_url) as runner:
        await runner.run_turn(ask())
        stale = await runner.resume(ask(), {"decision": "approve", "fingerprint": "0" * 64})
        assert stale.status == "refused" and "no longer waiting" in stale.text
        garbage = await runner.resume(ask(), {"decision": "maybe"})
        assert garbage.status == "refused" and "couldn't read" in garbage.text
        assert await runner.pending("t1") is not None
    assert await tasks(workspace) == 0


async def test_a_role_without_the_tool_gets_no_proposal(open_runner, write_script) -> None:
    call = {"name": "assign_person", "args": {"person": "Grace", "client": "Thorinox"}}
    spec = write_script([{"tool_calls": [call]}, {"content": "Only admins can assign people."}])
    async with open_runner(model=spec) as runner:
        result = await runner.run_turn(ask("assign Grace to Thorinox"))
    assert result.status == "completed"
    assert result.tool_calls[0].status == "refused"
    assert result.interrupts == []


async def test_studio_style_resume_is_checked_in_the_node(
    open_runner, write_script, workspace, workspace_url
) -> None:
    """A raw Command(resume=...) (as Studio sends) is validated by confirm itself."""
    spec = write_script([CREATE, DONE])
    async with open_runner(model=spec, database_url=workspace_url) as runner:
        await runner.run_turn(ask())
        config = runner.driver.config_for("t1", "00000000-0000-4000-8000-000000000001", "U0GRACE")
        context = runner.driver.context_for(ask(), "00000000-0000-4000-8000-000000000001")
        await runner.graph.ainvoke(Command(resume={"decision": "edit"}), config, context=context)
        pending = await runner.pending("t1")
        assert pending is not None and pending["error"] == "An edit needs the new arguments."
        assert await tasks(workspace) == 0
        await runner.graph.ainvoke(Command(resume={"decision": "approve"}), config, context=context)
        assert await runner.pending("t1") is None
    assert await tasks(workspace) == 1


async def test_an_approved_change_runs_as_the_asker_even_after_guard_rewrites_it(
    open_runner, write_script, workspace, workspace_url
) -> None:
    """An admin approves another person's long (truncated by guard) request: the change is
    theirs, because the asker is who sent the turn, whoever rewrites or approves it."""
    spec = write_script([CREATE, DONE])
    async with open_runner(model=spec, database_url=workspace_url) as runner:
        paused = await runner.run_turn(ask("make the task " + "x" * 40_000, user="U0ADA"))
        assert paused.interrupts[0]["actor"] == "U0ADA"
        admin = ask(user="U0ROOT", user_role="admin")
        done = await runner.resume(admin, {"decision": "approve"})
    assert done.status == "completed"
    async with workspace.session() as session:
        actors = (await session.scalars(select(MutationReceipt.actor))).all()
    assert actors == ["U0ADA"]


async def test_an_approval_later_than_the_turn_timeout_still_runs(
    open_runner, write_script, workspace, workspace_url
) -> None:
    # The question's turn had 1 s and the person answers after it (the turn's deadline is in
    # the past): the approved change gets its own time instead of "timed out after 0.0 s".
    spec = write_script([CREATE, DONE])
    async with open_runner(model=spec, database_url=workspace_url, turn_timeout_s=1) as runner:
        paused = await runner.run_turn(ask())
        assert paused.status == "needs_confirmation"
        [waiting] = paused.interrupts
        config = runner.driver.config_for("t1", "00000000-0000-4000-8000-000000000002", "U0GRACE")
        context = runner.driver.context_for(ask(), "00000000-0000-4000-8000-000000000002")
        late = Command(
            resume={waiting["id"]: {"decision": "approve"}}, update={"deadline": time.time() - 60}
        )
        await runner.graph.ainvoke(
            late, config, context=context.model_copy(update={"deadline": None})
        )
        history = await runner.history("t1")
    [result] = [m for m in history if isinstance(m, ToolMessage)]
    assert result.additional_kwargs["outcome"] == "ok", result.text
    assert json.loads(result.text)["status"] == "created"
    assert await tasks(workspace) == 1
