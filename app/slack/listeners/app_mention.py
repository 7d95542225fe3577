"""`app_mention`: someone mentions the bot in a channel; the answer goes in the thread."""

from __future__ import annotations

from typing import Any

from slack_bolt.async_app import AsyncApp, AsyncBoltContext

from app.slack.conversations import Conversations
from app.slack.incoming import read_mention
from app.slack.turn_loop import TurnLoop


def register(app: AsyncApp, turns: TurnLoop, conversations: Conversations) -> None:
    """Answer mentions of the bot by people (and allowed bots)."""
    allowed = conversations.settings.allowed_bot_ids

    @app.event("app_mention")
    async def app_mention(
        event: dict[str, Any], body: dict[str, Any], context: AsyncBoltContext
    ) -> None:
        incoming = read_mention(event, body, str(context.team_id), context.bot_user_id, allowed)
        if incoming is not None:
            turns.submit(conversations.receive(incoming))
