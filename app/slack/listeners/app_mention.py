"""`app_mention`: someone mentions the bot in a channel; the answer goes in the thread."""

from __future__ import annotations

from typing import Any

from slack_bolt.async_app import AsyncApp, AsyncBoltContext

from app.slack.conversations import Conversations
from app.slack.incoming import is_stop, strip_mention
from app.slack.threads import SlackThread


def register(app: AsyncApp, conversations: Conversations) -> None:
    """Answer mentions of the bot (events are acknowledged by Bolt before this runs)."""

    @app.event("app_mention")
    async def app_mention(
        event: dict[str, Any], body: dict[str, Any], context: AsyncBoltContext
    ) -> None:
        if not await conversations.ledger.first_delivery(body):
            return
        thread = SlackThread.of_message(str(context.team_id), event)
        text = strip_mention(str(event.get("text", "")), context.bot_user_id)
        if is_stop(text):
            await conversations.stop_in_thread(thread)
            return
        await conversations.message(thread, str(event["user"]), text, str(event["ts"]))
