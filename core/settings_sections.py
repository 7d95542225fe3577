"""The sections of `Settings` that read another product's own variables.

Langfuse's (`LANGFUSE_PUBLIC_KEY`, …) say where traces go; Slack's (`SLACK_BOT_TOKEN`, …)
configure the Slack app. `core.server_access` holds the server's section.
"""

from __future__ import annotations

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, SecretStr


class LangfuseSection(BaseModel):
    """Where traces go, from Langfuse's own variables (`LANGFUSE_PUBLIC_KEY`, …)."""

    model_config = ConfigDict(populate_by_name=True, frozen=True)

    public_key: str | None = None
    secret_key: SecretStr | None = None
    base_url: str = Field(
        default="https://cloud.langfuse.com", validation_alias=AliasChoices("base_url", "host")
    )
    timeout: int = Field(default=5, ge=1, description="Seconds one export may take.")
    tracing_enabled: bool = Field(
        default=True, description="False turns tracing off even with both keys."
    )

    @property
    def enabled(self) -> bool:
        """Tracing is on only with both keys (and not turned off)."""
        return bool(self.public_key and self.secret_key and self.tracing_enabled)


class SlackSection(BaseModel):
    """What a Slack deployment configures (`SLACK_*`): tokens, the Web API, roles, limits."""

    model_config = ConfigDict(frozen=True)

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
    allowed_bot_ids: frozenset[str] = Field(
        default=frozenset(),
        description="Bot ids (B…) whose messages and mentions the agent answers, a JSON list; "
        "every other bot is ignored.",
    )
    rate_limit_retries: int = Field(
        default=3,
        ge=0,
        le=10,
        description="Times a Web API call answered 429 is retried after its Retry-After.",
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
    status_in_channels: bool = Field(
        default=True,
        description="In channel threads, show progress in the assistant status (`chat:write`) "
        "instead of a placeholder message. Where Slack refuses the status, the turn falls "
        "back to the placeholder, and channel threads keep to it until the process restarts "
        "(logged once). `false`: always the placeholder.",
    )
    stream_interval_s: float = Field(
        default=0.3,
        ge=0,
        description="Least time between two appends to a streamed answer (the first words "
        "go at once; later ones are batched, for rate limits).",
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
