"""Web API rate limits (HTTP 429 with Retry-After): waited out, never an answer lost or replaced."""

from __future__ import annotations

import asyncio

from tests.support.slack_sender import mention, message

ANSWER = {"content": "Garlic Press belongs to Thorinox.", "delay_s": 0.5}
SET_STATUS = "assistant.threads.setStatus"


async def test_a_rate_limited_answer_is_streamed_after_retry_after(open_slack_app) -> None:
    async with open_slack_app([ANSWER]) as slack:
        slack.api.rate_limit("chat.startStream", times=1, retry_after=0)
        await slack.sender.event(mention("C1", "U0GRACE", "who owns Garlic Press?", "100.1"))
        await slack.api.wait_for_answer(ANSWER["content"])
        await slack.api.wait_for(SET_STATUS, status="")
    assert [a.status for a in slack.api.attempts("chat.startStream")] == [429, 200]
    assert slack.api.answers() == [ANSWER["content"]]
    assert not any("Sorry" in t for t in slack.api.texts())


async def test_an_answer_refused_past_the_retries_takes_the_placeholders_place(
    open_slack_app, slack_settings
) -> None:
    once = slack_settings.model_copy(update={"rate_limit_retries": 1})
    async with open_slack_app([ANSWER], slack=once) as slack:
        slack.api.errors[SET_STATUS] = "not_allowed"  # no status here: the placeholder
        await slack.sender.event(mention("C1", "U0GRACE", "who owns Garlic Press?", "150.1"))
        await slack.api.wait_for("chat.postMessage")
        # Neither a stream nor a new message gets through: the placeholder becomes the answer.
        slack.api.rate_limit("chat.startStream", times=2, retry_after=0)
        slack.api.rate_limit("chat.postMessage", times=2, retry_after=0)
        [shown] = await slack.api.wait_for("chat.update", text=ANSWER["content"])
        await asyncio.sleep(0.3)
    assert shown.args["ts"] == "1800000000.000001"  # the placeholder, now the answer
    assert not slack.api.made("chat.delete")
    assert not any("Sorry" in t for t in slack.api.texts())


async def test_a_rate_limited_placeholder_is_retried(open_slack_app) -> None:
    async with open_slack_app([ANSWER]) as slack:
        slack.api.errors[SET_STATUS] = "not_allowed"  # no status here: the placeholder
        slack.api.rate_limit("chat.postMessage", times=1, retry_after=0)
        await slack.sender.event(mention("C1", "U0GRACE", "who owns Garlic Press?", "200.1"))
        await slack.api.wait_for_answer(ANSWER["content"])
    placeholder = slack.api.attempts("chat.postMessage")[:2]
    assert [p.status for p in placeholder] == [429, 200]
    assert all("thinking" in p.args["text"] for p in placeholder)


async def test_a_placeholder_refused_past_the_retries_does_not_drop_the_message(
    open_slack_app, slack_settings
) -> None:
    once = slack_settings.model_copy(update={"rate_limit_retries": 1})
    async with open_slack_app([ANSWER], slack=once) as slack:
        slack.api.errors[SET_STATUS] = "not_allowed"  # no status here: the placeholder
        slack.api.rate_limit("chat.postMessage", times=2, retry_after=0)
        await slack.sender.event(mention("C1", "U0GRACE", "who owns Garlic Press?", "300.1"))
        await slack.api.wait_for_answer(ANSWER["content"])
        history = await slack.history("T0TEAM:C1:300.1")
    assert [m.type for m in history] == ["human", "ai"]
    assert [a.status for a in slack.api.attempts("chat.postMessage")] == [429, 429]
    assert slack.api.answers() == [ANSWER["content"]]  # streamed


async def test_a_rate_limited_status_in_a_dm_still_answers(open_slack_app, slack_settings) -> None:
    once = slack_settings.model_copy(update={"rate_limit_retries": 0})
    async with open_slack_app([ANSWER], slack=once) as slack:
        slack.api.rate_limit(SET_STATUS, times=5, retry_after=0)
        await slack.sender.event(
            message("D1", "U0GRACE", "who owns Garlic Press?", "400.1", channel_type="im")
        )
        await slack.api.wait_for_answer(ANSWER["content"])
    assert slack.api.answers() == [ANSWER["content"]]


async def test_an_apology_carries_the_runs_own_id(open_slack_app) -> None:
    async with open_slack_app([]) as slack:
        # The apology's post is answered 429 once, then goes through.
        slack.api.rate_limit("chat.postMessage", times=1, retry_after=0)
        await slack.sender.event(mention("C1", "U0GRACE", "who owns Garlic Press?", "500.1"))
        await slack.api.wait_for(SET_STATUS, status="")
        runs = [run.id for run in await slack.runs("T0TEAM:C1:500.1")]
    assert [a.status for a in slack.api.attempts("chat.postMessage")] == [429, 200]
    [apology] = slack.api.answers()
    assert apology.startswith("Sorry") and apology.split("`")[1] == runs[0]
    assert len(runs) == 1
