"""The Bolt app, built on the runner, the lanes, the event ledger and the roles."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from slack_bolt.async_app import AsyncApp
from slack_sdk.web.async_client import AsyncWebClient

from app.db.engine import open_database
from app.settings import Settings
from app.slack.conversations import Conversations
from app.slack.dedupe import EventLedger
from app.slack.identity import Roles
from app.slack.lanes import Lanes
from app.slack.listeners import register_all
from app.slack.settings import SlackSettings
from graph.runner import Runner

logger = logging.getLogger(__name__)


class SlackConfigError(ValueError):
    """A setting the chosen mode needs is missing."""


@dataclass
class SlackRuntime:
    """An open Slack front end: the Bolt app and what it runs turns with."""

    app: AsyncApp
    conversations: Conversations


def build_app(
    conversations: Conversations,
    slack: SlackSettings,
    *,
    socket_mode: bool = False,
) -> AsyncApp:
    """Return the Bolt app with every listener registered.

    Over HTTP every request's signature is verified with the signing secret (Bolt's
    request verification); Socket Mode needs none.
    """
    if not socket_mode and slack.signing_secret is None:
        raise SlackConfigError("SLACK_SIGNING_SECRET is required in HTTP mode")
    app = AsyncApp(
        client=conversations.client,
        signing_secret=slack.signing_secret.get_secret_value() if slack.signing_secret else None,
        request_verification_enabled=not socket_mode,
        # Events are acknowledged before the listener runs; turns take seconds.
        process_before_response=False,
        logger=logging.getLogger("app.slack.bolt"),
    )
    register_all(app, conversations)
    return app


@asynccontextmanager
async def open_slack(
    settings: Settings, slack: SlackSettings, *, socket_mode: bool = False
) -> AsyncIterator[SlackRuntime]:
    """Open the runner, the workspace database and the lanes, and build the Bolt app on them."""
    if slack.bot_token is None:
        raise SlackConfigError("SLACK_BOT_TOKEN is required")
    client = AsyncWebClient(token=slack.bot_token.get_secret_value(), base_url=slack.api_url)
    db = open_database(settings)
    try:
        async with Runner.open(settings) as runner, Lanes.open(settings) as lanes:
            ledger = EventLedger(db, slack.processed_event_ttl_s)
            conversations = Conversations(runner, lanes, Roles(db, slack), ledger, client, slack)
            app = build_app(conversations, slack, socket_mode=socket_mode)
            try:
                yield SlackRuntime(app, conversations)
            finally:
                await conversations.close()
    finally:
        await db.dispose()
