"""What the agent records of one run for its trace: shaped callback events and tool calls.

A LangChain callback handler on the run: node runs become `phase-<node>` events with
compact inputs and outputs (`phase_io`); the edges LangGraph runs inside a node (routers,
channel writes) are left out and whatever they run is re-parented to the phase; model
calls pass through for their generations and usage. Tool calls come from the run's stream
with the times the tools node measured. Everything is stamped with the time it happened
and sent to the tracer process (`trace_worker`), which builds the spans.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage, ToolMessage
from langgraph.errors import GraphBubbleUp

from core.observability import phase_io
from core.observability.masking import mask_text
from core.observability.trace_process import ToolCallSpan, TraceProcess

logger = logging.getLogger(__name__)

_ROOT_METADATA = ("agentloop_run_id", "langfuse_session_id", "langfuse_user_id")


@dataclass
class _Call:
    name: str
    args: Any = None
    started_ns: int | None = None
    finished_ns: int | None = None
    outcome: str = ""
    duration_ms: float = 0.0


class RunTrace(BaseCallbackHandler):
    """Records one run for the trace `trace_id` and sends it to the tracer process."""

    # Inline on the event loop: recording an event is cheaper than a hop to a thread.
    run_inline = True

    def __init__(self, process: TraceProcess, key: int, trace_id: str) -> None:
        """Record the run known to the tracer process as `key`."""
        self._process = process
        self._key = key
        self._roots: set[UUID] = set()
        self._phases: dict[UUID, str] = {}
        self._edges: dict[UUID, UUID] = {}
        self._tool_parents: dict[str, UUID] = {}
        self._streaming: set[UUID] = set()
        self._calls: dict[str, _Call] = {}
        process.send(("run", key, trace_id))

    @property
    def callbacks(self) -> list[BaseCallbackHandler]:
        """The callbacks to pass in the run's config."""
        return [self]

    def _send(self, method: str, *args: Any, **kwargs: Any) -> None:
        at = time.time_ns()
        if not self._process.send(("cb", self._key, at, method, args, kwargs)):
            # Something in the payload cannot leave the process: the span shows it as text.
            logger.debug("tracing %s as text: its payload cannot be pickled", method)
            shown = tuple(_as_text(a) for a in args)
            if not self._process.send(("cb", self._key, at, method, shown, kwargs)):
                logger.warning("could not trace a %s event", method)

    def _parent(self, parent_run_id: UUID | None) -> UUID | None:
        return self._edges.get(parent_run_id, parent_run_id) if parent_run_id else None

    # Chains: the run, its phases, whatever a phase runs.

    def on_chain_start(
        self,
        serialized: dict[str, Any] | None,
        inputs: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Record a chain's start: the run's, a phase's, or one nested in a phase."""
        parent = self._parent(parent_run_id)
        node = (metadata or {}).get("langgraph_node")
        if parent in self._phases and any(t.startswith("seq:step:") for t in tags or ()):
            # An edge of the node (router, writes): no span of its own.
            self._edges[run_id] = parent
            return
        if parent is None:
            self._roots.add(run_id)
            inputs = phase_io.turn_input(inputs)
            metadata = {k: v for k, v in (metadata or {}).items() if k in _ROOT_METADATA}
        else:
            if node and kwargs.get("name") == node and parent in self._roots:
                self._phases[run_id] = node
                kwargs["name"] = f"phase-{node}"
                if node == "tools":
                    self._tool_parents.update(dict.fromkeys(_call_ids(inputs), run_id))
                inputs = phase_io.phase_input(node, inputs)
            metadata = None
        self._send(
            "on_chain_start",
            serialized,
            inputs,
            run_id=run_id,
            parent_run_id=parent,
            tags=tags,
            metadata=metadata,
            **kwargs,
        )

    def on_chain_end(
        self, outputs: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        """Record a chain's end with a compact output."""
        if self._edges.pop(run_id, None) is not None:
            return
        kwargs.pop("inputs", None)
        if run_id in self._roots:
            outputs = phase_io.turn_output(outputs)
        elif self._phases.pop(run_id, None) is not None:
            outputs = phase_io.phase_output(outputs)
        self._send(
            "on_chain_end", outputs, run_id=run_id, parent_run_id=self._parent(parent_run_id)
        )

    def on_chain_error(
        self,
        error: BaseException,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        **kwargs: Any,
    ) -> None:
        """Record a chain that failed (or paused, for an interrupt)."""
        if self._edges.pop(run_id, None) is not None:
            return
        self._phases.pop(run_id, None)
        self._send(
            "on_chain_error",
            _portable(error),
            run_id=run_id,
            parent_run_id=self._parent(parent_run_id),
            tags=tags,
        )

    # Model calls: their generations, with usage.

    def on_chat_model_start(
        self,
        serialized: dict[str, Any],
        messages: list[list[Any]],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Record a chat model call with its prompt."""
        self._model_start(
            "on_chat_model_start", serialized, messages, run_id, parent_run_id, metadata, kwargs
        )

    def on_llm_start(
        self,
        serialized: dict[str, Any],
        prompts: list[str],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Record a text model call with its prompts."""
        self._model_start(
            "on_llm_start", serialized, prompts, run_id, parent_run_id, metadata, kwargs
        )

    def _model_start(
        self,
        method: str,
        serialized: dict[str, Any],
        prompt: Any,
        run_id: UUID,
        parent_run_id: UUID | None,
        metadata: dict[str, Any] | None,
        kwargs: dict[str, Any],
    ) -> None:
        # The model's name and provider, as LangChain reports them; the rest is the graph's.
        model_metadata = {k: v for k, v in (metadata or {}).items() if k.startswith("ls_")}
        self._send(
            method,
            serialized,
            prompt,
            run_id=run_id,
            parent_run_id=self._parent(parent_run_id),
            metadata=model_metadata,
            **kwargs,
        )

    def on_llm_new_token(self, token: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """Record when a streamed answer's first token came (the rest are in its end)."""
        if run_id not in self._streaming:
            self._streaming.add(run_id)
            self._send("on_llm_new_token", "", run_id=run_id)

    def on_llm_end(
        self, response: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        """Record a model call's answer and usage."""
        self._streaming.discard(run_id)
        self._send("on_llm_end", response, run_id=run_id, parent_run_id=self._parent(parent_run_id))

    def on_llm_error(
        self,
        error: BaseException,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        """Record a model call that failed."""
        self._streaming.discard(run_id)
        self._send(
            "on_llm_error",
            _portable(error),
            run_id=run_id,
            parent_run_id=self._parent(parent_run_id),
        )

    # Tool calls, from the run's stream.

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
                            self._tool_call(message)
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

    def _tool_call(self, message: ToolMessage) -> None:
        tools_run_id = self._tool_parents.pop(message.tool_call_id, None)
        if tools_run_id is None:
            return
        call = self._calls.pop(message.tool_call_id, None) or _Call(message.name or "?")
        now = time.time_ns()
        span = ToolCallSpan(
            name=call.name,
            args=call.args,
            output=message.text,
            metadata={
                "tool_call_id": message.tool_call_id,
                "outcome": message.additional_kwargs.get("outcome", call.outcome),
                "duration_ms": call.duration_ms,
            },
            level="DEFAULT" if message.status == "success" else "WARNING",
            start_ns=call.started_ns or now,
            end_ns=call.finished_ns or now,
        )
        self._process.send(("tool", self._key, tools_run_id, span))


def _as_text(value: Any) -> Any:
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return phase_io.cut(repr(value))


def _portable(error: BaseException) -> BaseException:
    """The error as the trace shows it, in a form any process can rebuild.

    Its text becomes the span's status message, which Langfuse's mask never sees: an
    interrupt is named without its value (the proposal's raw arguments), and any other
    error's text is masked here.
    """
    if isinstance(error, GraphBubbleUp):
        return GraphBubbleUp(f"{type(error).__name__}: paused for a person's decision")
    return RuntimeError(mask_text(str(error) or type(error).__name__))


def _call_ids(state: Any) -> list[str]:
    messages = state.get("messages") if isinstance(state, dict) else None
    last = messages[-1] if messages else None
    if not isinstance(last, AIMessage):
        return []
    ids = [c["id"] or "" for c in last.tool_calls]
    return ids + [c.get("id") or "" for c in last.invalid_tool_calls]
