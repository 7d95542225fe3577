"""Approve / Reject on an approval card: acknowledged at once, then the decision is applied."""

from __future__ import annotations

import logging
import re
from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp

from app.slack import cards
from app.slack.conversations import Conversations
from app.slack.turn_loop import TurnLoop

logger = logging.getLogger(__name__)

_BUTTONS = re.compile(f"^({cards.APPROVE}|{cards.REJECT})$")


def register(app: AsyncApp, turns: TurnLoop, conversations: Conversations) -> None:
    """Resume the thread's pending proposal with the clicked decision."""

    @app.action(_BUTTONS)
    async def decision(ack: AsyncAck, body: dict[str, Any], action: dict[str, Any]) -> None:
        await ack()
        try:
            card = cards.read_button_value(str(action.get("value", "")))
        except ValueError:
            logger.warning("a click on a button that is not an approval card's", exc_info=True)
            return
        message = body.get("message") or {"ts": body["container"]["message_ts"]}
        user = str(body["user"]["id"])
        turns.submit(conversations.decide(card, user, str(action["action_id"]), message))
