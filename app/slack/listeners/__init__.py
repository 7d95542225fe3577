"""Bolt listeners, one per module, each with `register(app, turns, conversations)`.

Listeners run on the loop that acknowledges Slack's requests: they only read the payload
and hand the work to the turn loop (`turns.submit`), so an acknowledgement never waits on
a database, the Web API or a turn.
"""

from __future__ import annotations

from slack_bolt.async_app import AsyncApp

from app.slack.conversations import Conversations
from app.slack.listeners import (
    app_mention,
    assistant_thread,
    decision,
    feedback,
    message,
    stop_command,
)
from app.slack.turn_loop import TurnLoop


def register_all(app: AsyncApp, turns: TurnLoop, conversations: Conversations) -> None:
    """Register every listener of the Slack app (the assistant's first: it claims its DMs)."""
    for module in (assistant_thread, app_mention, message, decision, feedback, stop_command):
        module.register(app, turns, conversations)
