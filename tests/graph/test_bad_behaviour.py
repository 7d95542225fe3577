"""Bad model behaviour and bad input end in an answer or a graceful failure, never a traceback."""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.messages import AIMessage, ToolMessage

from core.models import ModelConfigError
from graph.runner import TurnRequest
from tests.support.faulty_tools import faulty_registry


async def turn(
    open_runner: Any, spec: str, message: str = "go", **settings: Any
) -> tuple[Any, list]:
    async with open_runner(faulty_registry(), model=spec, **settings) as runner:
        result = await runner.run_turn(TurnRequest(thread_id="t", user_id="u", message=message))
        history = await runner.history("t")
    return result, history


def tool_messages(history: list) -> list[ToolMessage]:
    return [m for m in history if isinstance(m, ToolMessage)]


def assert_paired(history: list) -> None:
    """Every tool call has exactly one ToolMessage and vice versa."""
    call_ids = [c["id"] for m in history if isinstance(m, AIMessage) for c in m.tool_calls]
    call_ids += [c["id"] for m in history if isinstance(m, AIMessage) for c in m.invalid_tool_calls]
    result_ids = [m.tool_call_id for m in tool_messages(history)]
    assert sorted(call_ids) == sorted(result_ids)


async def test_unknown_tool_becomes_error_the_model_sees(open_runner, write_script) -> None:
    spec = write_script(
        [
            {"tool_calls": [{"name": "teleport", "args": {}}]},
            {"content": "I can't teleport, but I can echo."},
        ]
    )
    result, history = await turn(open_runner, spec)
    assert result.status == "completed"
    assert result.text == "I can't teleport, but I can echo."
    [message] = tool_messages(history)
    assert "unknown tool 'teleport'" in message.text and "echo" in message.text
    assert result.tool_calls[0].status == "error"
    assert_paired(history)


async def test_malformed_json_arguments(open_runner, write_script) -> None:
    spec = write_script(
        [
            {"tool_calls": [{"name": "echo", "args": '{"text": "hi'}]},
            {"tool_calls": [{"name": "echo", "args": '{"text": "hi"}'}]},
            {"content": "It said hi."},
        ]
    )
    result, history = await turn(open_runner, spec)
    assert result.status == "completed"
    first, second = tool_messages(history)
    assert "not valid JSON" in first.text
    assert first.status == "error"
    assert second.status == "success"
    assert [c.status for c in result.tool_calls] == ["error", "ok"]
    assert_paired(history)


async def test_invalid_arguments_name_the_field(open_runner, write_script) -> None:
    spec = write_script(
        [
            {"tool_calls": [{"name": "echo", "args": {"times": 9}}]},
            {"content": "I need the text to echo."},
        ]
    )
    result, history = await turn(open_runner, spec)
    [message] = tool_messages(history)
    assert "invalid arguments for echo" in message.text
    assert "text: Field required" in message.text
    assert "times:" in message.text
    assert result.status == "completed"


async def test_tool_exception_becomes_error(open_runner, write_script) -> None:
    spec = write_script(
        [
            {"tool_calls": [{"name": "explode", "args": {}}]},
            {"content": "The service is down right now; try again later."},
        ]
    )
    result, history = await turn(open_runner, spec)
    [message] = tool_messages(history)
    assert "RuntimeError: the backing service is down" in message.text
    assert result.status == "completed"


async def test_tool_timeout_becomes_error(open_runner, write_script) -> None:
    spec = write_script(
        [
            {"tool_calls": [{"name": "hang", "args": {}}, {"name": "echo", "args": {"text": "x"}}]},
            {"content": "One lookup timed out; the other said x."},
        ]
    )
    result, history = await turn(open_runner, spec, tool_timeout_s=0.3)
    hung, echoed = tool_messages(history)
    assert "timed out after 0.3 s" in hung.text
    assert echoed.status == "success"
    assert [c.status for c in result.tool_calls] == ["error", "ok"]
    assert result.status == "completed"


async def test_empty_content_three_times_is_graceful_failure(open_runner, write_script) -> None:
    spec = write_script([{"content": ""}, {"content": "  "}, {"content": ""}])
    result, history = await turn(open_runner, spec)
    assert result.status == "completed"
    assert "after 3 attempts" in result.text
    assert "empty" in result.text
    # The rejected drafts were dropped; only the graceful failure remains as the answer.
    answers = [m for m in history if isinstance(m, AIMessage)]
    assert [m.text for m in answers] == [result.text]


async def test_bold_answer_is_retried_with_feedback(open_runner, write_script, tmp_path) -> None:
    spec = write_script([{"content": "**Done**"}, {"content": "*Done*"}])
    transcript = tmp_path / "requests.jsonl"
    result, history = await turn(open_runner, spec, scripted_transcript=transcript)
    assert result.text == "*Done*"
    first, second = [json.loads(line) for line in transcript.read_text().splitlines()]
    first_system = first["messages"][0]["data"]["content"]
    second_system = second["messages"][0]["data"]["content"]
    assert "previous answer was not sent" not in first_system
    assert "attempt 1 of 3" in second_system and "double asterisks" in second_system
    # The rejected draft is not replayed to the model nor kept in history.
    assert all("**Done**" not in json.dumps(m) for m in second["messages"][1:])
    assert [m.text for m in history if isinstance(m, AIMessage)] == ["*Done*"]


async def test_script_running_out_is_a_clear_failure(open_runner, write_script) -> None:
    spec = write_script([{"tool_calls": [{"name": "echo", "args": {"text": "a"}}]}])
    result, history = await turn(open_runner, spec)
    assert result.status == "failed"
    assert "has 1 turn(s) but was called a 2nd time" in result.text
    assert result.run_id in result.text
    assert "Traceback" not in result.text
    assert_paired(history)


async def test_bad_model_spec_is_one_line_before_the_thread_is_touched(open_runner) -> None:
    async with open_runner(faulty_registry(), model="gpt-5") as runner:
        with pytest.raises(ModelConfigError) as raised:
            await runner.run_turn(TurnRequest(thread_id="t", user_id="u", message="go"))
        assert await runner.history("t") == []
    assert str(raised.value) == (
        "unknown model 'gpt-5': expected openai:<model>, local or scripted:<file>"
    )


async def test_missing_script_file(open_runner, tmp_path) -> None:
    async with open_runner(faulty_registry(), model=f"scripted:{tmp_path}/nope.json") as runner:
        with pytest.raises(ModelConfigError, match="no such file"):
            await runner.run_turn(TurnRequest(thread_id="t", user_id="u", message="go"))
        assert await runner.history("t") == []


async def test_blank_message_asks_without_calling_the_model(open_runner, write_script) -> None:
    spec = write_script([])
    result, _ = await turn(open_runner, spec, message=" \x00 \n")
    assert result.status == "completed"
    assert "empty" in result.text


async def test_long_message_is_truncated_with_a_note(open_runner, write_script) -> None:
    spec = write_script([{"content": "That is a long message."}])
    _, history = await turn(open_runner, spec, message="a" * 40_000 + "\x00")
    human = history[0]
    assert len(human.text) < 33_000
    assert "truncated to the first 32,768" in human.text
    assert "\x00" not in human.text


async def test_no_reply_is_silent(open_runner, write_script) -> None:
    spec = write_script([{"content": "NO_REPLY"}])
    result, _ = await turn(open_runner, spec)
    assert result.status == "completed"
    assert result.text == ""


async def test_mutating_tool_pauses_without_running(
    open_runner, write_script, workspace_url
) -> None:
    # The proposal is recorded in the workspace before it waits: a migrated one.
    spec = write_script([{"tool_calls": [{"name": "delete_everything", "args": {}}]}])
    result, history = await turn(open_runner, spec, database_url=workspace_url)
    assert result.status == "needs_confirmation"
    assert tool_messages(history) == []
    assert result.tool_calls[0].status == "pending_confirmation"
    [proposal] = result.interrupts[0]["proposals"]
    assert proposal["tool"] == "delete_everything"


async def test_role_policy_refuses(open_runner, write_script) -> None:
    spec = write_script(
        [
            {"tool_calls": [{"name": "admin_report", "args": {}}]},
            {"content": "Only admins can see that report."},
        ]
    )
    result, history = await turn(open_runner, spec)
    [message] = tool_messages(history)
    assert "role 'member' may not use admin_report" in message.text
    assert result.tool_calls[0].status == "refused"
