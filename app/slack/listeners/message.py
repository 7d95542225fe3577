"""`message`: direct messages, and replies in a thread the bot takes part in (no mention needed).

A message that mentions the bot in a channel is left to the `app_mention` listener, which
receives the same message, so it is answered once.
"""

from __future__ import annotations

from typing import Any

from slack_bolt.async_app import AsyncApp, AsyncBoltContext

from app.slack.conversations import Conversations
from app.slack.incoming import is_stop, mentions, strip_mention
from app.slack.threads import SlackThread


def register(app: AsyncApp, conversations: Conversations) -> None:
    """Answer DMs and follow-ups in the bot's threads; other channel messages are ignored."""

    # Only plain messages from people: edits, deletions and bot posts carry a subtype.
    @app.event({"type": "message", "subtype": None})
    async def message(
        event: dict[str, Any], body: dict[str, Any], context: AsyncBoltContext
    ) -> None:
        if event.get("bot_id") or not event.get("user"):
            return
        raw = str(event.get("text", ""))
        direct = event.get("channel_type") == "im"
        if not direct and (not event.get("thread_ts") or mentions(raw, context.bot_user_id)):
            return
        thread = SlackThread.of_message(str(context.team_id), event)
        if not direct and not await conversations.knows(thread):
            return
        if not await conversations.ledger.first_delivery(body):
            return
        text = strip_mention(raw, context.bot_user_id)
        if is_stop(text):
            await conversations.stop_in_thread(thread)
            return
        await conversations.message(thread, str(event["user"]), text, str(event["ts"]))
