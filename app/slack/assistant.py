"""A new assistant thread's opening: suggested prompts to start from, a title from its first ask."""

from __future__ import annotations

import logging

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from app.slack.threads import SlackThread
from tools.registry import ToolRegistry

logger = logging.getLogger(__name__)

PROMPTS_TITLE = "Try one of these:"
TITLE_CHARS = 40
"""Slack shows a suggested prompt's title on one short line."""
THREAD_TITLE_CHARS = 60
"""A thread's title in the assistant's history list: the start of its first message."""


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


def thread_title(first_message: str) -> str:
    """The title of a thread that opens with `first_message`: its first line, cut short."""
    line = " ".join(first_message.split())
    return line if len(line) <= THREAD_TITLE_CHARS else line[: THREAD_TITLE_CHARS - 1] + "…"


async def name_thread(client: AsyncWebClient, thread: SlackThread, first_message: str) -> None:
    """Title a new assistant thread from its first message (best effort: a plain DM has none)."""
    title = thread_title(first_message)
    if not title:
        return
    try:
        await client.assistant_threads_setTitle(
            channel_id=thread.channel, thread_ts=thread.thread_ts, title=title
        )
    except SlackApiError as exc:
        logger.info("no title for %s (%s)", thread.thread_id, exc.response.get("error"))
