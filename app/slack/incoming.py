"""Reading an incoming Slack message: the bot's mention removed, a "stop" recognised."""

from __future__ import annotations

import re

_STOP = re.compile(r"^\s*(stop|cancel|abort)[\s.!]*$", re.IGNORECASE)


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
