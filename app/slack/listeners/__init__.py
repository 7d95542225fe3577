"""Bolt listeners, one per module, each with `register(app, conversations)`."""

from __future__ import annotations

from slack_bolt.async_app import AsyncApp

from app.slack.conversations import Conversations
from app.slack.listeners import app_mention, decision, message, stop_command


def register_all(app: AsyncApp, conversations: Conversations) -> None:
    """Register every listener of the Slack app."""
    for module in (app_mention, message, decision, stop_command):
        module.register(app, conversations)
