"""Malformed tool-call JSON from the model next to a change: never proposed, never run.

Already covered: a malformed read-only call answered with an error the model sees, on the
scripted model (tests/graph/test_bad_behaviour.py::test_malformed_json_arguments) and on the
wire, plain and streamed (tests/integration/test_openai_provider.py::
test_malformed_tool_arguments_are_answered_with_an_error, and cut-off arguments in
test_arguments_cut_off_are_not_executed). Here: a garbled mutating call in a wave whose
other change is approved.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable

import pytest
from langchain_core.messages import AIMessage, ToolMessage

from core.models import ModelResolver
from core.settings import Settings
from graph.runner import Runner, TurnRequest
from tests.faults.conftest import Query
from tests.support.openai_stub import OpenAIStub, ToolCall, text, tools

THREAD = "t-garbled"
TITLE = "Refresh the Garlic Press listing images"
VALID = json.dumps({"client": "Thorinox", "brand": "Garlic Press", "title": TITLE})
GARBLED = '{"client": "Thorinox", "title": "Delete every brand'


@pytest.fixture
async def stub() -> AsyncIterator[OpenAIStub]:
    async with OpenAIStub() as server:
        yield server


async def test_a_garbled_change_beside_an_approved_one_runs_nothing_extra(
    workspace_url: str, stub: OpenAIStub, make_settings: Callable[..., Settings], query: Query
) -> None:
    stub.enqueue(
        tools(
            ToolCall("create_task", GARBLED, id="call_garbled"),
            ToolCall("create_task", VALID, id="call_valid"),
        ),
        text("Created the listing task; the second request came through garbled."),
    )
    settings = make_settings(
        database_url=workspace_url,
        model="openai:gpt-4o-mini",
        openai_base_url=stub.base_url,
        model_max_retries=0,
    )
    tasks = "select count(*) from tasks"
    before = query(tasks)[0][0]

    async with Runner.open(settings, models=ModelResolver(settings)) as runner:
        asked = await runner.run_turn(TurnRequest(THREAD, "U1", "make the two tasks"))
        assert asked.status == "needs_confirmation"
        [proposal] = asked.interrupts[0]["proposals"]
        assert (proposal["tool"], proposal["args"]["title"]) == ("create_task", TITLE)
        assert query(tasks)[0][0] == before

        done = await runner.resume(TurnRequest(THREAD, "U1", ""), {"decision": "approve"})
        history = await runner.history(THREAD)

    assert done.status == "completed", done.text
    # The turn's calls list well-formed calls first, then the ones that did not parse.
    valid, garbled = done.tool_calls
    assert (garbled.args, garbled.status) == (GARBLED, "error")
    assert "not valid JSON" in str(garbled.result)
    assert (valid.status, valid.result["task"]["title"]) == ("ok", TITLE)
    assert query(tasks)[0][0] == before + 1
    assert query("select count(*) from mutation_receipts")[0][0] == 1
    # Both calls were answered, once each, and the model saw both answers.
    results = [(m.tool_call_id, m.status) for m in history if isinstance(m, ToolMessage)]
    assert sorted(results) == [("call_garbled", "error"), ("call_valid", "success")]
    sent = stub.bodies[-1]["messages"]
    assert sorted(m["tool_call_id"] for m in sent if m["role"] == "tool") == [
        "call_garbled",
        "call_valid",
    ]
    assert isinstance(history[-1], AIMessage)
