"""The eval's checks: expectations, the confirmation rule, a step's calls, placeholders, usage."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.language_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from app.eval.checks import check_confirmed, check_step
from app.eval.observe import CallRecord, StepObservation, step_calls
from app.eval.placeholders import PlaceholderError, fill
from app.eval.scenario import Expect
from app.eval.usage import count_model_calls
from core.models.scripted import ScriptedChatModel, ScriptedTurn
from tools.registry import default_registry


def seen(*calls: tuple[str, str, Any], text: str = "Done.", **kw: Any) -> StepObservation:
    records = [CallRecord(call_id, name, status) for call_id, name, status in calls]
    return StepObservation(status=kw.pop("status", "completed"), text=text, calls=records, **kw)


def test_a_step_that_matches_has_no_problems() -> None:
    expect = Expect(
        status="completed",
        tools=["resolve_brand", "search_kb"],
        tools_unordered=["search_kb", "resolve_brand"],
        tools_include=["search_kb"],
        tools_exclude=["create_task"],
        outcomes={"search_kb": "ok"},
        proposals=[],
        text_contains=["garlic PRESS"],
        text_not_contains=["**"],
        text_matches=[r"\bThorinox\b"],
        llm_calls=2,
    )
    step = seen(
        ("c1", "resolve_brand", "ok"),
        ("c2", "search_kb", "ok"),
        text="Garlic Press belongs to Thorinox.",
        llm_calls=2,
    )
    assert check_step(expect, step) == []


def test_each_expectation_reports_what_differed() -> None:
    expect = Expect(
        status="needs_confirmation",
        tools=["search_kb", "resolve_brand"],
        tools_unordered=["search_kb"],
        tools_include=["create_task"],
        tools_exclude=["resolve_brand"],
        outcomes={"resolve_brand": "ok", "lookup_client": "ok"},
        proposals=["create_task"],
        text_equals="Hello.",
        text_contains=["Distex"],
        text_not_contains=["thorinox"],
        text_matches=[r"\?$"],
        llm_calls=0,
    )
    step = seen(
        ("c1", "resolve_brand", "error"),
        ("c2", "search_kb", "ok"),
        text="Garlic Press belongs to Thorinox.",
        llm_calls=2,
    )
    assert check_step(expect, step) == [
        "status is 'completed', expected 'needs_confirmation'",
        "tools called ['resolve_brand', 'search_kb'], expected ['search_kb', 'resolve_brand']",
        "tools called ['resolve_brand', 'search_kb'], expected (any order) ['search_kb']",
        "create_task not called (called: ['resolve_brand', 'search_kb'])",
        "resolve_brand called, expected not",
        "resolve_brand ended error, expected ok",
        "expected lookup_client to end ok, but it was not called",
        "proposed [], expected ['create_task']",
        "answer is 'Garlic Press belongs to Thorinox.', expected 'Hello.'",
        "answer lacks 'Distex': 'Garlic Press belongs to Thorinox.'",
        "answer contains 'thorinox': 'Garlic Press belongs to Thorinox.'",
        "answer does not match /\\?$/: 'Garlic Press belongs to Thorinox.'",
        "2 model call(s), expected 0",
    ]


def test_a_mutation_that_ran_must_have_been_proposed_before() -> None:
    registry = default_registry()
    step = seen(
        ("c1", "create_task", "ok"),
        ("c2", "create_brand", "refused"),
        ("c3", "search_kb", "ok"),
        ("c4", "remember_client_note", "ok"),
    )
    assert check_confirmed(step, {"c1"}, registry) == [
        "remember_client_note ran (call c4) without a confirmation: it was never proposed"
    ]
    assert check_confirmed(step, {"c1", "c4"}, registry) == []


def ai(*calls: tuple[str, str], text: str = "", id: str) -> AIMessage:
    return AIMessage(
        content=text,
        id=id,
        tool_calls=[{"id": i, "name": n, "args": {}, "type": "tool_call"} for i, n in calls],
    )


def tool(call_id: str, outcome: str, id: str) -> ToolMessage:
    return ToolMessage("{}", tool_call_id=call_id, id=id, additional_kwargs={"outcome": outcome})


def event(kind: str, call_id: str, name: str, outcome: str = "") -> dict[str, Any]:
    found: dict[str, Any] = {"type": f"tool.{kind}", "id": call_id, "name": name}
    if kind == "result":
        found["outcome"] = outcome
    return found


def test_a_steps_calls_carried_over_made_and_planned() -> None:
    earlier = [
        HumanMessage("create it", id="h1"),
        ai(("old", "create_task"), ("gone", "create_brand"), id="a1"),
    ]
    now = [
        tool("old", "ok", id="t1"),
        tool("gone", "not_confirmed", id="t2"),
        HumanMessage("and plan the rest", id="h2"),
        ai(("p", "create_plan"), id="a2"),
        tool("p", "ok", id="t3"),
        ai(("b", "search_kb"), ("x", "create_task"), id="a3"),
        tool("b", "timeout", id="t4"),
    ]
    events = [
        event("call", "old", "create_task"),
        event("result", "old", "create_task", "ok"),
        event("call", "in1", "resolve_brand"),
        event("result", "in1", "resolve_brand", "ok"),
        event("call", "b", "search_kb"),
        event("result", "b", "search_kb", "timeout"),
    ]
    proposals = [
        {"tool_call_id": "in2", "tool": "update_brand"},
        {"tool_call_id": "x", "tool": "create_task"},
    ]
    calls = step_calls(earlier + now, {"h1", "a1"}, events, proposals)
    assert [(c.name, c.status) for c in calls] == [
        ("create_task", "ok"),  # approved in this step
        ("create_brand", "not_confirmed"),  # dropped in this step
        ("create_plan", "ok"),
        ("resolve_brand", "ok"),  # inside the planner
        ("update_brand", "pending_confirmation"),  # proposed inside the planner
        ("search_kb", "error"),
        ("create_task", "pending_confirmation"),
    ]


def test_a_resumed_planners_calls_come_first() -> None:
    history = [
        ai(("p", "create_plan"), id="a1"),
        tool("p", "ok", id="t1"),
        AIMessage("Done.", id="a2"),
    ]
    events = [event("call", "in", "create_task"), event("result", "in", "create_task", "ok")]
    calls = step_calls(history, {"a1"}, events, [])
    assert [(c.name, c.status) for c in calls] == [("create_task", "ok"), ("create_plan", "ok")]


def test_placeholders_are_filled_from_the_latest_result() -> None:
    history = [
        ai(("p1", "create_plan"), id="a1"),
        ToolMessage('{"plan": {"plan_id": "old"}}', tool_call_id="p1"),
        ai(("p2", "create_plan"), id="a2"),
        ToolMessage('{"plan": {"plan_id": "abc123"}}', tool_call_id="p2"),
    ]
    turn = ScriptedTurn.model_validate(
        {
            "tool_calls": [
                {
                    "name": "create_plan",
                    "args": {"plan_id": "{{ create_plan.plan.plan_id }}", "notes": ["{{x}}"]},
                }
            ]
        }
    )
    [filled] = fill([turn], history)
    assert filled.tool_calls[0].args == {"plan_id": "abc123", "notes": ["{{x}}"]}
    assert turn.tool_calls[0].args["plan_id"] == "{{ create_plan.plan.plan_id }}"
    missing = turn.model_copy(
        update={
            "tool_calls": [
                turn.tool_calls[0].model_copy(update={"args": {"id": "{{create_plan.plan.id}}"}})
            ]
        }
    )
    with pytest.raises(PlaceholderError, match="the latest create_plan result has no 'id'"):
        fill([missing], history)
    with pytest.raises(PlaceholderError, match="no earlier create_plan result"):
        fill([turn], [])


async def test_calls_are_counted_with_estimates_when_no_usage_is_reported() -> None:
    turns = [ScriptedTurn(content=text) for text in ("First answer.", "Second.", "Third.")]
    scripted = ScriptedChatModel(turns=turns)
    with count_model_calls() as counter:
        await scripted.ainvoke("hello there")
        await scripted.ainvoke("again")
    await scripted.ainvoke("outside the context, not counted")
    assert len(counter.calls) == 2
    assert counter.estimated and counter.input_tokens > 0 and counter.output_tokens > 0


async def test_reported_usage_is_used_as_is() -> None:
    usage = {"input_tokens": 120, "output_tokens": 30, "total_tokens": 150}
    model = GenericFakeChatModel(messages=iter([AIMessage("Hi.", usage_metadata=usage)]))
    with count_model_calls() as counter:
        await model.ainvoke("hello")
    assert (counter.input_tokens, counter.output_tokens, counter.estimated) == (120, 30, False)
