"""The `planner` graph alone, as Studio runs it: a typed message, the main graph's form, junk."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langgraph_sdk import get_client

from core.planner_state import PlannerResult
from tests.server.dev_server import DevServer

OBJECTIVE = "Review Thorinox's brands and list what is missing"
STEPS = ["Look up Thorinox", "List the brands without a mapping"]
DRAFT = {"content": json.dumps({"steps": STEPS})}


async def run_planner(server: DevServer, graph_input: dict[str, Any], model: str) -> Any:
    client = get_client(url=server.url)
    thread = await client.threads.create()
    return await client.runs.wait(
        thread["thread_id"],
        "planner",
        input=graph_input,
        context={"model": model},
        raise_error=False,
    )


def report_of(out: dict[str, Any]) -> tuple[dict[str, Any], PlannerResult]:
    [message] = out["messages"]
    assert message["type"] == "tool" and message["name"] == "create_plan", message
    return message, PlannerResult.model_validate_json(message["content"])


async def test_a_typed_message_is_the_objective_and_the_plan_runs(
    dev_server: DevServer, write_script
) -> None:
    script = write_script(
        [DRAFT, {"content": "Thorinox has two brands."}, {"content": "None is unmapped."}]
    )
    out = await run_planner(
        dev_server, {"messages": [{"type": "human", "content": OBJECTIVE}]}, script
    )
    assert isinstance(out, dict) and "__error__" not in out, out
    _, result = report_of(out)
    assert result.status == "completed" and result.parent_run_id == ""
    assert result.plan is not None
    assert result.plan["objective"] == OBJECTIVE and result.plan["steps"] == STEPS
    assert result.plan["execution_mode"] == "auto_execute"
    assert result.plan["status"] == "executed"
    assert "Step 2: None is unmapped." in result.report.summary
    assert out["plans"][result.plan["plan_id"]]["status"] == "executed"


async def test_the_main_graphs_form_still_works(dev_server: DevServer, write_script) -> None:
    call = {
        "name": "create_plan",
        "id": "call_plan",
        "args": {"objective": OBJECTIVE, "execution_mode": "draft_only"},
    }
    graph_input = {
        "messages": [
            {"type": "human", "content": "plan the review first"},
            {"type": "ai", "content": "", "tool_calls": [call]},
        ]
    }
    out = await run_planner(dev_server, graph_input, write_script([DRAFT]))
    assert isinstance(out, dict) and "__error__" not in out, out
    message, result = report_of(out)
    assert message["tool_call_id"] == "call_plan"
    # Served alone, the planner has no parent run: its input is the messages only.
    assert result.status == "blocked" and result.parent_run_id == ""
    assert result.plan is not None and result.plan["status"] == "pending_review"
    assert result.plan["steps"] == STEPS


@pytest.mark.parametrize(
    ("graph_input", "says"),
    [
        ({}, "The planner needs a request"),
        ({"messages": []}, "The planner needs a request"),
        ({"messages": [{"type": "human", "content": "  "}]}, "The planner got an empty message"),
        (
            {"messages": [{"type": "ai", "content": "hello"}]},
            "The last message is an AI message without a create_plan call",
        ),
    ],
)
async def test_an_input_without_a_request_is_refused_with_what_to_send(
    dev_server: DevServer, write_script, graph_input: dict[str, Any], says: str
) -> None:
    # The model has no turns: a refusal must come before any model call.
    out = await run_planner(dev_server, graph_input, write_script([]))
    assert isinstance(out, dict)
    error = out["__error__"]
    assert error["error"] == "PlannerInputError", error
    assert error["message"].startswith(says), error
    assert "send the objective as a human message" in error["message"]
