"""Slack deployment settings and secrets (`SLACK_*`), read from the environment and `.env`."""

from __future__ import annotations

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

Role = str


class SlackSettings(BaseSettings):
    """What a Slack deployment configures: tokens, the Web API address, roles, limits."""

    model_config = SettingsConfigDict(env_prefix="SLACK_", env_file=".env", extra="ignore")

    bot_token: SecretStr | None = Field(default=None, description="Bot token (xoxb-…).")
    signing_secret: SecretStr | None = Field(
        default=None, description="Signs every HTTP request Slack sends; required in HTTP mode."
    )
    app_token: SecretStr | None = Field(
        default=None, description="App-level token (xapp-…) with connections:write, Socket Mode."
    )
    api_url: str = Field(
        default="https://slack.com/api/", description="Base URL of the Slack Web API."
    )
    default_role: str = Field(
        default="viewer",
        description="Role of a Slack user who is not in team_members (by slack_user_id).",
    )
    user_roles: dict[str, str] = Field(
        default_factory=dict,
        description="Per-user role overrides, a JSON object of Slack user id → role.",
    )
    processed_event_ttl_s: float = Field(
        default=3600.0,
        gt=0,
        description="How long a delivered event id is remembered to drop Slack's retries.",
    )
    status_interval_s: float = Field(
        default=1.0,
        ge=0,
        description="Least time between two live-status edits of one message (rate limits).",
    )
    max_message_chars: int = Field(
        default=3900,
        ge=200,
        le=40000,
        description="Longest text posted in one message; longer answers are split.",
    )
    thread_history_messages: int = Field(
        default=30,
        ge=0,
        description="Earlier thread messages shown to the agent when it joins a thread.",
    )
