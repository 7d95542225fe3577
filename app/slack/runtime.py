"""The running Slack front end: start-up checks, the turn loop with what turns use, the Bolt app.

`open_slack` checks the settings, the model and the bot token first (a `SlackConfigError`
stops everything before anything listens), then opens the runner (with the threads' lanes),
the workspace database and the stop signals on the turn loop, and builds the Bolt app for
the loop that serves Slack's requests.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TypeVar

from aiohttp import web
from slack_bolt.async_app import AsyncApp

from app.slack import health, http_server
from app.slack.bolt import build_app
from app.slack.card_outcomes import CardKeeper
from app.slack.conversations import Conversations
from app.slack.dedupe import EventLedger
from app.slack.identity import Roles
from app.slack.running import RunningTurns
from app.slack.startup import (
    BotIdentity,
    SlackConfigError,
    check_bot_token,
    check_model,
    check_settings,
    open_packs,
)
from app.slack.stop_signals import StopSignals
from app.slack.turn_loop import TurnLoop
from app.slack.web_api import bot_client
from core.db.engine import Database, open_database
from core.heap import frozen_startup
from core.models import ModelResolver
from core.settings import Settings
from core.settings_sections import SlackSection
from graph.runner import Runner
from tools.registry import ToolRegistry

__all__ = ["SlackConfigError", "SlackRuntime", "open_slack"]

T = TypeVar("T")
HEALTH_TIMEOUT_S = 3.0
LAST_POSTS_S = 5.0
"""After its turns end, how long a stopping app waits for their answers to be posted."""


@dataclass
class SlackRuntime:
    """An open Slack front end: the Bolt app, and the turn loop with its conversations."""

    app: AsyncApp
    turns: TurnLoop
    conversations: Conversations
    """Lives on the turn loop: use it through `call`."""
    identity: BotIdentity
    slack: SlackSection
    db: Database

    async def call(self, work: Callable[[Conversations], Awaitable[T]]) -> T:
        """Run `work(conversations)` on the turn loop and return its result."""

        async def run() -> T:
            return await work(self.conversations)

        return await self.turns.call(run())

    async def shutdown(self) -> int:
        """Let the turns in flight end within the grace period; interrupt the rest (SIGTERM).

        Returns how many were interrupted; each of their threads is told so (a `continue`
        there carries the turn on), once their answers are posted.
        """
        interrupted = await self.turns.call(self.conversations.runner.shutdown())
        await self.turns.settle(LAST_POSTS_S)
        return interrupted

    async def health(self) -> str | None:
        """Return why turns cannot be served now, or None (see `app.slack.health`)."""
        runner = self.conversations.runner
        return await self.turns.call(health.problem(self.db, runner, HEALTH_TIMEOUT_S))

    def web_app(self, path: str = http_server.EVENTS_PATH) -> web.Application:
        """Return the HTTP application: Slack's requests on `path`, and `/health`."""
        secret = self.slack.signing_secret
        if secret is None:
            raise SlackConfigError("SLACK_SIGNING_SECRET is required in HTTP mode")
        return http_server.web_app(
            self.app, secret.get_secret_value(), self.health, self.turns.submit, path
        )


@asynccontextmanager
async def open_slack(
    settings: Settings, slack: SlackSection, *, socket_mode: bool = False
) -> AsyncIterator[SlackRuntime]:
    """Check the configuration, open what turns use on the turn loop, build the Bolt app."""
    check_settings(slack, socket_mode=socket_mode)
    turns = TurnLoop()
    turns.start()
    try:
        # On the turn loop, where turns call the MCP servers' sessions.
        registry = await turns.enter(open_packs(settings))
        models = check_model(settings, registry)
        identity = await check_bot_token(bot_client(slack))
        db = open_database(settings)
        conversations = await turns.enter(_conversations(settings, slack, registry, models, db))
        app = build_app(turns, conversations, identity, slack, socket_mode=socket_mode)
        # A full collection walking what start-up built paused every acknowledgement
        # 140-380 ms; frozen, it takes about 6 ms.
        with frozen_startup():
            yield SlackRuntime(app, turns, conversations, identity, slack, db)
    finally:
        await turns.close()


@asynccontextmanager
async def _conversations(
    settings: Settings,
    slack: SlackSection,
    registry: ToolRegistry,
    models: ModelResolver,
    db: Database,
) -> AsyncIterator[Conversations]:
    """Open, on the turn loop, everything a turn uses; close it all on exit."""
    client = bot_client(slack)
    running = RunningTurns()
    try:
        async with (
            Runner.open(settings, registry, models) as runner,
            StopSignals.open(settings, running.stop) as signals,
        ):
            conversations = Conversations(
                runner,
                Roles(db, slack),
                EventLedger(db, slack.processed_event_ttl_s),
                client,
                slack,
                CardKeeper(runner, client, db),
                running,
                signals,
            )
            try:
                yield conversations
            finally:
                await conversations.close()
    finally:
        await db.dispose()
