"""An MCP server's change in Slack: the approval card (with the server's warning), called once."""

from __future__ import annotations

import asyncio
from pathlib import Path

from app.slack import cards
from tests.support.mcp.desk import Desk
from tests.support.slack_sender import click, mention

CLOSE = {
    "tool_calls": [{"name": "tickets__close_ticket", "id": "call_close", "args": {"ticket": "42"}}]
}
DONE = {"content": "Ticket 42 is closed."}


async def test_an_mcp_change_waits_on_a_card_and_two_clicks_call_the_server_once(
    open_slack_app, workspace_url: str, tmp_path: Path
) -> None:
    desk = Desk(tmp_path)
    config = desk.write_config({"tickets": desk.stdio(trust="annotations")})
    async with open_slack_app(
        [CLOSE, DONE], database_url=workspace_url, mcp_config=config
    ) as slack:
        await slack.sender.event(mention("C1", "U0GRACE", "close ticket 42", "300.1"))
        card = await slack.api.card("C1", "300.1")
        shown = str(card["blocks"])
        assert "tickets__close_ticket" in shown and "Asked by <@U0GRACE>" in shown
        assert "marks this tool destructive" in shown
        assert desk.calls("close_ticket") == []

        statuses = await asyncio.gather(
            slack.sender.action(click("U0GRACE", "C1", card, cards.APPROVE)),
            slack.sender.action(click("U0GRACE", "C1", card, cards.APPROVE)),
        )
        assert statuses == [200, 200]
        await slack.api.wait_for_answer(DONE["content"])
    assert len(desk.calls("close_ticket")) == 1
    assert desk.status("42") == "closed"
