"""The process's Langfuse client for a `langfuse` settings section; no keys, no client."""

from __future__ import annotations

import os
from dataclasses import dataclass

from langfuse import Langfuse, is_default_export_span
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.trace import Tracer

from core.observability.masking import Masker
from core.settings_sections import LangfuseSection

TRACER_NAME = "agentloop"
"""The scope of the spans the agent makes itself (a tool call, timed after it ran)."""


@dataclass(frozen=True)
class Exporter:
    """Langfuse's client, and a tracer on the same provider for spans with known times.

    The SDK starts an observation at the moment it is made; a tool call is known only once
    the tools node reports it, so its span is made on `tracer` with the times the node
    measured and given its Langfuse attributes by the SDK's own observation class.
    """

    client: Langfuse
    tracer: Tracer


_exporters: dict[tuple[str, str], Exporter] = {}


def exporter_for(section: LangfuseSection, mask_fields: str = "") -> Exporter | None:
    """Return the process's exporter for these settings; None when tracing is off.

    Each client gets its own tracer provider, so the agent's spans neither reach nor
    depend on any other OpenTelemetry set-up in the process. One client per key and host
    lives for the process (Langfuse keeps one per public key); the SDK's batch processor
    exports in a background thread, and its exit hook sends what is left.
    """
    if not section.enabled or section.public_key is None or section.secret_key is None:
        return None
    key = (section.public_key, section.base_url)
    exporter = _exporters.get(key)
    if exporter is None:
        # The agent's traces carry text only, so the SDK's media scan (every input, output
        # and metadata value walked for base64 data URIs to upload) is pure cost: about a
        # tenth of tracing's per-turn time. Off unless the variable is set explicitly.
        os.environ.setdefault("LANGFUSE_MEDIA_UPLOAD_ENABLED", "false")
        provider = TracerProvider()
        client = Langfuse(
            public_key=section.public_key,
            secret_key=section.secret_key.get_secret_value(),
            base_url=section.base_url,
            timeout=section.timeout,
            mask=Masker(mask_fields.split(",")),
            tracer_provider=provider,
            should_export_span=_ours,
        )
        exporter = Exporter(client, provider.get_tracer(TRACER_NAME))
        _exporters[key] = exporter
    return exporter


def _ours(span: ReadableSpan) -> bool:
    scope = span.instrumentation_scope
    return (scope is not None and scope.name == TRACER_NAME) or is_default_export_span(span)
