"""The planner subgraph: execution modes, drafts reviewed in later messages, mutations inside."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from langchain_core.messages import ToolMessage
from sqlalchemy import func, select

from core.db.models import AgentRun, SkillEvent
from core.planner_state import PlannerResult
from graph.runner import TurnRequest
from tools.agency.models import Task
from tools.registry import default_registry

OBJECTIVE = "Onboard Garlic Press: check its mapping and create the kickoff task"
STEPS = ["Check Garlic Press's brand mapping", "Create the kickoff task for Garlic Press"]
TITLE = "Kickoff: Garlic Press onboarding"


def plan_call(**args: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": "create_plan", "id": "call_plan", "args": args}]}


DRAFT = {"content": json.dumps({"steps": STEPS})}
LOOKUP = {
    "tool_calls": [{"name": "resolve_brand", "id": "call_look", "args": {"brand": "Garlic Press"}}]
}
LOOKED = {"content": "Garlic Press belongs to Thorinox and its destination is mapped."}
CREATE = {
    "tool_calls": [
        {
            "name": "create_task",
            "id": "call_make",
            "args": {"client": "Thorinox", "brand": "Garlic Press", "title": TITLE},
        }
    ]
}
CREATED = {"content": "The kickoff task is created."}
ANSWER = {"content": "Garlic Press is onboarded: mapping checked, kickoff task created."}


def ask(text: str, thread: str = "p1") -> TurnRequest:
    return TurnRequest(thread_id=thread, user_id="U0GRACE", message=text, today="2026-11-22")


def plan_result(history: list, call_id: str = "call_plan") -> PlannerResult:
    [message] = [m for m in history if isinstance(m, ToolMessage) and m.tool_call_id == call_id]
    return PlannerResult.model_validate_json(message.text)


async def tasks(workspace: Any) -> int:
    async with workspace.session() as session:
        statement = select(func.count()).select_from(Task).where(Task.title == TITLE)
        return await session.scalar(statement) or 0


async def test_auto_execute_pauses_inside_and_continues_where_it_was(
    open_runner, write_script, workspace, workspace_url
) -> None:
    spec = write_script(
        [plan_call(objective=OBJECTIVE), DRAFT, LOOKUP, LOOKED, CREATE, CREATED, ANSWER]
    )
    first: list[dict] = []
    second: list[dict] = []
    async with open_runner(default_registry(), model=spec, database_url=workspace_url) as runner:
        paused = await runner.run_turn(ask("onboard Garlic Press"), on_event=first.append)
        assert paused.status == "needs_confirmation"
        [proposal] = paused.interrupts[0]["proposals"]
        assert proposal["tool"] == "create_task" and proposal["args"]["title"] == TITLE
        assert await tasks(workspace) == 0
        done = await runner.resume(ask(""), {"decision": "approve"}, on_event=second.append)
        history = await runner.history("p1")
    assert done.status == "completed", done.text
    assert done.text == ANSWER["content"]
    assert await tasks(workspace) == 1
    kinds = [e["type"] for e in first]
    assert "plan_created" in kinds and kinds.count("step_start") == 2
    assert any(e.get("state") == "executing_plan" for e in first)
    # After the approval only the approved call ran: the lookup of step 1 did not run again.
    assert [e["name"] for e in second if e["type"] == "tool.call"] == ["create_task"]
    assert [e["index"] for e in second if e["type"] == "step_complete"] == [2]
    result = plan_result(history)
    assert result.status == "completed"
    assert result.report.actions_taken[0].startswith("create_task(")
    assert result.report.evidence[0].startswith("resolve_brand(")
    assert result.report.summary.startswith("Step 1: Garlic Press belongs to Thorinox")
    assert result.plan is not None and result.plan["status"] == "executed"
    assert result.parent_run_id == done.run_id and result.planner_run_id != done.run_id
    # The thread keeps only the create_plan call and its report, not the planner's own talk.
    assert all(m.tool_call_id == "call_plan" for m in history if isinstance(m, ToolMessage))
    # The audit has each invocation's planner work as its child run.
    async with workspace.session() as session:
        runs = (await session.scalars(select(AgentRun).order_by(AgentRun.started_at))).all()
    main, paused_planner, resume, resumed_planner = runs
    assert (main.kind, main.id) == ("main", done.run_id)
    assert paused_planner.kind == "planner" and paused_planner.parent_run_id == main.id
    assert paused_planner.id == result.planner_run_id
    assert paused_planner.status == "needs_confirmation"
    assert resume.kind == "resume" and resume.parent_run_id == main.id
    assert resume.trace_id == main.trace_id == paused_planner.trace_id
    assert resumed_planner.kind == "planner" and resumed_planner.parent_run_id == resume.id
    assert resumed_planner.status == "completed"
    async with workspace.session() as session:
        planner_calls = (
            await session.scalars(
                select(SkillEvent.skill_id).where(
                    SkillEvent.run_id == paused_planner.id, SkillEvent.event_type == "skill_call"
                )
            )
        ).all()
    assert planner_calls == ["resolve_brand", "create_task"]


async def test_draft_only_waits_then_is_revised_and_run_in_later_messages(
    open_runner, write_script, workspace, workspace_url
) -> None:
    explain = {"content": "Here is the plan: check the mapping, then create the task. Run it?"}
    drafting = write_script(
        [plan_call(objective=OBJECTIVE, execution_mode="draft_only"), DRAFT, explain]
    )
    async with open_runner(default_registry(), database_url=workspace_url) as runner:
        events: list[dict] = []
        drafted = await runner.run_turn(
            replace(ask("plan the onboarding"), model=drafting), on_event=events.append
        )
        result = plan_result(await runner.history("p1"))
        assert drafted.status == "completed" and drafted.text == explain["content"]
        assert result.status == "blocked" and result.plan is not None
        assert result.plan["status"] == "pending_review" and result.plan["steps"] == STEPS
        assert "nothing was run" in result.report.summary
        assert any(e["type"] == "plan_ready_for_review" for e in events)
        plan_id = result.plan["plan_id"]

        # "change step 2 to ...": the stored draft is revised, still for review.
        revised_steps = [STEPS[0], "Create the kickoff task titled " + TITLE]
        revise = {
            "tool_calls": [
                {
                    "name": "create_plan",
                    "id": "call_revise",
                    "args": {
                        "plan_id": plan_id,
                        "revision": "change step 2 to use the title " + TITLE,
                        "execution_mode": "draft_only",
                    },
                }
            ]
        }
        revising = write_script(
            [revise, {"content": json.dumps({"steps": revised_steps})}, explain]
        )
        await runner.run_turn(replace(ask("change step 2 to ..."), model=revising))
        revision = plan_result(await runner.history("p1"), "call_revise")
        assert revision.plan is not None and revision.plan["plan_id"] == plan_id
        assert revision.plan["version"] == 2 and revision.plan["steps"] == revised_steps
        assert await tasks(workspace) == 0

        # "run it": the stored plan runs as revised, without drafting again.
        run_it = {
            "tool_calls": [{"name": "create_plan", "id": "call_run", "args": {"plan_id": plan_id}}]
        }
        running = write_script([run_it, LOOKUP, LOOKED, CREATE, CREATED, ANSWER])
        paused = await runner.run_turn(replace(ask("run it"), model=running))
        assert paused.status == "needs_confirmation"
        done = await runner.resume(replace(ask(""), model=running), {"decision": "approve"})
        ran = plan_result(await runner.history("p1"), "call_run")
    assert done.status == "completed" and done.text == ANSWER["content"]
    assert ran.status == "completed" and ran.plan is not None
    assert ran.plan["status"] == "executed" and ran.plan["steps"] == revised_steps
    assert await tasks(workspace) == 1


async def test_legacy_auto_execute_false_means_draft_only(open_runner, write_script) -> None:
    spec = write_script(
        [plan_call(objective=OBJECTIVE, auto_execute=False), DRAFT, {"content": "Drafted."}]
    )
    async with open_runner(default_registry(), model=spec) as runner:
        await runner.run_turn(ask("plan it"))
        result = plan_result(await runner.history("p1"))
    assert result.plan is not None and result.plan["execution_mode"] == "draft_only"
    assert result.plan["status"] == "pending_review"


async def test_agent_review_rejection_runs_nothing(
    open_runner, write_script, workspace, workspace_url
) -> None:
    verdict = {"verdict": "rejected", "notes": "Creating a task was not asked for."}
    spec = write_script(
        [
            plan_call(objective=OBJECTIVE, execution_mode="agent_review"),
            DRAFT,
            {"content": json.dumps(verdict)},
            {"content": "The reviewer rejected the plan, so I did nothing."},
        ]
    )
    events: list[dict] = []
    async with open_runner(default_registry(), model=spec, database_url=workspace_url) as runner:
        answer = await runner.run_turn(ask("onboard it"), on_event=events.append)
        history = await runner.history("p1")
    result = plan_result(history)
    assert answer.status == "completed"
    assert result.status == "blocked" and result.review == verdict
    assert result.plan is not None and result.plan["status"] == "rejected"
    assert "Reviewer: Creating a task was not asked for." in result.report.open_questions
    assert next(e for e in events if e["type"] == "plan_review")["verdict"] == "rejected"
    assert not [e for e in events if e["type"] == "tool.call"]
    assert await tasks(workspace) == 0


async def test_a_model_that_cannot_write_structured_replies_is_not_asked_for_a_plan(
    open_runner, write_script, workspace_url
) -> None:
    spec = write_script([plan_call(objective=OBJECTIVE), {"content": "I cannot plan that here."}])
    async with open_runner(default_registry(), model=spec, database_url=workspace_url) as runner:
        model = runner.models.resolve(spec)
        model.profile = {"name": "the small model", "structured_output": False}
        answer = await runner.run_turn(ask("onboard Garlic Press"))
        history = await runner.history("p1")
    result = plan_result(history)
    assert answer.status == "completed" and answer.text == "I cannot plan that here."
    assert result.status == "failed" and result.plan is None
    assert "the small model cannot write the structured replies" in result.report.summary
    assert "one step at a time" in result.report.summary
    assert model.unused() == 0  # nothing drafted: the script held no plan to draft


async def test_the_main_agent_can_launch_another_planner_run_before_answering(
    open_runner, write_script, workspace, workspace_url
) -> None:
    verdict = {"verdict": "needs_changes", "notes": "Only check the mapping; no task."}
    retry = {
        "tool_calls": [
            {
                "name": "create_plan",
                "id": "call_retry",
                "args": {"objective": "Check Garlic Press's mapping only"},
            }
        ]
    }
    spec = write_script(
        [
            plan_call(objective=OBJECTIVE, execution_mode="agent_review"),
            DRAFT,
            {"content": json.dumps(verdict)},
            retry,
            {"content": json.dumps({"steps": [STEPS[0]]})},
            LOOKUP,
            LOOKED,
            {"content": "Garlic Press is mapped; I created no task, as the review advised."},
        ]
    )
    async with open_runner(default_registry(), model=spec, database_url=workspace_url) as runner:
        answer = await runner.run_turn(ask("onboard it"))
        history = await runner.history("p1")
    first, second = plan_result(history), plan_result(history, "call_retry")
    assert answer.status == "completed"
    assert first.status == "blocked" and first.review == verdict
    assert second.status == "completed" and second.report.evidence
    assert first.planner_run_id != second.planner_run_id
    assert first.parent_run_id == second.parent_run_id == answer.run_id
    assert await tasks(workspace) == 0


async def test_moving_on_from_a_change_inside_the_planner_opens_the_new_turn(
    open_runner, write_script, workspace, workspace_url
) -> None:
    spec = write_script(
        [
            plan_call(objective=OBJECTIVE),
            DRAFT,
            LOOKUP,
            LOOKED,
            CREATE,
            {"content": "unrelated"},
            {"content": "Thorinox has 1 brand."},
        ]
    )
    async with open_runner(default_registry(), model=spec, database_url=workspace_url) as runner:
        paused = await runner.run_turn(ask("onboard Garlic Press"))
        assert paused.status == "needs_confirmation"
        answer = await runner.run_turn(ask("how many brands does Thorinox have?"))
        assert await runner.pending("p1") is None
        history = await runner.history("p1")
    assert answer.status == "completed"
    assert answer.text == "Thorinox has 1 brand."
    [plan_message] = [m for m in history if isinstance(m, ToolMessage)]
    assert plan_message.tool_call_id == "call_plan" and "did not confirm" in plan_message.text
    assert history[-2].text == "how many brands does Thorinox have?"
    assert await tasks(workspace) == 0
