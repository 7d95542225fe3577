"""Channel threads show the assistant status; where Slack refuses it, the placeholder message."""

from __future__ import annotations

import logging

import pytest

from tests.support.slack_sender import mention, message

SET_STATUS = "assistant.threads.setStatus"
FIRST = {"content": "Garlic Press belongs to Thorinox."}
SECOND = {"content": "Distex has no Garlic Press brand."}
THIRD = {"content": "Hello from a DM."}


async def test_a_channel_thread_shows_the_status_not_a_placeholder(open_slack_app) -> None:
    async with open_slack_app([FIRST]) as slack:
        await slack.sender.event(mention("C1", "U0GRACE", "who owns Garlic Press?", "100.1"))
        await slack.api.wait_for_answer(FIRST["content"])
        await slack.api.wait_for(SET_STATUS, status="")
    assert not slack.api.made("chat.postMessage")  # no placeholder: the status
    statuses = slack.api.made(SET_STATUS, channel_id="C1", thread_ts="100.1")
    assert statuses[0].args["status"] == "is thinking…"
    assert statuses[0].args["loading_messages"]
    assert statuses[-1].args["status"] == ""
    assert [m["text"] for m in slack.api.posted.values()] == [FIRST["content"]]


@pytest.mark.parametrize("refusal", ["not_allowed", "missing_scope", "feature_not_enabled"])
async def test_a_refused_status_falls_back_to_the_placeholder_and_is_not_asked_again(
    open_slack_app, refusal: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="app.slack.channel_status")
    async with open_slack_app([FIRST, SECOND, THIRD]) as slack:
        slack.api.errors[SET_STATUS] = refusal
        await slack.sender.event(mention("C1", "U0GRACE", "who owns Garlic Press?", "200.1"))
        await slack.api.wait_for_answer(FIRST["content"])
        [first_deleted] = await slack.api.wait_for("chat.delete")
        tried = slack.api.made(SET_STATUS)
        # The next turn, in another channel's thread, goes straight to the placeholder.
        await slack.sender.event(mention("C2", "U0LINUS", "and Distex?", "300.1"))
        await slack.api.wait_for_answer(SECOND["content"])
        await slack.api.wait_for("chat.delete", count=2)
        # A DM still shows the status (the refusal was in a channel).
        del slack.api.errors[SET_STATUS]
        await slack.sender.event(message("D1", "U0GRACE", "hello", "400.1", channel_type="im"))
        await slack.api.wait_for_answer(THIRD["content"])
        await slack.api.wait_for(SET_STATUS, status="")
    # The first turn asked for the status once, was refused, and showed the placeholder.
    assert [c.args["channel_id"] for c in tried] == ["C1"]
    placeholders = [c for c in slack.api.made("chat.postMessage") if "thinking" in c.args["text"]]
    assert [(p.args["channel"], p.args["thread_ts"]) for p in placeholders] == [
        ("C1", "200.1"),
        ("C2", "300.1"),
    ]
    assert first_deleted.args["ts"] == placeholders[0].ts
    # After the refusal, no status was asked for in a channel; the DM's status was shown.
    later = [c.args["channel_id"] for c in slack.api.made(SET_STATUS) if c not in tried]
    assert set(later) == {"D1"}
    assert slack.api.answers() == [FIRST["content"], SECOND["content"], THIRD["content"]]
    refused = [r for r in caplog.records if r.name == "app.slack.channel_status"]
    assert len(refused) == 1 and refusal in refused[0].getMessage()


async def test_a_rate_limited_status_shows_the_placeholder_for_that_turn_only(
    open_slack_app, slack_settings
) -> None:
    no_retries = slack_settings.model_copy(update={"rate_limit_retries": 0})
    async with open_slack_app([FIRST, SECOND], slack=no_retries) as slack:
        slack.api.rate_limit(SET_STATUS, times=1, retry_after=0)
        await slack.sender.event(mention("C1", "U0GRACE", "who owns Garlic Press?", "500.1"))
        await slack.api.wait_for_answer(FIRST["content"])
        await slack.api.wait_for("chat.delete")
        # A rate limit is not a refusal: the next turn shows the status again.
        await slack.sender.event(mention("C1", "U0GRACE", "and Distex?", "600.1"))
        await slack.api.wait_for_answer(SECOND["content"])
        await slack.api.wait_for(SET_STATUS, thread_ts="600.1", status="")
    [placeholder] = slack.api.made("chat.postMessage")
    assert placeholder.args["thread_ts"] == "500.1" and "thinking" in placeholder.args["text"]
    assert not slack.api.made(SET_STATUS, thread_ts="500.1")
    assert slack.api.made(SET_STATUS, thread_ts="600.1", status="is thinking…")


async def test_with_the_status_off_channel_threads_show_the_placeholder(
    open_slack_app, slack_settings
) -> None:
    off = slack_settings.model_copy(update={"status_in_channels": False})
    async with open_slack_app([FIRST], slack=off) as slack:
        await slack.sender.event(mention("C1", "U0GRACE", "who owns Garlic Press?", "700.1"))
        await slack.api.wait_for_answer(FIRST["content"])
        [deleted] = await slack.api.wait_for("chat.delete")
    assert not slack.api.attempts(SET_STATUS)
    [placeholder] = slack.api.made("chat.postMessage")
    assert "thinking" in placeholder.args["text"] and deleted.args["ts"] == placeholder.ts
    assert slack.api.answers() == [FIRST["content"]]
