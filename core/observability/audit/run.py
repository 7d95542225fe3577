"""What one run did, gathered from its stream: who ran it, its messages, tool timings."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import BaseMessage, RemoveMessage
from langgraph.types import Command


@dataclass(frozen=True)
class RunInfo:
    """Who ran what, where, and how the run relates to the turn it belongs to."""

    run_id: str
    thread_id: str
    user_id: str
    trace_id: str
    kind: str = "main"
    parent_run_id: str | None = None
    decided_by: str | None = None
    channel: str = ""
    input_text: str = ""
    model: str | None = None


@dataclass
class ToolTiming:
    """How a tool call ended and how long it took (from the stream's tool.result event)."""

    outcome: str = ""
    duration_ms: float | None = None


@dataclass
class RunAudit:
    """What one run did, gathered from its stream; `AuditLog.finish` writes it."""

    info: RunInfo
    started: float = field(default_factory=time.time)
    messages: dict[str, BaseMessage] = field(default_factory=dict)
    timings: dict[str, ToolTiming] = field(default_factory=dict)

    def add_input(self, graph_input: Any) -> None:
        """Record the messages the run starts with (a new turn's message)."""
        if isinstance(graph_input, Command):  # a turn opened at its first nodes
            graph_input = graph_input.update
        if isinstance(graph_input, dict):
            for message in graph_input.get("messages") or []:
                self._add(message)

    def observe(self, mode: str, chunk: Any) -> None:
        """Follow the run's stream: node updates carry messages, events tool timings."""
        if mode == "updates" and isinstance(chunk, dict):
            for update in chunk.values():
                if isinstance(update, dict):
                    for message in update.get("messages") or []:
                        self._add(message)
        elif mode == "custom" and isinstance(chunk, dict) and chunk.get("type") == "tool.result":
            self.timings[chunk["id"]] = ToolTiming(
                chunk.get("outcome", ""), chunk.get("duration_ms")
            )

    def _add(self, message: Any) -> None:
        if not isinstance(message, BaseMessage) or isinstance(message, RemoveMessage):
            return
        # A node may rewrite a message in place (same id): the audit keeps the last version.
        self.messages[message.id or f"_{len(self.messages)}"] = message
