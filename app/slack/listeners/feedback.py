"""👍 / 👎 under an answer: acknowledged at once, then recorded as the clicker's vote."""

from __future__ import annotations

from typing import Any

from slack_bolt.async_app import AsyncAck, AsyncApp

from app.slack.conversations import Conversations
from app.slack.feedback_buttons import FEEDBACK
from app.slack.feedback_votes import FeedbackClick, FeedbackVotes
from app.slack.turn_loop import TurnLoop


def register(app: AsyncApp, turns: TurnLoop, conversations: Conversations) -> None:
    """Record each click on an answer's feedback buttons for the person who clicked."""
    runner = conversations.runner
    if runner.db is None:
        raise RuntimeError("the Slack app's runner has no workspace to record votes in")
    votes = FeedbackVotes(
        runner.db,
        runner.driver.tracing,
        conversations.client,
        conversations.ledger,
        conversations.settings,
        runner.driver.audit,
    )

    @app.action(FEEDBACK)
    async def feedback(ack: AsyncAck, body: dict[str, Any], action: dict[str, Any]) -> None:
        await ack()
        message = body.get("message") or {}
        container = body.get("container") or {}
        channel = str((body.get("channel") or {}).get("id") or container.get("channel_id") or "")
        thread_ts = message.get("thread_ts") or container.get("thread_ts") or message.get("ts")
        click = FeedbackClick(
            user=str(body["user"]["id"]),
            value=str(action.get("value", "")),
            channel=channel,
            thread_ts=str(thread_ts or container.get("message_ts") or ""),
            action_ts=str(action.get("action_ts") or ""),
        )
        turns.submit(votes.click(click))
