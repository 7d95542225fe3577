"""The assistant container (Slack's AI apps): suggested prompts, and the thread's messages.

Bolt's `AsyncAssistant` routes the assistant's events: a new thread gets suggested
prompts; a message in the thread is answered like a DM (progress in the assistant status).
The context of the channel the person is looking at is not used, so its changes are only
acknowledged.
"""

from __future__ import annotations

from typing import Any

from slack_bolt.async_app import AsyncApp, AsyncBoltContext
from slack_bolt.middleware.assistant.async_assistant import AsyncAssistant

from app.slack.assistant import suggest_prompts
from app.slack.conversations import Conversations
from app.slack.incoming import read_message
from app.slack.turn_loop import TurnLoop


def register(app: AsyncApp, turns: TurnLoop, conversations: Conversations) -> None:
    """Register the assistant's listeners."""
    assistant = AsyncAssistant()
    allowed = conversations.settings.allowed_bot_ids

    @assistant.thread_started
    async def thread_started(payload: dict[str, Any]) -> None:
        thread = payload.get("assistant_thread") or {}
        channel, thread_ts = thread.get("channel_id"), thread.get("thread_ts")
        if channel and thread_ts:
            registry = conversations.runner.registry
            prompts = suggest_prompts(conversations.client, str(channel), str(thread_ts), registry)
            turns.submit(prompts)

    @assistant.thread_context_changed
    async def thread_context_changed() -> None:
        return None

    @assistant.user_message
    async def user_message(
        event: dict[str, Any], body: dict[str, Any], context: AsyncBoltContext
    ) -> None:
        incoming = read_message(event, body, str(context.team_id), context.bot_user_id, allowed)
        if incoming is not None:
            turns.submit(conversations.receive(incoming))

    app.assistant(assistant)
