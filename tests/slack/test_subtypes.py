"""Every `message` subtype is acknowledged with 200; only people's messages (and allowed bots')
are answered, including `thread_broadcast` and `file_share` follow-ups."""

from __future__ import annotations

import asyncio

from tests.support.slack_api import BOT_USER
from tests.support.slack_sender import mention, message

FIRST = {"content": "Garlic Press belongs to Thorinox."}
IGNORED_SUBTYPES = [
    "message_changed",
    "message_deleted",
    "message_replied",
    "channel_join",
    "channel_leave",
    "channel_topic",
    "bot_message",
    "me_message",
    "pinned_item",
    "thread_broadcast_deleted",
    "some_future_subtype",
]


def with_subtype(event: dict, subtype: str, **extra: object) -> dict:
    return {**event, "subtype": subtype, **extra}


async def test_every_subtype_is_acknowledged_and_only_answerable_ones_are_answered(
    open_slack_app,
) -> None:
    turns = [
        FIRST,
        {"content": "Broadcast answered: Distex has a Garlic Press brand too."},
        {"content": "File answered: the image belongs to Garlic Press."},
    ]
    async with open_slack_app(turns) as slack:
        send = slack.sender.event
        await send(mention("C1", "U0GRACE", "who owns Garlic Press?", "100.1"))
        await slack.api.wait_for_answer(FIRST["content"])
        for i, subtype in enumerate(IGNORED_SUBTYPES):
            event = message("C1", "U0GRACE", "does Distex own it?", f"100.{i + 10}", "100.1")
            extra = {"bot_id": "B0OTHER"} if subtype == "bot_message" else {}
            if subtype == "message_changed":
                extra = {"message": {"text": "edited", "ts": "100.1", "thread_ts": "100.1"}}
            assert await send(with_subtype(event, subtype, **extra)) == 200, subtype
        await asyncio.sleep(0.5)
        assert slack.api.answers() == [FIRST["content"]]

        broadcast = message("C1", "U0GRACE", "does Distex have one?", "100.50", "100.1")
        assert await send(with_subtype(broadcast, "thread_broadcast")) == 200
        await slack.api.wait_for_answer(turns[1]["content"])
        shared = message("C1", "U0GRACE", "whose image is this?", "100.60", "100.1")
        assert await send(with_subtype(shared, "file_share", files=[{"id": "F1"}])) == 200
        await slack.api.wait_for_answer(turns[2]["content"])
        history = await slack.history("T0TEAM:C1:100.1")
    assert [m.text for m in history if m.type == "human"] == [
        "who owns Garlic Press?",
        "does Distex have one?",
        "whose image is this?",
    ]


async def test_other_bots_are_ignored_even_when_they_mention_the_bot(open_slack_app) -> None:
    async with open_slack_app([FIRST]) as slack:
        send = slack.sender.event
        from_bot = {**mention("C1", "U0OTHERBOT", "who owns Garlic Press?", "200.1")}
        assert await send({**from_bot, "bot_id": "B0OTHER"}) == 200
        dm = message("D1", "U0OTHERBOT", "who owns Garlic Press?", "210.1", channel_type="im")
        assert await send({**dm, "bot_id": "B0OTHER"}) == 200
        assert await send(with_subtype(dm, "bot_message", bot_id="B0OTHER", ts="220.1")) == 200
        await asyncio.sleep(0.5)
        assert await slack.history("T0TEAM:C1:200.1") == []
    assert slack.api.made("chat.postMessage") == []
    assert slack.api.made("assistant.threads.setStatus") == []


async def test_an_allowed_bot_is_answered(open_slack_app, slack_settings) -> None:
    allowing = slack_settings.model_copy(update={"allowed_bot_ids": frozenset({"B0FRIEND"})})
    turns = [FIRST, {"content": "Thorinox, still."}]
    async with open_slack_app(turns, slack=allowing) as slack:
        send = slack.sender.event
        asked = mention("C1", "U0FRIENDBOT", "who owns Garlic Press?", "300.1")
        assert await send({**asked, "bot_id": "B0FRIEND"}) == 200
        await slack.api.wait_for_answer(FIRST["content"])
        again = message("C1", "U0FRIENDBOT", "and now?", "300.2", "300.1")
        del again["user"]
        assert await send(with_subtype(again, "bot_message", bot_id="B0FRIEND")) == 200
        await slack.api.wait_for_answer(turns[1]["content"])
        history = await slack.history("T0TEAM:C1:300.1")
        # Another bot in the same thread still is not.
        ignored = message("C1", "U0OTHERBOT", "and now?", "300.3", "300.1")
        assert await send({**ignored, "bot_id": "B0OTHER"}) == 200
        await asyncio.sleep(0.3)
    assert [m.text for m in history if m.type == "human"] == ["who owns Garlic Press?", "and now?"]
    assert len(slack.api.answers()) == 2


async def test_the_apps_own_messages_are_not_answered(open_slack_app) -> None:
    async with open_slack_app([FIRST]) as slack:
        send = slack.sender.event
        await send(mention("C1", "U0GRACE", "who owns Garlic Press?", "400.1"))
        await slack.api.wait_for_answer(FIRST["content"])
        own = message("C1", BOT_USER, FIRST["content"], "400.2", "400.1")
        assert await send({**own, "bot_id": "B0BOT"}) == 200
        await asyncio.sleep(0.3)
    assert slack.api.answers() == [FIRST["content"]]
