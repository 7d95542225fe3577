"""`message`: DMs, and replies in a thread the bot takes part in (no mention needed).

Every subtype is acknowledged (an unhandled event would count as a failed delivery);
`incoming.read_message` decides which are answered. A message that mentions the bot in a
channel is left to the `app_mention` listener, which receives the same message.
"""

from __future__ import annotations

from typing import Any

from slack_bolt.async_app import AsyncApp, AsyncBoltContext

from app.slack.conversations import Conversations
from app.slack.incoming import read_message
from app.slack.turn_loop import TurnLoop


def register(app: AsyncApp, turns: TurnLoop, conversations: Conversations) -> None:
    """Answer DMs and follow-ups in the bot's threads; acknowledge every other message."""
    allowed = conversations.settings.allowed_bot_ids

    @app.event("message")
    async def message(
        event: dict[str, Any], body: dict[str, Any], context: AsyncBoltContext
    ) -> None:
        incoming = read_message(event, body, str(context.team_id), context.bot_user_id, allowed)
        if incoming is not None:
            turns.submit(conversations.receive(incoming))
