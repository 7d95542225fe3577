"""The Bolt app: one authorization from the start-up `auth.test`, clean payloads, the listeners."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from slack_bolt.async_app import AsyncApp, AsyncBoltContext
from slack_bolt.authorization import AuthorizeResult
from slack_bolt.request.async_request import AsyncBoltRequest

from app.slack.clean_text import clean_payload
from app.slack.listeners import register_all
from app.slack.startup import BotIdentity
from app.slack.turn_loop import TurnLoop
from app.slack.web_api import web_client
from core.settings_sections import SlackSection

if TYPE_CHECKING:
    from app.slack.conversations import Conversations

logger = logging.getLogger(__name__)


def build_app(
    turns: TurnLoop,
    conversations: Conversations,
    identity: BotIdentity,
    slack: SlackSection,
    *,
    socket_mode: bool = False,
) -> AsyncApp:
    """Return the Bolt app with every listener registered.

    Authorization is the identity `auth.test` gave at start, for every request: Bolt's
    single-workspace authorization would call `auth.test` on each request until its first
    answer arrived (a burst of events at start is a burst of calls). Events are
    acknowledged before their listener runs, and listeners only hand work to the turn loop.
    """
    token = slack.bot_token.get_secret_value() if slack.bot_token else ""

    async def authorize(enterprise_id: str | None, team_id: str | None) -> AuthorizeResult:
        return AuthorizeResult(
            enterprise_id=enterprise_id or identity.enterprise_id,
            team_id=team_id or identity.team_id,
            bot_token=token,
            bot_id=identity.bot_id,
            bot_user_id=identity.user_id,
        )

    app = AsyncApp(
        # No token on the client: requests take the bot token from `authorize`.
        client=web_client(slack, None),
        authorize=authorize,
        signing_secret=slack.signing_secret.get_secret_value() if slack.signing_secret else "",
        request_verification_enabled=not socket_mode,
        process_before_response=False,
        logger=logging.getLogger("app.slack.bolt"),
    )
    app.middleware(_clean_payload)
    register_all(app, turns, conversations)
    return app


async def _clean_payload(
    req: AsyncBoltRequest, context: AsyncBoltContext, next: Callable[[], Awaitable[Any]]
) -> Any:
    """Give listeners the payload without NUL bytes or lone surrogates (see `clean_text`)."""
    req.body = clean_payload(req.body)
    for key in ("team_id", "user_id", "channel_id", "enterprise_id"):
        value = context.get(key)
        if isinstance(value, str):
            context[key] = clean_payload(value)
    return await next()
