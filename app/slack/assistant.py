"""A new assistant thread's opening: a few suggested prompts to start from."""

from __future__ import annotations

import logging

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from tools.registry import ToolRegistry

logger = logging.getLogger(__name__)

PROMPTS_TITLE = "Try one of these:"
TITLE_CHARS = 40
"""Slack shows a suggested prompt's title on one short line."""


def suggested_prompts(registry: ToolRegistry) -> list[dict[str, str]]:
    """The enabled packs' starters, as Slack's suggested prompts (any member may try them)."""
    return [
        {"title": title if len(title) <= TITLE_CHARS else title[: TITLE_CHARS - 1] + "…",
         "message": ask}
        for title, ask in registry.starters("member")
    ]  # fmt: skip


async def suggest_prompts(
    client: AsyncWebClient, channel_id: str, thread_ts: str, registry: ToolRegistry
) -> None:
    """Show the suggested prompts in a new assistant thread (best effort)."""
    prompts = suggested_prompts(registry)
    if not prompts:
        return
    try:
        await client.assistant_threads_setSuggestedPrompts(
            channel_id=channel_id,
            thread_ts=thread_ts,
            title=PROMPTS_TITLE,
            prompts=prompts,
        )
    except SlackApiError:
        logger.exception("could not show suggested prompts in %s:%s", channel_id, thread_ts)
