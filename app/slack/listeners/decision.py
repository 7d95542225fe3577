"""Approve / Reject on an approval card: acknowledged at once, then the decision is applied."""

from __future__ import annotations

import re
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp

from app.slack import cards
from app.slack.conversations import Conversations
from app.slack.threads import SlackThread

_BUTTONS = re.compile(f"^({cards.APPROVE}|{cards.REJECT})$")


def register(app: AsyncApp, conversations: Conversations) -> None:
    """Resume the thread's pending proposal with the clicked decision."""

    @app.action(_BUTTONS)
    async def decision(ack: AsyncAck, body: dict[str, Any], action: dict[str, Any]) -> None:
        await ack()
        thread_id, fingerprints = cards.read_button_value(str(action["value"]))
        await conversations.decide(
            SlackThread.parse(thread_id),
            str(body["user"]["id"]),
            str(action["action_id"]),
            fingerprints,
            body.get("message") or {"ts": body["container"]["message_ts"]},
        )
