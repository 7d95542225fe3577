"""The `openai:<model>` provider against an OpenAI-compatible server on loopback (the stub)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any
from urllib.parse import urlsplit

import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage

from core.models import ModelConfigError, ModelResolver, build_chat_model
from core.settings import Settings
from graph.runner import Runner, TurnRequest, TurnResult
from tests.support.openai_stub import OpenAIStub, ToolCall, error, text, tools
from tools.calendar import dates as calendar
from tools.registry import ToolRegistry

MODEL = "gpt-4o-mini"

HOLIDAY_TOOL = calendar.resolve_holiday.openai_schema()
WEATHER_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Current weather of a city.",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "celsius": {"type": "boolean"}},
            "required": ["city"],
        },
    },
}


streaming_modes = pytest.mark.parametrize("streaming", [False, True], ids=["plain", "streamed"])


@pytest.fixture
async def stub() -> AsyncIterator[OpenAIStub]:
    async with OpenAIStub() as server:
        yield server


@asynccontextmanager
async def runner_for(settings: Settings) -> AsyncIterator[Runner]:
    registry = ToolRegistry([calendar.resolve_holiday])
    async with Runner.open(settings, registry, ModelResolver(settings)) as runner:
        yield runner


async def ask(settings: Settings, message: str = "When is Hanukkah this year?") -> TurnResult:
    async with runner_for(settings) as runner:
        request = TurnRequest(thread_id="t-1", user_id="U1", message=message, today="2025-06-01")
        return await runner.run_turn(request)


def stub_settings(
    make_settings: Callable[..., Settings], stub: OpenAIStub, **overrides: Any
) -> Settings:
    values: dict[str, Any] = {
        "model": f"openai:{MODEL}",
        "openai_base_url": stub.base_url,
        "model_max_retries": 0,
    }
    values.update(overrides)
    return make_settings(**values)


def roles(body: dict[str, Any]) -> list[str]:
    return [message["role"] for message in body["messages"]]


# --- model level ----------------------------------------------------------------------------


def test_a_stub_on_a_port_used_before_serves_a_new_event_loop(
    make_settings: Callable[..., Settings],
) -> None:
    """langchain-openai shares an HTTP client per base URL; the stub leaves it no connection.

    Each test runs on its own event loop, and a later stub may be given an earlier one's port.
    """

    async def answer(port: int) -> tuple[str, str]:
        async with OpenAIStub(text("hello"), port=port) as server:
            model = build_chat_model(f"openai:{MODEL}", stub_settings(make_settings, server))
            reply = await model.ainvoke([HumanMessage("hi")])
            return server.base_url, str(reply.content)

    first_url, first = asyncio.run(answer(0))
    second_url, second = asyncio.run(answer(urlsplit(first_url).port or 0))

    assert second_url == first_url
    assert (first, second) == ("hello", "hello")


@streaming_modes
async def test_parallel_tool_calls_are_parsed_whole(
    stub: OpenAIStub, make_settings: Callable[..., Settings], streaming: bool
) -> None:
    stub.enqueue(
        tools(
            ToolCall("resolve_holiday", '{"holiday_name": "Hanukkah"}', id="call_a"),
            ToolCall("get_weather", '{"city": "Tel Aviv", "celsius": true}', id="call_b"),
        )
    )
    settings = stub_settings(make_settings, stub, model_streaming=streaming)
    model = build_chat_model(f"openai:{MODEL}", settings).bind_tools([HOLIDAY_TOOL, WEATHER_TOOL])

    answer = await model.ainvoke([SystemMessage("Be brief."), HumanMessage("Hanukkah? Weather?")])

    assert isinstance(answer, AIMessage)
    assert answer.invalid_tool_calls == []
    assert [(c["id"], c["name"], c["args"]) for c in answer.tool_calls] == [
        ("call_a", "resolve_holiday", {"holiday_name": "Hanukkah"}),
        ("call_b", "get_weather", {"city": "Tel Aviv", "celsius": True}),
    ]
    assert answer.usage_metadata is not None
    assert answer.usage_metadata["total_tokens"] == 18
    [sent] = stub.bodies
    assert sent["model"] == MODEL
    assert bool(sent.get("stream")) is streaming
    if streaming:
        assert sent["stream_options"] == {"include_usage": True}
    assert [t["function"]["name"] for t in sent["tools"]] == ["resolve_holiday", "get_weather"]
    assert sent["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Hanukkah? Weather?"},
    ]
    assert stub.requests[0].headers["Authorization"] == "Bearer not-needed"


@streaming_modes
async def test_text_answer(
    stub: OpenAIStub, make_settings: Callable[..., Settings], streaming: bool
) -> None:
    stub.enqueue(text("Hanukkah starts on December 14 this year."))
    settings = stub_settings(make_settings, stub, model_streaming=streaming)
    model = build_chat_model(f"openai:{MODEL}", settings)

    answer = await model.ainvoke([HumanMessage("When is Hanukkah?")])

    assert isinstance(answer, AIMessage)
    assert answer.content == "Hanukkah starts on December 14 this year."
    assert answer.tool_calls == []
    assert answer.response_metadata["finish_reason"] == "stop"
    [sent] = stub.bodies
    assert sent["model"] == MODEL
    assert bool(sent.get("stream")) is streaming
    assert "tools" not in sent


async def test_missing_key_without_base_url_is_a_config_error(
    make_settings: Callable[..., Settings],
) -> None:
    with pytest.raises(ModelConfigError, match="OPENAI_API_KEY"):
        build_chat_model(f"openai:{MODEL}", make_settings(model=f"openai:{MODEL}"))


async def test_an_api_key_is_sent_as_bearer(
    stub: OpenAIStub, make_settings: Callable[..., Settings]
) -> None:
    stub.enqueue(text("Fine."))
    settings = stub_settings(make_settings, stub, openai_api_key="sk-test-123")

    await build_chat_model(f"openai:{MODEL}", settings).ainvoke("Hi")

    assert stub.requests[0].headers["Authorization"] == "Bearer sk-test-123"


# --- end to end through the graph -----------------------------------------------------------


@streaming_modes
async def test_the_answer_reaches_the_run_events_as_chunks(
    stub: OpenAIStub, make_settings: Callable[..., Settings], streaming: bool
) -> None:
    answer = "Hanukkah starts on 2025-12-15."
    stub.enqueue(text(answer))
    events: list[dict[str, Any]] = []
    settings = stub_settings(make_settings, stub, model_streaming=streaming)
    async with runner_for(settings) as runner:
        request = TurnRequest(thread_id="t-1", user_id="U1", message="When is Hanukkah?")
        result = await runner.run_turn(request, on_event=events.append)
    chunks = [e["text"] for e in events if e["type"] == "chunk"]
    assert "".join(chunks) == answer == result.text
    # Streamed: the server's fragments as they came; not streamed: the answer as one.
    assert len(chunks) == (len(answer) + 4) // 5 if streaming else len(chunks) == 1


@streaming_modes
async def test_turn_calls_the_tool_then_answers(
    stub: OpenAIStub, make_settings: Callable[..., Settings], streaming: bool
) -> None:
    stub.enqueue(
        tools(ToolCall("resolve_holiday", '{"holiday_name": "Hanukkah"}', id="call_h1")),
        text("Hanukkah starts on 2025-12-15."),
    )

    result = await ask(stub_settings(make_settings, stub, model_streaming=streaming))

    assert result.status == "completed"
    assert result.text == "Hanukkah starts on 2025-12-15."
    assert [(r.name, r.args, r.status) for r in result.tool_calls] == [
        ("resolve_holiday", {"holiday_name": "Hanukkah"}, "ok")
    ]
    holiday = result.tool_calls[0].result
    assert (holiday["holiday"], holiday["start"], holiday["end"]) == (
        "Hanukkah",
        "2025-12-15",
        "2025-12-22",
    )

    first, second = stub.bodies
    for body in (first, second):
        assert body["model"] == MODEL
        assert bool(body.get("stream")) is streaming
        assert [t["function"]["name"] for t in body["tools"]] == ["resolve_holiday"]
        assert body["messages"][0]["role"] == "system"
    assert roles(first) == ["system", "user"]
    assert first["messages"][1]["content"] == "When is Hanukkah this year?"
    assert roles(second) == ["system", "user", "assistant", "tool"]
    assistant, tool = second["messages"][2:]
    [call] = assistant["tool_calls"]
    assert call["id"] == "call_h1"
    assert call["type"] == "function"
    assert call["function"]["name"] == "resolve_holiday"
    assert json.loads(call["function"]["arguments"]) == {"holiday_name": "Hanukkah"}
    assert tool["tool_call_id"] == "call_h1"
    assert json.loads(tool["content"]) == holiday


@streaming_modes
async def test_malformed_tool_arguments_are_answered_with_an_error(
    stub: OpenAIStub, make_settings: Callable[..., Settings], streaming: bool
) -> None:
    stub.enqueue(
        tools(ToolCall("resolve_holiday", '{"holiday_name": ', id="call_bad")),
        text("I could not look that up, sorry."),
    )

    result = await ask(stub_settings(make_settings, stub, model_streaming=streaming))

    assert result.status == "completed"
    assert result.text == "I could not look that up, sorry."
    [record] = result.tool_calls
    assert record.name == "resolve_holiday"
    assert record.status == "error"
    assert str(record.result).startswith("error:")
    if not streaming:
        # Whole JSON fails to parse: an invalid tool call. Streamed, langchain's partial-JSON
        # parser turns the fragment into {} and the tool's validation rejects it instead.
        assert "not valid JSON" in str(record.result)

    assert len(stub.requests) == 2
    second = stub.bodies[1]
    assert roles(second) == ["system", "user", "assistant", "tool"]
    assistant, tool = second["messages"][2:]
    assert [c["id"] for c in assistant["tool_calls"]] == ["call_bad"]
    assert tool["tool_call_id"] == "call_bad"
    assert tool["content"].startswith("error:")


@pytest.mark.parametrize("status", [500, 429])
@streaming_modes
async def test_a_failed_call_is_retried(
    stub: OpenAIStub, make_settings: Callable[..., Settings], streaming: bool, status: int
) -> None:
    stub.enqueue(error(status), text("Hanukkah starts in December."))

    settings = stub_settings(make_settings, stub, model_streaming=streaming, model_max_retries=2)
    result = await ask(settings)

    assert result.status == "completed"
    assert result.text == "Hanukkah starts in December."
    assert len(stub.requests) == 2
    assert stub.bodies[0] == stub.bodies[1]


async def test_a_rejected_request_fails_the_turn(
    stub: OpenAIStub, make_settings: Callable[..., Settings]
) -> None:
    # 400 is not retried and is no outage (tests/faults/test_model_errors.py has those).
    stub.enqueue(error(400), error(400), error(400))

    result = await ask(stub_settings(make_settings, stub, model_max_retries=2))

    assert result.status == "failed"
    assert result.tool_calls == []
    assert result.run_id in result.text
    assert "400" in result.text
    assert len(result.text) < 400
    assert len(stub.requests) == 1


@streaming_modes
async def test_arguments_cut_off_are_not_executed(
    stub: OpenAIStub, make_settings: Callable[..., Settings], streaming: bool
) -> None:
    # Streamed chunks are merged by completing partial JSON, so without act's check the
    # streamed call would look whole ({"holiday_name": "Hanu"}) and run.
    stub.enqueue(
        tools(
            ToolCall("resolve_holiday", '{"holiday_name": "Hanu', id="call_cut"), finish="length"
        ),
        text("I could not look that up, sorry."),
    )

    result = await ask(stub_settings(make_settings, stub, model_streaming=streaming))

    assert result.status == "completed"
    [record] = result.tool_calls
    assert record.status == "error", f"ran with truncated arguments {record.args}"
    assert ("token limit" if streaming else "not valid JSON") in str(record.result)
