"""guard in the graph: block mode answers without the model; other modes let the message on."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from screening.injection import PATTERNS
from tests.graph.context_turns import requests, run
from tests.unit.test_injection_guard import EXAMPLES


@pytest.mark.parametrize("name", sorted(PATTERNS))
async def test_block_mode_refuses_without_a_model_call(
    name: str, open_runner, write_script, tmp_path: Path
) -> None:
    transcript = tmp_path / "requests.jsonl"
    # An empty script fails loudly if the model is called at all.
    async with open_runner(model=write_script([]), scripted_transcript=transcript) as runner:
        turn = await run(runner, EXAMPLES[name], input_guard="block")
    assert requests(transcript) == []
    assert turn.state["status"] == "blocked"
    assert "can't act on that message" in turn.state["final_text"]
    assert name.replace("_", " ") in turn.state["final_text"]
    # gather runs beside guard, in the same step, and searches nothing for a withheld message
    phases = turn.phases()
    assert sorted(phases[:2]) == ["gather", "guard"] and phases[2:] == ["finalize"]
    assert turn.update_of("gather") == {"sources": [], "context_block": ""}


@pytest.mark.parametrize("mode", ["off", "log", "warn"])
async def test_other_modes_let_the_message_reach_the_model(
    mode: str, open_runner, write_script, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="screening.injection")
    transcript = tmp_path / "requests.jsonl"
    spec = write_script([{"content": "I can only help with workspace questions."}])
    text = EXAMPLES["ignore_instructions"]
    async with open_runner(model=spec, scripted_transcript=transcript) as runner:
        turn = await run(runner, text, input_guard=mode)
    assert turn.state["final_text"] == "I can only help with workspace questions."
    [request] = requests(transcript)
    assert request[-1].text == text
    logged = [r for r in caplog.records if "security.injection_detected" in r.getMessage()]
    assert len(logged) == (0 if mode == "off" else 1)


async def test_null_bytes_are_stripped_and_long_messages_truncated_with_a_note(
    open_runner, write_script, tmp_path: Path
) -> None:
    transcript = tmp_path / "requests.jsonl"
    spec = write_script([{"content": "Got it."}])
    text = "start\x00 " + "x" * 40_000
    async with open_runner(model=spec, scripted_transcript=transcript) as runner:
        await run(runner, text)
    [request] = requests(transcript)
    sent = request[-1].text
    assert "\x00" not in sent
    assert sent.startswith("start " + "x" * 100)
    assert "truncated to the first 32,768" in sent and len(sent) < 33_000


async def test_blank_message_gets_a_clarifying_question_without_the_model(
    open_runner, write_script, tmp_path: Path
) -> None:
    transcript = tmp_path / "requests.jsonl"
    async with open_runner(model=write_script([]), scripted_transcript=transcript) as runner:
        turn = await run(runner, "  \n\x00 ")
    assert requests(transcript) == []
    assert "What can I help you with?" in turn.state["final_text"]


async def test_a_new_turn_writes_only_what_it_changes(open_runner, write_script) -> None:
    spec = write_script([{"content": "Hello."}, {"content": "Hello again."}])
    async with open_runner(model=spec) as runner:
        await run(runner, "hi")
        second = await run(runner, "hi again")
    written = second.update_of("guard")
    # what the first turn (no tool call) ended with and the second starts with is not
    # written again
    unchanged = {"rounds", "tool_calls_used", "attempt", "feedback", "issues", "decisions"}
    assert not (unchanged | {"pending", "cap"}) & set(written)
    assert {"run_id", "turn_start_id", "deadline", "status", "final_text"} <= set(written)
    assert second.state["status"] == "completed" and second.state["feedback"] == []
