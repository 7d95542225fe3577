"""Slack's assistant UI: suggested prompts when a thread starts, progress in the assistant
status, the answer as a new message, then the status cleared."""

from __future__ import annotations

from app.slack.assistant import suggested_prompts
from tests.support.slack_sender import message
from tools.registry import default_registry

ANSWER = {"content": "Garlic Press belongs to Thorinox."}
LOOKUP = {
    "tool_calls": [{"name": "lookup_brand", "id": "call_1", "args": {"name": "Garlic Press"}}]
}


def thread_started(channel: str, thread_ts: str) -> dict:
    return {
        "type": "assistant_thread_started",
        "assistant_thread": {
            "user_id": "U0GRACE",
            "channel_id": channel,
            "thread_ts": thread_ts,
            "context": {},
        },
        "event_ts": thread_ts,
    }


async def test_a_new_assistant_thread_gets_suggested_prompts(open_slack_app) -> None:
    async with open_slack_app([]) as slack:
        assert await slack.sender.event(thread_started("D1", "100.1")) == 200
        [shown] = await slack.api.wait_for("assistant.threads.setSuggestedPrompts")
    assert shown.args["channel_id"] == "D1" and shown.args["thread_ts"] == "100.1"
    assert shown.args["prompts"] == suggested_prompts(default_registry())
    assert {"title": "Holiday dates", "message": "When is Hanukkah this year?"} in shown.args[
        "prompts"
    ]
    assert 2 <= len(shown.args["prompts"]) <= 4
    assert slack.api.made("chat.postMessage") == []


async def test_an_assistant_thread_shows_progress_in_the_status_and_posts_the_answer(
    open_slack_app,
) -> None:
    async with open_slack_app([LOOKUP, ANSWER]) as slack:
        await slack.sender.event(thread_started("D1", "200.1"))
        asked = message("D1", "U0GRACE", "who owns Garlic Press?", "200.2", "200.1", "im")
        assert await slack.sender.event(asked) == 200
        [answer] = await slack.api.wait_for("chat.postMessage", text=ANSWER["content"])
        cleared = await slack.api.wait_for("assistant.threads.setStatus", status="")
        history = await slack.history("T0TEAM:D1:200.1")
    statuses = [c.args["status"] for c in slack.api.made("assistant.threads.setStatus")]
    assert statuses[0] == "is thinking…"
    assert "is looking things up…" in statuses
    assert statuses[-1] == ""
    assert all(
        c.args["thread_ts"] == "200.1" for c in slack.api.made("assistant.threads.setStatus")
    )
    # No placeholder message: the only post is the answer, a new message that notifies.
    assert slack.api.made("chat.postMessage") == [answer]
    assert answer.args["thread_ts"] == "200.1" and answer.at < cleared[-1].at
    assert not slack.api.made("chat.update") and not slack.api.made("chat.delete")
    assert [m.text for m in history if m.type == "human"] == ["who owns Garlic Press?"]


async def test_a_dm_without_an_assistant_thread_falls_back_to_a_placeholder(open_slack_app) -> None:
    async with open_slack_app([ANSWER]) as slack:
        slack.api.errors["assistant.threads.setStatus"] = "invalid_thread_ts"
        asked = message("D1", "U0GRACE", "who owns Garlic Press?", "300.1", channel_type="im")
        await slack.sender.event(asked)
        await slack.api.wait_for("chat.postMessage", text=ANSWER["content"])
        [deleted] = await slack.api.wait_for("chat.delete")
    placeholder, answer = slack.api.made("chat.postMessage")
    assert "thinking" in placeholder.args["text"] and answer.args["text"] == ANSWER["content"]
    assert deleted.at > answer.at
