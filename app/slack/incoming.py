"""Reading an incoming Slack message: which ones are for the agent, from whom, with what text.

Every `message` event is acknowledged; only these are answered: plain messages, and the
`thread_broadcast` ("also send to channel") and `file_share` (a message with a file)
subtypes. Edits, deletions, joins and the rest are ignored. Messages from bots are
ignored unless the bot is in `SLACK_ALLOWED_BOT_IDS` (the app's own posts never arrive:
Bolt drops them).
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from app.slack.threads import SlackThread

ANSWERED_SUBTYPES = frozenset({"thread_broadcast", "file_share"})
_STOP = re.compile(r"^\s*(stop|cancel|abort)[\s.!]*$", re.IGNORECASE)
_CARRY_ON = re.compile(r"^\s*(continue|carry on|go on)[\s.!]*$", re.IGNORECASE)


@dataclass(frozen=True)
class Incoming:
    """A message the agent should answer (if it is the first delivery of its event)."""

    thread: SlackThread
    user: str
    """The author: a Slack user id, or an allowed bot's id."""
    text: str
    ts: str
    event_id: str | None
    direct: bool
    """A DM or an assistant thread: progress shows as the assistant status."""
    follow_up: bool
    """A channel thread reply without a mention: answered only in threads the agent is in."""


def strip_mention(text: str, bot_user_id: str | None) -> str:
    """Return the text without mentions of the bot."""
    if not bot_user_id:
        return text.strip()
    return re.sub(rf"<@{re.escape(bot_user_id)}(\|[^>]*)?>", "", text).strip()


def mentions(text: str, bot_user_id: str | None) -> bool:
    """Whether the text mentions the bot."""
    return bool(bot_user_id) and f"<@{bot_user_id}" in text


def is_stop(text: str) -> bool:
    """Whether the message asks to stop the thread's running turn."""
    return bool(_STOP.match(text))


def is_carry_on(text: str) -> bool:
    """Whether the message asks to carry on the thread's interrupted turn."""
    return bool(_CARRY_ON.match(text))


def author(event: dict[str, Any], allowed_bots: Collection[str]) -> str | None:
    """Return who wrote the message when the agent answers them: a person, or an allowed bot."""
    bot_id = event.get("bot_id")
    if bot_id or event.get("subtype") == "bot_message":
        return str(bot_id) if bot_id and bot_id in allowed_bots else None
    user = event.get("user")
    return str(user) if user else None


def read_message(
    event: dict[str, Any],
    body: dict[str, Any],
    team_id: str,
    bot_user_id: str | None,
    allowed_bots: Collection[str],
) -> Incoming | None:
    """Return the `message` event as an `Incoming`, or None when it is not for the agent."""
    subtype = event.get("subtype")
    from_allowed_bot = subtype == "bot_message" and author(event, allowed_bots) is not None
    if subtype is not None and subtype not in ANSWERED_SUBTYPES and not from_allowed_bot:
        return None
    who = author(event, allowed_bots)
    if who is None or not event.get("channel") or not event.get("ts"):
        return None
    raw = str(event.get("text") or "")
    direct = event.get("channel_type") == "im"
    # In a channel: replies in a thread only, and not the ones that mention the bot (the
    # `app_mention` listener receives those too, and answers them once).
    if not direct and (not event.get("thread_ts") or mentions(raw, bot_user_id)):
        return None
    return Incoming(
        thread=SlackThread.of_message(team_id, event),
        user=who,
        text=strip_mention(raw, bot_user_id),
        ts=str(event["ts"]),
        event_id=_event_id(body),
        direct=direct,
        follow_up=not direct,
    )


def read_mention(
    event: dict[str, Any],
    body: dict[str, Any],
    team_id: str,
    bot_user_id: str | None,
    allowed_bots: Collection[str],
) -> Incoming | None:
    """Return the `app_mention` event as an `Incoming`, or None (another bot, not allowed)."""
    who = author(event, allowed_bots)
    if who is None or not event.get("channel") or not event.get("ts"):
        return None
    return Incoming(
        thread=SlackThread.of_message(team_id, event),
        user=who,
        text=strip_mention(str(event.get("text") or ""), bot_user_id),
        ts=str(event["ts"]),
        event_id=_event_id(body),
        direct=False,
        follow_up=False,
    )


def _event_id(body: dict[str, Any]) -> str | None:
    event_id = body.get("event_id")
    return str(event_id) if event_id else None
