"""One Langfuse trace per run: the phase handler for LangGraph plus a span per tool call.

The trace id is derived from the run id the turn started with, so a confirmation resumed
later, in any process, lands in the same trace as the turn that proposed it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import ToolMessage
from langfuse import Langfuse
from opentelemetry import trace as otel_trace

from app.observability.langfuse_client import LangfuseSettings, langfuse_client
from app.observability.phases import PhaseCallbackHandler

logger = logging.getLogger(__name__)


def trace_id_for(root_run_id: str) -> str:
    """Return the trace id of the turn that began as `root_run_id` (32 hex, deterministic)."""
    return Langfuse.create_trace_id(seed=root_run_id)


class Tracing:
    """The process's tracing: a Langfuse client, or off (no keys) at no cost."""

    def __init__(self, client: Langfuse | None, public_key: str | None = None) -> None:
        """Trace with `client` (None: tracing off)."""
        self.client = client
        self._public_key = public_key

    @classmethod
    def from_settings(cls, settings: LangfuseSettings | None = None) -> Tracing:
        """Tracing as Langfuse's env vars configure it; off without both keys."""
        settings = settings or LangfuseSettings()
        return cls(langfuse_client(settings), settings.public_key)

    @property
    def enabled(self) -> bool:
        """Whether runs are traced."""
        return self.client is not None

    def start_run(self, trace_id: str) -> RunTrace | None:
        """Return the tracing of one run into `trace_id`, or None when tracing is off."""
        if self.client is None or self._public_key is None:
            return None
        handler = PhaseCallbackHandler(
            public_key=self._public_key, trace_context={"trace_id": trace_id}
        )
        return RunTrace(self.client, handler)

    async def flush(self) -> None:
        """Send what is buffered; exporting failures are logged by the SDK, never raised."""
        if self.client is None:
            return
        try:
            await asyncio.to_thread(self.client.flush)
        except Exception:
            logger.warning("could not flush traces", exc_info=True)


@dataclass
class _Call:
    name: str
    args: Any = None
    started_ns: int | None = None
    finished_ns: int | None = None
    outcome: str = ""
    duration_ms: float = 0.0


@dataclass
class RunTrace:
    """The tracing of one run: LangGraph callbacks plus tool spans built from the stream."""

    client: Langfuse
    handler: PhaseCallbackHandler
    _calls: dict[str, _Call] = field(default_factory=dict)

    @property
    def callbacks(self) -> list[BaseCallbackHandler]:
        """The callbacks to pass in the run's config."""
        return [self.handler]

    def observe(self, mode: str, chunk: Any) -> None:
        """Follow the run's stream: tool events give timings, the tools update the results."""
        try:
            if mode == "custom" and isinstance(chunk, dict):
                self._on_event(chunk)
            elif mode == "updates" and isinstance(chunk, dict):
                update = chunk.get("tools")
                if isinstance(update, dict):
                    for message in update.get("messages") or []:
                        if isinstance(message, ToolMessage):
                            self._tool_span(message)
        except Exception:
            # A trace is a diagnosis aid: it must never take the run down with it.
            logger.warning("could not trace a tool call", exc_info=True)

    def _on_event(self, event: dict[str, Any]) -> None:
        kind = event.get("type")
        if kind == "tool.call":
            self._calls[event["id"]] = _Call(event["name"], event.get("args"))
        elif kind == "tool.result":
            call = self._calls.setdefault(event["id"], _Call(event["name"]))
            call.outcome = event.get("outcome", "")
            call.duration_ms = float(event.get("duration_ms", 0.0))
            if event.get("started"):
                # Monotonic seconds → wall-clock nanoseconds, as spans are stamped.
                offset = time.time() - time.monotonic()
                call.started_ns = int((event["started"] + offset) * 1e9)
                call.finished_ns = int((event["finished"] + offset) * 1e9)

    def _tool_span(self, message: ToolMessage) -> None:
        parent = self.handler.tools_span(message.tool_call_id)
        if parent is None:
            return
        call = self._calls.pop(message.tool_call_id, None) or _Call(message.name or "?")
        now = time.time_ns()
        context = otel_trace.set_span_in_context(parent._otel_span)
        # The SDK's public API stamps spans "now"; the call ran earlier, at the times its
        # events recorded, so the span is opened on the tracer with its real start time.
        otel_span = self.client._otel_tracer.start_span(
            name=f"tool-{call.name}", context=context, start_time=call.started_ns or now
        )
        observation = self.client._create_observation_from_otel_span(
            otel_span=otel_span,
            as_type="tool",
            input=call.args,
            output=message.text,
            metadata={
                "tool_call_id": message.tool_call_id,
                "outcome": message.additional_kwargs.get("outcome", call.outcome),
                "duration_ms": call.duration_ms,
            },
            level="DEFAULT" if message.status == "success" else "WARNING",
        )
        observation.end(end_time=call.finished_ns or now)
