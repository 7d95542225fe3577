"""Langfuse's configuration (its own env vars) and the process's client; no keys, no client."""

from __future__ import annotations

import logging
import os
from typing import Any

from langfuse import Langfuse
from opentelemetry.sdk.trace import TracerProvider
from pydantic import BaseModel, SecretStr

from core.observability.masking import Masker

logger = logging.getLogger(__name__)


class LangfuseSettings(BaseModel):
    """Where the tracer sends spans: the `langfuse` section of `Settings` and the masked fields."""

    public_key: str | None = None
    secret_key: SecretStr | None = None
    base_url: str = "https://cloud.langfuse.com"
    timeout_s: int = 5
    mask_fields: str = ""
    tracing_enabled: bool = True

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
