"""The answer streams as `chunk` events; what a surface is left with is the turn's final text."""

from __future__ import annotations

import uuid
from typing import Any

from langchain_core.messages import AIMessageChunk, HumanMessage

from graph.runner import TurnRequest
from tests.support.faulty_tools import faulty_registry

ANSWER = "Garlic Press belongs to Thorinox, and Distex has none."


async def turn(open_runner: Any, spec: str) -> tuple[Any, list[dict[str, Any]]]:
    events: list[dict[str, Any]] = []
    async with open_runner(faulty_registry(), model=spec) as runner:
        result = await runner.run_turn(
            TurnRequest(thread_id="t", user_id="u", message="who owns Garlic Press?"),
            on_event=events.append,
        )
    return result, events


def drafts(events: list[dict[str, Any]]) -> list[str]:
    """The text streamed between resets, in order (what a surface showed as it came)."""
    shown = [""]
    for event in events:
        if event["type"] == "chunk":
            shown[-1] += event["text"]
        elif event["type"] == "draft.reset":
            shown.append("")
    return shown


async def test_the_answer_streams_in_pieces_between_thinking_and_the_end(
    open_runner, write_script
) -> None:
    result, events = await turn(open_runner, write_script([{"content": ANSWER}]))
    kinds = [e["type"] for e in events]
    chunks = [e["text"] for e in events if e["type"] == "chunk"]
    assert len(chunks) == len(ANSWER.split())  # one piece per word, as the model wrote it
    assert "".join(chunks) == ANSWER == result.text
    first, last = kinds.index("chunk"), len(kinds) - 1 - kinds[::-1].index("chunk")
    assert kinds.index("agent_state") < first  # "thinking" comes first
    assert last < kinds.index("run.completed")
    assert "draft.reset" not in kinds


async def test_text_written_before_tool_calls_is_reset_before_the_answer(
    open_runner, write_script
) -> None:
    spec = write_script(
        [
            {
                "content": "Let me look that up.",
                "tool_calls": [{"name": "echo", "args": {"text": "x"}}],
            },
            {"content": ANSWER},
        ]
    )
    result, events = await turn(open_runner, spec)
    assert drafts(events) == ["Let me look that up.", ANSWER]
    [reset] = [e for e in events if e["type"] == "draft.reset"]
    assert reset["reason"] == "tool_calls"
    kinds = [e["type"] for e in events]
    assert kinds.index("draft.reset") < kinds.index("tool.call")
    assert result.text == ANSWER


async def test_a_draft_the_checks_send_back_is_withdrawn_and_the_final_text_follows(
    open_runner, write_script
) -> None:
    rejected = "Garlic Press belongs to **Thorinox**."
    spec = write_script([{"content": rejected}, {"content": ANSWER}])
    result, events = await turn(open_runner, spec)
    assert drafts(events) == [rejected, ANSWER]
    [reset] = [e for e in events if e["type"] == "draft.reset"]
    assert reset == {"type": "draft.reset", "reason": "rejected", "attempt": 1}
    assert result.status == "completed" and result.text == ANSWER


async def test_a_turn_that_gives_up_ends_with_its_graceful_text_not_a_draft(
    open_runner, write_script
) -> None:
    bad = [{"content": "# Rates"}, {"content": "> Rates"}, {"content": "**Rates**"}]
    result, events = await turn(open_runner, write_script(bad))
    shown = drafts(events)
    assert shown == ["# Rates", "> Rates", "**Rates**", ""]  # every draft withdrawn
    assert "after 3 attempts" in result.text


async def test_no_reply_streams_nothing_that_stays(open_runner, write_script) -> None:
    result, events = await turn(open_runner, write_script([{"content": "NO_REPLY"}]))
    assert result.status == "completed" and result.text == ""
    # The surfaces read the final text: an empty one leaves nothing behind.
    assert drafts(events)[-1] == "NO_REPLY"


async def test_studio_sees_the_tokens_through_langgraphs_messages_mode(
    open_runner, write_script
) -> None:
    """What `langgraph dev` streams with `stream_mode="messages"`: act's tokens, as chunks."""
    async with open_runner(faulty_registry(), model=write_script([{"content": ANSWER}])) as runner:
        request = TurnRequest(thread_id="s", user_id="u", message="who owns Garlic Press?")
        run_id = str(uuid.uuid4())
        config = runner.driver.config_for("s", run_id, "u")
        pieces = [
            (chunk.text, meta["langgraph_node"])
            async for chunk, meta in runner.graph.astream(
                {"messages": [HumanMessage(content=request.message)]},
                config,
                context=runner.driver.context_for(request, run_id),
                stream_mode="messages",
            )
            if isinstance(chunk, AIMessageChunk)
        ]
    assert len(pieces) == len(ANSWER.split())
    assert "".join(text for text, _ in pieces) == ANSWER
    assert {node for _, node in pieces} == {"act"}
