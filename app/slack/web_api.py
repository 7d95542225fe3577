"""The Slack Web API client: the configured base URL, and retries on 429 after Retry-After.

Slack answers a burst of `chat.*` calls with HTTP 429 and a Retry-After header; without a
retry handler slack_sdk raises at once, and a rate-limited answer would be lost.
"""

from __future__ import annotations

from slack_sdk.http_retry.builtin_async_handlers import (
    AsyncConnectionErrorRetryHandler,
    AsyncRateLimitErrorRetryHandler,
)
from slack_sdk.web.async_client import AsyncWebClient

from core.settings_sections import SlackSection


def web_client(slack: SlackSection, token: str | None) -> AsyncWebClient:
    """Return a client for `token` that waits out rate limits (`SLACK_RATE_LIMIT_RETRIES`)."""
    return AsyncWebClient(
        token=token,
        base_url=slack.api_url,
        retry_handlers=[
            AsyncConnectionErrorRetryHandler(),
            AsyncRateLimitErrorRetryHandler(max_retry_count=slack.rate_limit_retries),
        ],
    )


def bot_client(slack: SlackSection) -> AsyncWebClient:
    """Return the bot token's client (`SLACK_BOT_TOKEN` must be set)."""
    assert slack.bot_token is not None, "checked at start"
    return web_client(slack, slack.bot_token.get_secret_value())
