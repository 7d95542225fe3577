"""The thread's earlier messages, for a turn that joins a Slack thread it has not seen yet."""

from __future__ import annotations

from typing import Any

from slack_sdk.web.async_client import AsyncWebClient

from app.slack.threads import SlackThread

HEADER = "[Earlier messages in this Slack thread, before I was asked]"
FOOTER = "[End of earlier messages. The new message follows.]"


async def earlier_messages(
    client: AsyncWebClient, thread: SlackThread, before_ts: str, limit: int
) -> list[str]:
    """Return up to `limit` messages of the thread posted before `before_ts`, oldest first."""
    if limit <= 0 or thread.thread_ts == before_ts:
        return []
    response = await client.conversations_replies(
        channel=thread.channel, ts=thread.thread_ts, limit=limit + 1
    )
    lines: list[str] = []
    messages: list[dict[str, Any]] = response.get("messages", [])
    for message in messages:
        if float(message.get("ts", "0")) >= float(before_ts) or not message.get("text"):
            continue
        author = message.get("user") or message.get("bot_id") or "someone"
        lines.append(f"<@{author}>: {message['text']}")
    return lines[-limit:]


def with_earlier_messages(message: str, earlier: list[str]) -> str:
    """Return the message prefixed with the thread's earlier messages, clearly marked."""
    if not earlier:
        return message
    return "\n".join([HEADER, *earlier, FOOTER, "", message])
