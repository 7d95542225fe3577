"""Start-up checks: the tokens Slack accepts, the bot's identity, the packs and the model.

Each is checked once, before anything listens, so a wrong setting stops the app with one
line (`SlackConfigError`, exit code 2) instead of an app that drops every event or
reconnects forever.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass

from slack_sdk.errors import SlackApiError
from slack_sdk.web.async_client import AsyncWebClient

from core.models import ModelConfigError, ModelResolver
from core.settings import Settings
from core.settings_sections import SlackSection
from graph.warm_up import warm_up
from tools.pack_loading import PackError
from tools.registry import ToolRegistry, open_registry


class SlackConfigError(ValueError):
    """A setting the chosen mode needs is missing or refused; the message is one line."""


@dataclass(frozen=True)
class BotIdentity:
    """Who the app is in the workspace, from `auth.test` (called once, at start)."""

    user_id: str
    bot_id: str
    team_id: str
    enterprise_id: str | None = None


def check_settings(slack: SlackSection, *, socket_mode: bool) -> None:
    """Refuse a mode whose required settings are missing."""
    if slack.bot_token is None:
        raise SlackConfigError("SLACK_BOT_TOKEN is required")
    if socket_mode and slack.app_token is None:
        raise SlackConfigError("Socket Mode needs SLACK_APP_TOKEN (or run with --http)")
    if not socket_mode and slack.signing_secret is None:
        raise SlackConfigError("SLACK_SIGNING_SECRET is required in HTTP mode")


@asynccontextmanager
async def open_packs(settings: Settings) -> AsyncIterator[ToolRegistry]:
    """Load the enabled packs and open the MCP servers; yield the tools every turn is offered."""
    try:
        async with open_registry(settings) as registry:
            yield registry
    except PackError as exc:
        raise SlackConfigError(str(exc)) from None


def check_model(settings: Settings, registry: ToolRegistry) -> ModelResolver:
    """Resolve the deployment's model now; return the resolver the runner will use.

    A model that learns from the tools' examples reads them now, not at the first message.
    """
    models = ModelResolver(settings)
    try:
        model = models.resolve(None)
    except ModelConfigError as exc:
        raise SlackConfigError(f"AGENTLOOP_MODEL: {exc}") from None
    warm_up(model, registry)
    return models


async def check_bot_token(client: AsyncWebClient) -> BotIdentity:
    """Call `auth.test` with the bot token; a refused token is a `SlackConfigError`."""
    try:
        response = await client.auth_test()
    except SlackApiError as exc:
        raise SlackConfigError(
            f"Slack refused SLACK_BOT_TOKEN (auth.test: {exc.response.get('error')})"
        ) from None
    return BotIdentity(
        user_id=str(response["user_id"]),
        bot_id=str(response.get("bot_id") or ""),
        team_id=str(response.get("team_id") or ""),
        enterprise_id=response.get("enterprise_id") or None,
    )


async def check_app_token(client: AsyncWebClient, app_token: str) -> str:
    """Open a Socket Mode URL with the app-level token; return it (refused: config error)."""
    try:
        response = await client.apps_connections_open(app_token=app_token)
    except SlackApiError as exc:
        raise SlackConfigError(
            f"Slack refused SLACK_APP_TOKEN (apps.connections.open: {exc.response.get('error')})"
        ) from None
    return str(response["url"])
