"""Slack's assistant UI: suggested prompts when a thread starts, a title from its first ask,
progress in the assistant status, the answer streamed into a new message, the status cleared."""

from __future__ import annotations

from app.slack.assistant import suggested_prompts
from tests.support.slack_sender import message
from tools.registry import default_registry

ANSWER = {"content": "Garlic Press belongs to Thorinox."}
STREAMED = {**ANSWER, "token_delay_s": 0.05}
"""The model writes a word every 50 ms: the stream shows the answer growing."""
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


async def test_an_assistant_thread_shows_progress_in_the_status_and_streams_the_answer(
    open_slack_app,
) -> None:
    async with open_slack_app([LOOKUP, STREAMED]) as slack:
        await slack.sender.event(thread_started("D1", "200.1"))
        asked = message("D1", "U0GRACE", "who owns Garlic Press?", "200.2", "200.1", "im")
        assert await slack.sender.event(asked) == 200
        await slack.api.wait_for_answer(ANSWER["content"])
        cleared = await slack.api.wait_for("assistant.threads.setStatus", status="")
        history = await slack.history("T0TEAM:D1:200.1")
    statuses = [c.args for c in slack.api.made("assistant.threads.setStatus")]
    assert statuses[0]["status"] == "is thinking…"
    assert statuses[0]["loading_messages"] == ["Reading the thread…", "Gathering what I know…",
                                               "Thinking it through…"]  # fmt: skip
    assert "is looking things up…" in [s["status"] for s in statuses]
    assert statuses[-1]["status"] == ""
    assert all(s["thread_ts"] == "200.1" for s in statuses)
    [title] = slack.api.made("assistant.threads.setTitle")
    assert title.args == {
        "channel_id": "D1",
        "thread_ts": "200.1",
        "title": "who owns Garlic Press?",
    }
    # One message, streamed: the lookup as a task line, then the answer word by word.
    [streamed] = slack.api.streamed("D1")
    frames = streamed["frames"]
    lookup = {"title": "lookup_brand: Garlic Press", "status": "in_progress"}
    assert frames[0] == {"text": "", "tasks": {"call_1": lookup}}
    assert frames[1]["tasks"]["call_1"]["status"] == "complete"
    texts = [f["text"] for f in frames if f["text"]]
    assert len(set(texts)) >= 3  # the words arrived in several appends
    assert all(ANSWER["content"].startswith(t) for t in texts)
    assert streamed["text"] == ANSWER["content"] and streamed["streaming"] is False
    assert streamed["thread_ts"] == "200.1" and streamed["recipient_user_id"] == "U0GRACE"
    # No placeholder, no other message; the status is cleared once the answer is whole.
    assert not slack.api.made("chat.postMessage")
    [stopped] = slack.api.made("chat.stopStream")
    assert stopped.at < cleared[-1].at
    assert not slack.api.made("chat.update") and not slack.api.made("chat.delete")
    assert [m.text for m in history if m.type == "human"] == ["who owns Garlic Press?"]


async def test_a_dm_without_an_assistant_thread_falls_back_to_a_placeholder(open_slack_app) -> None:
    async with open_slack_app([ANSWER]) as slack:
        slack.api.errors["assistant.threads.setStatus"] = "invalid_thread_ts"
        asked = message("D1", "U0GRACE", "who owns Garlic Press?", "300.1", channel_type="im")
        await slack.sender.event(asked)
        await slack.api.wait_for_answer(ANSWER["content"])
        [deleted] = await slack.api.wait_for("chat.delete")
    [placeholder] = slack.api.made("chat.postMessage")
    assert "thinking" in placeholder.args["text"]
    [answer] = slack.api.streamed("D1")
    assert answer["text"] == ANSWER["content"]
    assert (
        deleted.args["ts"] == placeholder.ts
        and deleted.at > slack.api.made("chat.stopStream")[0].at
    )
