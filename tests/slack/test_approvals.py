"""Approval cards: who may click, exactly once, who decided what, and "yes" in the thread."""

from __future__ import annotations

import asyncio

from app.slack import cards
from tests.support.slack_sender import click, mention, message

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


def outcome_of(card: dict) -> str:
    """The card's last context line (what a decided card says at its end)."""
    return card["blocks"][-1]["elements"][0]["text"]


def live(card: dict) -> bool:
    return any(b["type"] == "actions" for b in card["blocks"])


async def until_decided(slack, card: dict, within: float = 20.0) -> dict:
    for _ in range(int(within / 0.02)):
        now = slack.api.message_at("C1", card["ts"])
        if now is not None and not live(now):
            return now
        await asyncio.sleep(0.02)
    raise AssertionError(
        f"the card still shows its buttons: {slack.api.message_at('C1', card['ts'])}"
    )


async def test_requester_approves_once_others_are_refused_and_the_card_shows_it(
    open_slack_app,
) -> None:
    async with open_slack_app([CREATE, DONE]) as slack:
        await slack.sender.event(mention("C1", "U0GRACE", ASK, "100.1"))
        card = await slack.api.card("C1", "100.1")
        blocks_text = str(card["blocks"])
        assert "create_task" in blocks_text and TITLE in blocks_text
        assert "Asked by <@U0GRACE>" in blocks_text

        # Linus is a member, not the asker and not an approver: refused, only to him.
        assert await slack.sender.action(click("U0LINUS", "C1", card, cards.APPROVE)) == 200
        [refusal] = await slack.api.wait_for("chat.postEphemeral", user="U0LINUS")
        assert "Only <@U0GRACE>" in refusal.args["text"]
        assert await slack.tasks(TITLE) == 0
        assert live(slack.api.message_at("C1", card["ts"]))

        # A double click by the asker: both requests at once.
        statuses = await asyncio.gather(
            slack.sender.action(click("U0GRACE", "C1", card, cards.APPROVE)),
            slack.sender.action(click("U0GRACE", "C1", card, cards.APPROVE)),
        )
        assert statuses == [200, 200]
        await slack.api.wait_for_answer(DONE["content"])
        [second] = await slack.api.wait_for("chat.postEphemeral", user="U0GRACE")
        assert "no longer waiting" in second.args["text"]
        assert await slack.tasks(TITLE) == 1
        decided = slack.api.message_at("C1", card["ts"])
    assert decided is not None and not live(decided)
    assert outcome_of(decided) == ":white_check_mark: Approved by <@U0GRACE>"
    assert slack.api.answers().count(DONE["content"]) == 1


async def test_an_admin_may_reject_someone_elses_proposal(open_slack_app) -> None:
    rejected = {"content": "OK, I did not create the Garlic Press task."}
    async with open_slack_app([CREATE, rejected]) as slack:
        await slack.sender.event(mention("C1", "U0GRACE", ASK, "200.1"))
        card = await slack.api.card("C1", "200.1")
        await slack.sender.action(click("U0ADA", "C1", card, cards.REJECT))
        await slack.api.wait_for_answer(rejected["content"])
        assert await slack.tasks(TITLE) == 0
        decided = await until_decided(slack, card)
    assert outcome_of(decided) == ":x: Rejected by <@U0ADA>"
    assert not slack.api.made("chat.postEphemeral")


async def test_yes_in_the_thread_approves_and_the_card_shows_who_decided(open_slack_app) -> None:
    async with open_slack_app([CREATE, DONE]) as slack:
        await slack.sender.event(mention("C1", "U0GRACE", ASK, "300.1"))
        card = await slack.api.card("C1", "300.1")
        await slack.sender.event(message("C1", "U0GRACE", "yes, create it", "300.2", "300.1"))
        await slack.api.wait_for_answer(DONE["content"])
        assert await slack.tasks(TITLE) == 1
        decided = await until_decided(slack, card)
    assert outcome_of(decided) == ":white_check_mark: Approved by <@U0GRACE>"


async def test_an_unclear_reply_in_the_thread_the_model_reads_as_approval_approves(
    open_slack_app, workspace_url: str
) -> None:
    approve = {"tool_calls": [{"name": "approve", "args": {}}]}
    async with open_slack_app([CREATE, approve, DONE], database_url=workspace_url) as slack:
        await slack.sender.event(mention("C1", "U0GRACE", ASK, "320.1"))
        card = await slack.api.card("C1", "320.1")
        reply = message("C1", "U0GRACE", "alright, that title works for me", "320.2", "320.1")
        await slack.sender.event(reply)
        await slack.api.wait_for_answer(DONE["content"])
        assert await slack.tasks(TITLE) == 1
        decided = await until_decided(slack, card)
    assert outcome_of(decided) == ":white_check_mark: Approved by <@U0GRACE>"


async def test_no_in_the_thread_rejects_and_the_card_shows_it(open_slack_app) -> None:
    not_done = {"content": "OK, I won't create the Garlic Press task."}
    async with open_slack_app([CREATE, not_done]) as slack:
        await slack.sender.event(mention("C1", "U0GRACE", ASK, "350.1"))
        card = await slack.api.card("C1", "350.1")
        await slack.sender.event(message("C1", "U0GRACE", "no", "350.2", "350.1"))
        await slack.api.wait_for_answer(not_done["content"])
        decided = await until_decided(slack, card)
        assert await slack.tasks(TITLE) == 0
    assert outcome_of(decided) == ":x: Rejected by <@U0GRACE>"


async def test_the_card_names_each_change_once(open_slack_app) -> None:
    async with open_slack_app([CREATE]) as slack:
        await slack.sender.event(mention("C1", "U0GRACE", ASK, "400.1"))
        card = await slack.api.card("C1", "400.1")
        [proposal] = (await slack.pending("T0TEAM:C1:400.1"))["proposals"]
    texts = [
        str(b.get("text", {}).get("text", "")) + str(b.get("elements", "")) for b in card["blocks"]
    ]
    assert sum(proposal["description"] in t for t in texts) == 1


def shared_env(slack, model: str) -> dict[str, str]:
    """What another process needs to see the Slack app's workspace and checkpoints."""
    return {
        "DATABASE_URL": slack.workspace_url,
        "AGENTLOOP_DATA_DIR": str(slack.settings.data_dir),
        "AGENTLOOP_CHECKPOINTER": slack.settings.checkpointer_kind(),
        "AGENTLOOP_MODEL": model,
    }


async def test_a_decision_from_the_cli_shows_on_the_card_when_the_thread_is_next_handled(
    open_slack_app, write_script, workspace_url: str
) -> None:
    """`agentloop resume` in another process; the card is closed at the thread's next message."""
    from tests.support.cli import agentloop

    follow_up = {"content": "You're welcome: the Garlic Press task is in Thorinox's list."}
    checkpointer = "postgres" if workspace_url.startswith("postgres") else "sqlite"
    async with open_slack_app(
        [CREATE, follow_up], database_url=workspace_url, checkpointer=checkpointer
    ) as slack:
        await slack.sender.event(mention("C1", "U0GRACE", ASK, "500.1"))
        card = await slack.api.card("C1", "500.1")
        env = shared_env(slack, write_script([DONE]))
        done = await asyncio.to_thread(
            agentloop,
            "resume",
            "--thread",
            "T0TEAM:C1:500.1",
            "--approve",
            "--user",
            "U0GRACE",
            env=env,
        )
        assert done.returncode == 0, done.stderr
        assert await slack.tasks(TITLE) == 1
        assert live(slack.api.message_at("C1", card["ts"]))  # Slack was not told yet

        await slack.sender.event(message("C1", "U0GRACE", "thanks!", "500.9", "500.1"))
        decided = await until_decided(slack, card)
        await slack.api.wait_for_answer(follow_up["content"])
    assert outcome_of(decided) == ":white_check_mark: Approved by <@U0GRACE> (from cli)"


async def test_a_click_on_a_card_decided_elsewhere_shows_the_outcome(
    open_slack_app, write_script
) -> None:
    from tests.support.cli import agentloop

    async with open_slack_app([CREATE], checkpointer="sqlite") as slack:
        await slack.sender.event(mention("C1", "U0GRACE", ASK, "600.1"))
        card = await slack.api.card("C1", "600.1")
        env = shared_env(slack, write_script([{"content": "Fine, no task then."}]))
        done = await asyncio.to_thread(
            agentloop,
            "resume",
            "--thread",
            "T0TEAM:C1:600.1",
            "--reject",
            "--user",
            "U0ADA",
            "--role",
            "admin",
            env=env,
        )
        assert done.returncode == 0, done.stderr
        await slack.sender.action(click("U0GRACE", "C1", card, cards.APPROVE))
        decided = await until_decided(slack, card)
        [refusal] = await slack.api.wait_for("chat.postEphemeral", user="U0GRACE")
    assert "no longer waiting" in refusal.args["text"]
    assert outcome_of(decided) == ":x: Rejected by <@U0ADA> (from cli)"
    assert await slack.tasks(TITLE) == 0


async def test_a_second_click_on_an_approved_card_leaves_the_card_as_it_is(
    open_slack_app,
) -> None:
    thanks = {"content": "You're welcome."}
    async with open_slack_app([CREATE, DONE, thanks]) as slack:
        await slack.sender.event(mention("C1", "U0GRACE", ASK, "650.1"))
        card = await slack.api.card("C1", "650.1")
        await slack.sender.action(click("U0GRACE", "C1", card, cards.APPROVE))
        decided = await until_decided(slack, card)
        await slack.api.wait_for_answer(DONE["content"])
        # The same (stale) card clicked again, as a double click or a second screen sends it.
        await slack.sender.action(click("U0GRACE", "C1", card, cards.APPROVE))
        [refusal] = await slack.api.wait_for("chat.postEphemeral", user="U0GRACE")
        # A message after it in the thread waits for the click's handling to end.
        await slack.sender.event(message("C1", "U0GRACE", "thanks", "650.9", "650.1"))
        await slack.api.wait_for_answer(thanks["content"])
        edits = slack.api.made("chat.update", ts=card["ts"])
    assert "no longer waiting" in refusal.args["text"]
    assert len(edits) == 1
    assert slack.api.message_at("C1", card["ts"]) == decided
    assert await slack.tasks(TITLE) == 1


async def test_a_yes_from_someone_else_is_refused_naming_the_asker(open_slack_app) -> None:
    async with open_slack_app([CREATE]) as slack:
        await slack.sender.event(mention("C1", "U0GRACE", ASK, "700.1"))
        card = await slack.api.card("C1", "700.1")
        await slack.sender.event(message("C1", "U0LINUS", "yes, create it", "700.2", "700.1"))
        for _ in range(1000):
            refusals = [a for a in slack.api.answers() if a.startswith("Only")]
            if refusals:
                break
            await asyncio.sleep(0.02)
        assert await slack.pending("T0TEAM:C1:700.1") is not None
    assert refusals and refusals[0].startswith("Only <@U0GRACE>")
    assert live(slack.api.message_at("C1", card["ts"]))
    assert await slack.tasks(TITLE) == 0
