"""Approval cards: who may click, exactly once, the card's outcome, and "yes" in the thread."""

from __future__ import annotations

import asyncio

from app.slack import cards
from tests.support.slack_api import click, mention, message

TITLE = "Refresh the Garlic Press listing images"
CREATE = {
    "tool_calls": [
        {
            "name": "create_task",
            "id": "call_create",
            "args": {"client": "Thorinox", "brand": "Garlic Press", "title": TITLE},
        }
    ]
}
DONE = {"content": "Done: the Garlic Press task is created in Thorinox's list."}
ASK = "create a task to refresh the Garlic Press images"


async def card_of(slack, thread_ts: str):
    for _ in range(1000):
        found = [
            c
            for c in slack.api.made("chat.update")
            if any(b["type"] == "actions" for b in c.args.get("blocks") or [])
        ]
        if found:
            return found[-1]
        await asyncio.sleep(0.02)
    raise AssertionError(f"no card in thread {thread_ts}: {slack.api.calls}")


async def test_requester_approves_once_others_are_refused_and_the_card_shows_it(
    open_slack_app,
) -> None:
    async with open_slack_app([CREATE, DONE]) as slack:
        await slack.sender.event(mention("C1", "U0GRACE", ASK, "100.1"))
        card = await card_of(slack, "100.1")
        blocks_text = str(card.args["blocks"])
        assert "create_task" in blocks_text and TITLE in blocks_text
        assert "Asked by <@U0GRACE>" in blocks_text

        # Linus is a member, not the asker and not an approver: refused, only to him.
        assert await slack.sender.action(click("U0LINUS", "C1", card, cards.APPROVE)) == 200
        [refusal] = await slack.api.wait_for("chat.postEphemeral", user="U0LINUS")
        assert "Only U0GRACE" in refusal.args["text"]
        assert await slack.tasks(TITLE) == 0

        # A double click by the asker: both requests at once.
        statuses = await asyncio.gather(
            slack.sender.action(click("U0GRACE", "C1", card, cards.APPROVE)),
            slack.sender.action(click("U0GRACE", "C1", card, cards.APPROVE)),
        )
        assert statuses == [200, 200]
        await slack.api.wait_for("chat.update", text=DONE["content"])
        [second] = await slack.api.wait_for("chat.postEphemeral", user="U0GRACE")
        assert "no longer waiting" in second.args["text"]
        assert await slack.tasks(TITLE) == 1
    [decided] = [
        c
        for c in slack.api.made("chat.update", ts=card.args["ts"])
        if c.args.get("text") == "Approved by <@U0GRACE>"
    ]
    assert not any(b["type"] == "actions" for b in decided.args["blocks"])
    assert ":white_check_mark: Approved by <@U0GRACE>" in str(decided.args["blocks"])
    assert len(slack.api.made("chat.update", text=DONE["content"])) == 1


async def test_an_admin_may_reject_someone_elses_proposal(open_slack_app) -> None:
    rejected = {"content": "OK, I did not create the Garlic Press task."}
    async with open_slack_app([CREATE, rejected]) as slack:
        await slack.sender.event(mention("C1", "U0GRACE", ASK, "200.1"))
        card = await card_of(slack, "200.1")
        await slack.sender.action(click("U0ADA", "C1", card, cards.REJECT))
        await slack.api.wait_for("chat.update", text=rejected["content"])
        assert await slack.tasks(TITLE) == 0
    assert slack.api.made("chat.update", text="Rejected by <@U0ADA>")
    assert not slack.api.made("chat.postEphemeral")


async def test_yes_in_the_thread_approves(open_slack_app) -> None:
    async with open_slack_app([CREATE, DONE]) as slack:
        await slack.sender.event(mention("C1", "U0GRACE", ASK, "300.1"))
        await card_of(slack, "300.1")
        await slack.sender.event(message("C1", "U0GRACE", "yes, create it", "300.2", "300.1"))
        await slack.api.wait_for("chat.update", text=DONE["content"])
        assert await slack.tasks(TITLE) == 1
