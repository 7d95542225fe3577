"""verify in the graph: a failed draft is retried with feedback; three failures end gracefully."""

from __future__ import annotations

from pathlib import Path

from langchain_core.messages import AIMessage, SystemMessage

from tests.graph.context_turns import requests, run
from tests.support.faulty_tools import faulty_registry


async def test_bold_is_retried_with_feedback_and_the_second_answer_is_posted(
    open_runner, write_script, tmp_path: Path
) -> None:
    transcript = tmp_path / "requests.jsonl"
    spec = write_script(
        [
            {"content": "The queen room is **$149** a night."},
            {"content": "The queen room is *$149* a night."},
        ]
    )
    async with open_runner(model=spec, scripted_transcript=transcript) as runner:
        turn = await run(runner, "How much is the queen room?")
    assert turn.state["final_text"] == "The queen room is *$149* a night."
    first, second = requests(transcript)
    assert "Your previous answer was not sent" not in first[0].text
    assert isinstance(second[0], SystemMessage)
    assert "attempt 1 of 3" in second[0].text and "double asterisks" in second[0].text
    # The rejected draft is gone from the history and was not sent back to the model.
    answers = [m.text for m in turn.state["messages"] if isinstance(m, AIMessage)]
    assert answers == ["The queen room is *$149* a night."]
    assert all("**" not in m.text for m in second[1:])
    phases = turn.phases()  # guard and gather share the opening step, in either order
    assert sorted(phases[:2]) == ["gather", "guard"]
    assert phases[2:] == ["act", "verify", "act", "verify", "finalize"]


async def test_three_failures_give_the_graceful_failure_with_what_the_tools_found(
    open_runner, write_script
) -> None:
    spec = write_script(
        [
            {"tool_calls": [{"name": "echo", "args": {"text": "rates"}}]},
            {"content": "# Rates\nQueen: $149"},
            {"content": "> Queen: $149"},
            {"content": "**Queen**: $149"},
        ]
    )
    async with open_runner(faulty_registry(), model=spec) as runner:
        turn = await run(runner, "What are the rates?")
    text = turn.state["final_text"]
    assert turn.state["status"] == "failed_verification"
    assert "after 3 attempts" in text
    assert "headings" in text and "blockquotes" in text and "double asterisks" in text
    assert "I looked at: echo" in text
    # The tool's result is still a fact: the answer shows it rather than nothing.
    assert "echo: echo rates" in text
    assert turn.phases().count("act") == 4 and turn.phases().count("verify") == 3
    assert "gather" in turn.phases() and turn.phases().count("gather") == 1


async def test_a_claimed_change_no_tool_made_fails_verification(
    open_runner, write_script, tmp_path: Path
) -> None:
    transcript = tmp_path / "requests.jsonl"
    spec = write_script(
        [
            # A read-only lookup succeeds; it changes nothing.
            {"tool_calls": [{"name": "resolve_holiday", "args": {"holiday_name": "Hanukkah"}}]},
            {"content": "Done: I've created the Hanukkah launch task for Garlic Press."},
            {"content": "I can create the Garlic Press task for Hanukkah once you confirm."},
        ]
    )
    async with open_runner(model=spec, scripted_transcript=transcript) as runner:
        turn = await run(runner, "Create a Hanukkah launch task for Garlic Press")
    assert turn.state["final_text"] == (
        "I can create the Garlic Press task for Hanukkah once you confirm."
    )
    retry = requests(transcript)[-1]
    assert "no tool made a change" in retry[0].text
    assert "I've created" in retry[0].text
