"""The answer streams into one Slack message in channel threads; what a person is left with
is always the checked, final answer, once (a withdrawn draft, a 429, a long answer)."""

from __future__ import annotations

import asyncio
import json
import time
from itertools import pairwise

from slack_sdk.web.async_client import AsyncWebClient

from app.slack.answer_stream import AnswerStream
from app.slack.threads import SlackThread
from tests.support.slack_sender import mention

SET_STATUS = "assistant.threads.setStatus"
ANSWER = "Garlic Press belongs to Thorinox, and Distex has no brand of that name."
SLOW = {"content": ANSWER, "token_delay_s": 0.03}


async def test_a_mention_streams_the_answer_into_one_message_in_its_thread(
    open_slack_app,
) -> None:
    async with open_slack_app([SLOW]) as slack:
        await slack.sender.event(mention("C1", "U0GRACE", "who owns Garlic Press?", "100.1"))
        await slack.api.wait_for_answer(ANSWER)
        await slack.api.wait_for(SET_STATUS, status="")
    [started] = slack.api.made("chat.startStream")
    # In a channel Slack needs to know who the stream is for.
    assert started.args["recipient_team_id"] == "T0TEAM"
    assert started.args["recipient_user_id"] == "U0GRACE"
    assert started.args["thread_ts"] == "100.1"
    [streamed] = slack.api.streamed("C1")
    shown = [frame["text"] for frame in streamed["frames"]]
    assert len(shown) >= 3 and shown[-1] == ANSWER
    assert all(later.startswith(earlier) for earlier, later in pairwise(shown))
    # The progress was the status (cleared once the answer was whole); only the answer is left.
    assert [m["text"] for m in slack.api.posted.values()] == [ANSWER]
    assert slack.api.answers() == [ANSWER]


async def test_a_draft_the_checks_send_back_is_deleted_and_the_answer_streams_anew(
    open_slack_app, slack_settings
) -> None:
    # A first append of the draft goes at once, so the draft is on screen when it is sent back.
    draft = {"content": "Garlic Press belongs to **Thorinox**.", "token_delay_s": 0.03}
    async with open_slack_app([draft, SLOW]) as slack:
        await slack.sender.event(mention("C1", "U0GRACE", "who owns Garlic Press?", "200.1"))
        await slack.api.wait_for_answer(ANSWER)
        await slack.api.wait_for(SET_STATUS, status="")
    first, second = slack.api.made("chat.startStream")
    deleted = [c.args["ts"] for c in slack.api.made("chat.delete")]
    assert first.ts in deleted and second.ts not in deleted
    assert "again" in " ".join(slack.api.statuses("C1"))  # "checking the answer again…"
    assert [m["text"] for m in slack.api.posted.values()] == [ANSWER]
    assert slack.api.answers() == [ANSWER]


async def test_a_429_mid_stream_still_leaves_the_whole_answer_once(
    open_slack_app, slack_settings
) -> None:
    once = slack_settings.model_copy(update={"rate_limit_retries": 0})
    async with open_slack_app([SLOW], slack=once) as slack:
        slack.api.rate_limit("chat.appendStream", times=1, retry_after=0)
        await slack.sender.event(mention("C1", "U0GRACE", "who owns Garlic Press?", "300.1"))
        await slack.api.wait_for("chat.update", text=ANSWER)
        await slack.api.wait_for(SET_STATUS, status="")
    [limited] = [c for c in slack.api.attempts("chat.appendStream") if c.status == 429]
    [streamed] = slack.api.streamed("C1")
    # Nothing streamed after the refusal; the streamed message became the whole answer.
    assert all(c.at < limited.at for c in slack.api.made("chat.appendStream"))
    assert streamed["text"] == ANSWER
    assert [m["text"] for m in slack.api.posted.values()] == [ANSWER]
    assert slack.api.answers() == [ANSWER]


async def test_a_stream_that_cannot_start_falls_back_to_a_plain_post(open_slack_app) -> None:
    async with open_slack_app([SLOW]) as slack:
        slack.api.errors["chat.startStream"] = "not_allowed_token_type"
        await slack.sender.event(mention("C1", "U0GRACE", "who owns Garlic Press?", "400.1"))
        await slack.api.wait_for("chat.postMessage", text=ANSWER)
        await slack.api.wait_for(SET_STATUS, status="")
    assert not slack.api.streamed()
    assert [m["text"] for m in slack.api.posted.values()] == [ANSWER]


async def test_no_reply_leaves_nothing_behind(open_slack_app) -> None:
    async with open_slack_app([{"content": "NO_REPLY"}]) as slack:
        await slack.sender.event(mention("C1", "U0GRACE", "thanks all", "500.1"))
        # The status is cleared last, after any streamed draft went.
        await slack.api.wait_for(SET_STATUS, status="")
    assert slack.api.posted == {}
    assert slack.api.answers() == []


FOOTER = [{"type": "context", "elements": [{"type": "mrkdwn", "text": "Was this helpful?"}]}]


async def test_blocks_under_the_answer_end_its_stream_or_its_plain_post(slack_api) -> None:
    client = AsyncWebClient(token="xoxb-test", base_url=slack_api.url)
    thread = SlackThread("T0TEAM", "C1", "600.1")
    streamed = AnswerStream(client, thread, "U0GRACE", 0, 3900)
    streamed.text("Garlic Press belongs ")
    assert await streamed.finish("Garlic Press belongs to Thorinox.", FOOTER)
    [stopped] = slack_api.made("chat.stopStream")
    assert stopped.args["blocks"] == FOOTER
    [message] = slack_api.streamed("C1")
    assert message["text"] == "Garlic Press belongs to Thorinox." and message["blocks"] == FOOTER
    # Nothing streamed (a model that sent nothing before the end): the caller posts it.
    assert not await AnswerStream(client, thread, "U0GRACE", 0, 3900).finish("Hi.", FOOTER)


async def test_the_first_words_do_not_wait_on_a_task_line_sent_before_them(slack_api) -> None:
    client = AsyncWebClient(token="xoxb-test", base_url=slack_api.url)
    thread = SlackThread("T0TEAM", "C1", "600.2")
    streamed = AnswerStream(client, thread, "U0GRACE", 60.0, 3900)  # a minute between appends
    streamed.task("call-1", "list_tasks", {"client": "Thorinox"})
    streamed.text(" ")
    await asyncio.sleep(0.2)  # the task line and the blank text are sent
    streamed.text("Two tasks are open.")
    started = time.monotonic()
    while "Two tasks" not in streamed.shown:
        assert time.monotonic() - started < 5, "the first words waited for the interval"
        await asyncio.sleep(0.01)
    streamed.text(" More words wait for the interval.")
    await asyncio.sleep(0.2)
    assert "More words" not in streamed.shown
    started = time.monotonic()
    assert await streamed.finish("Two tasks are open. More words wait for the interval.")
    assert time.monotonic() - started < 5, "the answer waited for the interval to end"
    [message] = slack_api.streamed("C1")
    assert message["text"] == "Two tasks are open. More words wait for the interval."


async def test_a_plans_steps_and_their_tool_calls_show_as_task_lines(open_slack_app) -> None:
    step = "Check Garlic Press's brand mapping"
    turns = [
        {"tool_calls": [{"name": "create_plan", "id": "call_plan", "args": {"objective": step}}]},
        {"content": json.dumps({"steps": [step]})},
        {
            "tool_calls": [
                {"name": "resolve_brand", "id": "call_look", "args": {"brand": "Garlic Press"}}
            ]
        },
        {"content": "Garlic Press belongs to Thorinox and its destination is mapped."},
        {"content": ANSWER},
    ]
    async with open_slack_app(turns) as slack:
        await slack.sender.event(mention("C1", "U0GRACE", "check Garlic Press", "700.1"))
        await slack.api.wait_for_answer(ANSWER, within=30)
    [streamed] = slack.api.streamed("C1")
    tasks = streamed["tasks"]
    plan_lines = [t for key, t in tasks.items() if key.endswith(":1")]
    assert plan_lines == [{"title": f"1. {step}", "status": "complete"}]
    assert tasks["call_look"] == {"title": "resolve_brand: Garlic Press", "status": "complete"}
    # The step was pending, then running, then done, as the frames show.
    seen = [
        f["tasks"][k]["status"] for f in streamed["frames"] for k in f["tasks"] if k.endswith(":1")
    ]
    assert seen[0] == "pending" and "in_progress" in seen and seen[-1] == "complete"
    [started] = slack.api.made("chat.startStream")
    assert any(c.get("type") == "plan_update" for c in started.args["chunks"])
    assert streamed["text"] == ANSWER
