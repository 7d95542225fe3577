"""Mentions, DMs and thread follow-ups through the real Bolt app over signed HTTP."""

from __future__ import annotations

import json
from pathlib import Path

from app.slack.thread_context import HEADER
from tests.support.slack_api import BOT_USER
from tests.support.slack_sender import mention, message


def requests(transcript: Path) -> list[dict]:
    return [json.loads(line) for line in transcript.read_text().splitlines()]


ANSWER = {"content": "Garlic Press belongs to Thorinox."}
SET_STATUS = "assistant.threads.setStatus"


async def test_a_mention_gets_the_status_then_the_answer_streamed_as_a_new_message(
    open_slack_app,
) -> None:
    async with open_slack_app([ANSWER]) as slack:
        status = await slack.sender.event(
            mention("C1", "U0GRACE", "which client owns Garlic Press?", "100.000001")
        )
        assert status == 200
        await slack.api.wait_for_answer(ANSWER["content"])
        [cleared] = await slack.api.wait_for("assistant.threads.setStatus", status="")
        history = await slack.history("T0TEAM:C1:100.000001")
    # The thread shows the assistant status under the composer, no placeholder message.
    assert not slack.api.made("chat.postMessage") and not slack.api.made("chat.delete")
    first = slack.api.made("assistant.threads.setStatus")[0]
    assert first.args["channel_id"] == "C1" and first.args["thread_ts"] == "100.000001"
    assert first.args["status"] == "is thinking…" and first.args["loading_messages"]
    # The answer is a new message in the thread (its notification shows the answer), and
    # the status is cleared once the answer is there.
    [started] = slack.api.made("chat.startStream")
    [stopped] = slack.api.made("chat.stopStream")
    assert started.args["thread_ts"] == "100.000001"
    assert stopped.at < cleared.at
    assert not slack.api.made("chat.update")
    [left] = slack.api.posted.values()
    assert left["text"] == ANSWER["content"]
    assert history[0].text == "which client owns Garlic Press?"


async def test_a_dm_and_a_follow_up_without_mention_are_answered(open_slack_app) -> None:
    turns = [
        {"content": "Hello from a DM about Garlic Press."},
        {"content": "Thorinox owns Garlic Press."},
        {"content": "Distex has a Garlic Press brand too."},
    ]
    async with open_slack_app(turns) as slack:
        send = slack.sender.event
        await send(message("D1", "U0GRACE", "hello about Garlic Press", "200.1", channel_type="im"))
        await slack.api.wait_for_answer(turns[0]["content"])
        await send(mention("C1", "U0GRACE", "who owns Garlic Press?", "300.1"))
        await slack.api.wait_for_answer(turns[1]["content"])
        # The same message as a `message` event (it mentions the bot): left to app_mention.
        await send(message("C1", "U0GRACE", f"<@{BOT_USER}> who owns it?", "300.1"))
        # A reply in a thread the bot never joined: not for the bot.
        await send(message("C1", "U0GRACE", "unrelated chatter", "400.2", thread_ts="400.1"))
        await send(message("C1", "U0GRACE", "does Distex have Garlic Press?", "300.2", "300.1"))
        await slack.api.wait_for_answer(turns[2]["content"])
        assert await slack.history("T0TEAM:C1:400.1") == []
        thread = await slack.history("T0TEAM:C1:300.1")
    answers = slack.api.made("chat.startStream")
    assert [a.args["thread_ts"] for a in answers] == ["200.1", "300.1", "300.1"]
    assert answers[0].args["channel"] == "D1"
    assert slack.api.answers() == [t["content"] for t in turns]
    # The progress was the assistant status, in the DM and in the channel thread alike.
    assert not slack.api.made("chat.postMessage")
    shown = {(c.args["channel_id"], c.args["thread_ts"]) for c in slack.api.made(SET_STATUS)}
    assert shown == {("D1", "200.1"), ("C1", "300.1")}
    assert [m.text for m in thread if m.type == "human"] == [
        "who owns Garlic Press?",
        "does Distex have Garlic Press?",
    ]


async def test_the_threads_earlier_messages_reach_the_agent(open_slack_app, tmp_path) -> None:
    transcript = tmp_path / "requests.jsonl"
    async with open_slack_app([ANSWER], scripted_transcript=transcript) as slack:
        slack.api.replies[("C1", "500.1")] = [
            {"user": "U0LINUS", "text": "Garlic Press listing images look dated", "ts": "500.1"},
            {"user": "U0OMAR", "text": "I can shoot new ones on Friday", "ts": "500.2"},
            {"user": "U0GRACE", "text": "who owns Garlic Press?", "ts": "500.3"},
        ]
        await slack.sender.event(
            mention("C1", "U0GRACE", "who owns Garlic Press?", "500.3", "500.1")
        )
        await slack.api.wait_for_answer(ANSWER["content"])
    [sent] = requests(transcript)
    last = sent["messages"][-1]["data"]["content"]
    assert HEADER in last
    assert "<@U0LINUS>: Garlic Press listing images look dated" in last
    assert "<@U0OMAR>: I can shoot new ones on Friday" in last
    assert last.endswith("who owns Garlic Press?")
    assert last.count("who owns Garlic Press?") == 1


async def test_a_long_answer_is_split_within_slacks_limit(open_slack_app) -> None:
    long = "\n\n".join(f"Garlic Press note {i}: " + "word " * 150 for i in range(12)).strip()
    long = "\n\n".join(p.strip() for p in long.split("\n\n"))
    async with open_slack_app([{"content": long}]) as slack:
        await slack.sender.event(mention("C1", "U0GRACE", "tell me about Garlic Press", "600.1"))
        await slack.api.wait_for("assistant.threads.setStatus", status="")
    pieces = slack.api.answers()
    assert len(pieces) >= 3
    assert all(len(p) <= 3900 for p in pieces)
    assert "\n\n".join(pieces) == long


async def test_a_failed_run_is_a_short_apology_with_the_run_id(open_slack_app) -> None:
    async with open_slack_app([]) as slack:
        await slack.sender.event(mention("C1", "U0GRACE", "who owns Garlic Press?", "700.1"))
        await slack.api.wait_for("assistant.threads.setStatus", status="")
        history = await slack.history("T0TEAM:C1:700.1")
    [text] = slack.api.answers()
    assert text.startswith("Sorry, something went wrong")
    assert "Traceback" not in text and "ScriptExhausted" not in text
    run_id = text.split("`")[1]
    assert len(run_id) == 36
    assert history, "the run checkpointed the message"
