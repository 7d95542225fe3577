"""Langfuse's configuration (its own env vars) and the process's client; no keys, no client."""

from __future__ import annotations

import logging
import os
from typing import Any

from langfuse import Langfuse
from opentelemetry.sdk.trace import TracerProvider
from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from app.observability.masking import Masker

logger = logging.getLogger(__name__)


class LangfuseSettings(BaseSettings):
    """Where traces go: `LANGFUSE_PUBLIC_KEY`, `LANGFUSE_SECRET_KEY`, `LANGFUSE_BASE_URL`."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore", populate_by_name=True)

    public_key: str | None = Field(default=None, validation_alias="LANGFUSE_PUBLIC_KEY")
    secret_key: SecretStr | None = Field(default=None, validation_alias="LANGFUSE_SECRET_KEY")
    base_url: str = Field(
        default="https://cloud.langfuse.com",
        validation_alias=AliasChoices("LANGFUSE_BASE_URL", "LANGFUSE_HOST"),
    )
    timeout_s: int = Field(default=5, ge=1, validation_alias="LANGFUSE_TIMEOUT")
    """Seconds one export may take; spans are sent in the background."""
    mask_fields: str = Field(default="", validation_alias="AGENTLOOP_TRACE_MASK_FIELDS")
    """Comma-separated field names whose values traces never carry (secrets always masked)."""

    tracing_enabled: bool = Field(default=True, validation_alias="LANGFUSE_TRACING_ENABLED")
    """False turns tracing off even with both keys."""

    @property
    def enabled(self) -> bool:
        """Tracing is on only with both keys (and not turned off)."""
        return bool(self.public_key and self.secret_key and self.tracing_enabled)


_clients: dict[tuple[str, str], Langfuse] = {}


def langfuse_client(settings: LangfuseSettings) -> Langfuse | None:
    """Return the process's Langfuse client for these settings; None when tracing is off.

    Each client gets its own tracer provider, so the agent's spans neither reach nor
    depend on any other OpenTelemetry set-up in the process. One client per key and host
    lives for the process (Langfuse keeps one per public key).
    """
    if not settings.enabled or settings.public_key is None or settings.secret_key is None:
        return None
    key = (settings.public_key, settings.base_url)
    client = _clients.get(key)
    if client is None:
        # The agent's traces carry text only, so the SDK's media scan (every input, output
        # and metadata value walked for base64 data URIs to upload) is pure cost: about a
        # tenth of tracing's per-turn time. Off unless the variable is set explicitly.
        os.environ.setdefault("LANGFUSE_MEDIA_UPLOAD_ENABLED", "false")
        options: dict[str, Any] = {
            "public_key": settings.public_key,
            "secret_key": settings.secret_key.get_secret_value(),
            "base_url": settings.base_url,
            "timeout": settings.timeout_s,
            "mask": Masker(settings.mask_fields.split(",")),
            "tracer_provider": TracerProvider(),
        }
        client = Langfuse(**options)
        _clients[key] = client
    return client
