"""The tool calls of one run's trace: a `tool-<name>` span per call, under its tools phase.

A tool call is known whole only once the tools node has run it: the stream's `tool.call`
and `tool.result` events give its arguments and the times the node measured, the node's
update gives its result. Its span is then made on the exporter's tracer with those times,
and the SDK's `LangfuseTool` gives it its Langfuse attributes (masked like every other).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage, ToolMessage
from langfuse import LangfuseTool
from opentelemetry import trace as otel_trace

from core.messages import calls_of
from core.observability.langfuse_client import Exporter

logger = logging.getLogger(__name__)


@dataclass
class _Call:
    """A tool call as the stream reported it, until its result message arrives."""

    name: str
    args: Any = None
    started_ns: int | None = None
    finished_ns: int | None = None
    outcome: str = ""
    duration_ms: float = 0.0


def call_ids(state: Any) -> list[str]:
    """The ids of the calls a tools phase runs: those of the state's last message."""
    messages = state.get("messages") if isinstance(state, dict) else None
    last = messages[-1] if messages else None
    return [c.id for c in calls_of(last)] if isinstance(last, AIMessage) else []


class ToolSpans:
    """Traces a run's tool calls from its stream, each under the phase that ran it."""

    def __init__(self, exporter: Exporter) -> None:
        self._exporter = exporter
        self._phases: dict[str, Any] = {}
        self._calls: dict[str, _Call] = {}

    def expect(self, ids: list[str], phase: Any) -> None:
        """Trace the calls `ids` under the observation `phase` once their results arrive."""
        self._phases.update(dict.fromkeys(ids, phase))

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
                            self._traced(message)
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

    def _traced(self, message: ToolMessage) -> None:
        phase = self._phases.pop(message.tool_call_id, None)
        if phase is None:
            return
        call = self._calls.pop(message.tool_call_id, None) or _Call(message.name or "?")
        now = time.time_ns()
        under = otel_trace.set_span_in_context(otel_trace.NonRecordingSpan(_context_of(phase)))
        span = self._exporter.tracer.start_span(
            f"tool-{call.name}", context=under, start_time=call.started_ns or now
        )
        LangfuseTool(
            otel_span=span,
            langfuse_client=self._exporter.client,
            input=call.args,
            output=message.text,
            metadata={
                "tool_call_id": message.tool_call_id,
                "outcome": message.additional_kwargs.get("outcome", call.outcome),
                "duration_ms": call.duration_ms,
            },
            level="DEFAULT" if message.status == "success" else "WARNING",
        ).end(end_time=call.finished_ns or now)


def _context_of(observation: Any) -> otel_trace.SpanContext:
    """The span context of a Langfuse observation, from its public ids."""
    return otel_trace.SpanContext(
        trace_id=int(observation.trace_id, 16),
        span_id=int(observation.id, 16),
        is_remote=False,
        trace_flags=otel_trace.TraceFlags(otel_trace.TraceFlags.SAMPLED),
    )
