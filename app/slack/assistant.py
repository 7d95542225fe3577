"""A new assistant thread's opening: a few suggested prompts to start from."""

from __future__ import annotations

import logging

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

logger = logging.getLogger(__name__)

PROMPTS_TITLE = "Try one of these:"
SUGGESTED_PROMPTS = [
    {"title": "Who owns a brand?", "message": "Which client owns the Garlic Press brand?"},
    {"title": "Open tasks", "message": "What tasks are open for Thorinox?"},
    {"title": "Make a task", "message": "Create a task to refresh the Garlic Press images."},
    {"title": "Plan something", "message": "Plan next week's work for Distex."},
]


async def suggest_prompts(client: AsyncWebClient, channel_id: str, thread_ts: str) -> None:
    """Show the suggested prompts in a new assistant thread (best effort)."""
    try:
        await client.assistant_threads_setSuggestedPrompts(
            channel_id=channel_id,
            thread_ts=thread_ts,
            title=PROMPTS_TITLE,
            prompts=SUGGESTED_PROMPTS,
        )
    except SlackApiError:
        logger.exception("could not show suggested prompts in %s:%s", channel_id, thread_ts)
