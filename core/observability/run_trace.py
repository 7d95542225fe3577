"""One run's trace, built in the agent's process with Langfuse's SDK while the run goes.

A LangChain callback handler on the run: the run is the root observation and each node it
runs a `phase-<node>` span with compact inputs and outputs (`phase_io`); the edges
LangGraph runs inside a node (routers, channel writes) get no span and whatever they run
hangs from the node; model calls are generations with their usage and the tools they were
offered. Tool calls come from the run's stream, stamped with the times the tools node
measured. The SDK's batch processor exports in a background thread; a trace must never
take the run down, so every failure here is logged and swallowed.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import BaseMessage
from langchain_core.outputs import LLMResult
from langgraph.errors import GraphBubbleUp

from core.observability import phase_io
from core.observability.langfuse_client import Exporter
from core.observability.masking import mask_text
from core.observability.tool_spans import ToolSpans, call_ids

logger = logging.getLogger(__name__)

_MODEL_PARAMETERS = ("ls_temperature", "ls_max_tokens")


class RunTrace(BaseCallbackHandler):
    """Traces one run into `trace_id` as the run's callbacks and stream report it."""

    # Inline on the event loop: making an observation is cheaper than a hop to a thread.
    run_inline = True

    def __init__(self, exporter: Exporter, trace_id: str) -> None:
        """Trace into `trace_id` with `exporter`'s client."""
        self._exporter = exporter
        self._trace_id = trace_id
        self._spans: dict[UUID, Any] = {}
        self._roots: set[UUID] = set()
        self._nodes: dict[UUID, str] = {}
        self._edges: dict[UUID, UUID] = {}
        self.tools = ToolSpans(exporter)
        self._streaming: set[UUID] = set()

    def _parent(self, parent_run_id: UUID | None) -> Any:
        if parent_run_id is None:
            return None
        return self._spans.get(self._edges.get(parent_run_id, parent_run_id))

    def _guarded(self, what: str, step: Any, *args: Any, **kwargs: Any) -> None:
        try:
            step(*args, **kwargs)
        except Exception:
            logger.warning("could not trace %s", what, exc_info=True)

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
        """Open the run's observation, a phase's span, or a span nested in a phase."""
        self._guarded(
            "a chain", self._chain_start, inputs, run_id, parent_run_id, tags, metadata, kwargs
        )

    def _chain_start(
        self,
        inputs: Any,
        run_id: UUID,
        parent_run_id: UUID | None,
        tags: list[str] | None,
        metadata: dict[str, Any] | None,
        kwargs: dict[str, Any],
    ) -> None:
        parent_id = self._edges.get(parent_run_id, parent_run_id) if parent_run_id else None
        metadata = metadata or {}
        name = kwargs.get("name") or "chain"
        if parent_id is None:
            self._roots.add(run_id)
            run = metadata.get("agentloop_run_id")
            self._spans[run_id] = self._exporter.client.start_observation(
                trace_context={"trace_id": self._trace_id},
                name=name,
                as_type="agent",
                input=phase_io.turn_input(inputs),
                metadata={"agentloop_run_id": run} if run else None,
            )
            return
        parent = self._spans.get(parent_id)
        if parent is None:
            return
        if parent_id in self._nodes and any(t.startswith("seq:step:") for t in tags or ()):
            # An edge of the node (its function, router, writes): no span of its own.
            self._edges[run_id] = parent_id
            return
        node = metadata.get("langgraph_node")
        if node == "__start__":
            return  # LangGraph's entry: it only routes to the first phase
        calls: list[str] = []
        if node and name == node:
            self._nodes[run_id] = node
            calls = call_ids(inputs) if node == "tools" else []
            if parent_id in self._roots:
                name = f"phase-{node}"
            inputs = phase_io.phase_input(node, inputs)
        else:
            inputs = None
        span = parent.start_observation(name=name, as_type="span", input=inputs)
        self._spans[run_id] = span
        # The tool calls a tools phase runs are traced under it once their results arrive.
        self.tools.expect(calls, span)

    def on_chain_end(
        self, outputs: Any, *, run_id: UUID, parent_run_id: UUID | None = None, **kwargs: Any
    ) -> None:
        """Close a chain's observation with a compact output."""
        if self._edges.pop(run_id, None) is not None:
            return
        self._guarded("a chain's end", self._chain_end, outputs, run_id)

    def _chain_end(self, outputs: Any, run_id: UUID) -> None:
        span = self._spans.pop(run_id, None)
        node = self._nodes.pop(run_id, None)
        if span is None:
            return
        if run_id in self._roots:
            self._roots.discard(run_id)
            output = phase_io.turn_output(outputs)
        elif node is not None:
            output = phase_io.phase_output(outputs)
        else:
            output = _as_text(outputs)
        span.update(output=output).end()

    def on_chain_error(
        self,
        error: BaseException,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> None:
        """Close a chain that failed, or paused for a person's decision."""
        if self._edges.pop(run_id, None) is not None:
            return
        self._nodes.pop(run_id, None)
        self._roots.discard(run_id)
        self._guarded("a chain's error", self._failed, self._spans.pop(run_id, None), error)

    # Model calls: their generations, with usage.

    def on_chat_model_start(
        self,
        serialized: dict[str, Any],
        messages: list[list[BaseMessage]],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Open a chat model call's generation with its prompt."""
        prompt = [phase_io.message_view(m) for m in messages[0]] if messages else []
        self._guarded(
            "a model call", self._model_start, serialized, prompt, run_id, parent_run_id, metadata
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
        """Open a text model call's generation with its prompts."""
        prompt = [phase_io.cut(p) for p in prompts]
        self._guarded(
            "a model call", self._model_start, serialized, prompt, run_id, parent_run_id, metadata
        )

    def _model_start(
        self,
        serialized: dict[str, Any] | None,
        prompt: Any,
        run_id: UUID,
        parent_run_id: UUID | None,
        metadata: dict[str, Any] | None,
    ) -> None:
        parent = self._parent(parent_run_id)
        if parent is None:
            return
        metadata = metadata or {}
        # The model's name and provider as LangChain reports them; the tools it was offered.
        shown = {"provider": metadata.get("ls_provider")}
        if "offered_tools" in metadata:
            shown["offered_tools"] = metadata["offered_tools"]
        parameters = {k[3:]: metadata[k] for k in _MODEL_PARAMETERS if k in metadata}
        self._spans[run_id] = parent.start_observation(
            name=(serialized or {}).get("name") or "model",
            as_type="generation",
            input=prompt,
            model=metadata.get("ls_model_name"),
            model_parameters=parameters or None,
            metadata=shown,
        )

    def on_llm_new_token(self, token: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """Stamp a streamed answer's first token (the rest are in its end)."""
        span = self._spans.get(run_id)
        if span is not None and run_id not in self._streaming:
            self._streaming.add(run_id)
            self._guarded("a first token", span.update, completion_start_time=datetime.now(UTC))

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        """Close a model call's generation with its answer and usage."""
        self._streaming.discard(run_id)
        span = self._spans.pop(run_id, None)
        if span is not None:
            self._guarded("a model's answer", _answered, span, response)

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        """Close a model call that failed."""
        self._streaming.discard(run_id)
        self._guarded("a model's error", self._failed, self._spans.pop(run_id, None), error)

    def _failed(self, span: Any, error: BaseException) -> None:
        if span is None:
            return
        paused = isinstance(error, GraphBubbleUp)
        span.update(level="DEFAULT" if paused else "ERROR", status_message=_status(error)).end()

    def observe(self, mode: str, chunk: Any) -> None:
        """Follow the run's stream for its tool calls."""
        self.tools.observe(mode, chunk)


def _answered(span: Any, response: LLMResult) -> None:
    generation = response.generations[0][0] if response.generations[0:1] else None
    message = getattr(generation, "message", None)
    if isinstance(message, BaseMessage):
        output: Any = phase_io.message_view(message)
    else:
        output = phase_io.cut(generation.text) if generation is not None else None
    span.update(output=output, usage_details=_usage(message, response)).end()


def _usage(message: Any, response: LLMResult) -> dict[str, int] | None:
    usage = getattr(message, "usage_metadata", None)
    if usage:
        return {
            "input": usage.get("input_tokens", 0),
            "output": usage.get("output_tokens", 0),
            "total": usage.get("total_tokens", 0),
        }
    counted = (response.llm_output or {}).get("token_usage") or {}
    if not counted:
        return None
    return {
        "input": counted.get("prompt_tokens", 0),
        "output": counted.get("completion_tokens", 0),
        "total": counted.get("total_tokens", 0),
    }


def _as_text(value: Any) -> Any:
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return phase_io.cut(repr(value))


def _status(error: BaseException) -> str:
    """The error as a span's status message, which Langfuse's mask never sees.

    An interrupt is named without its value (the proposal's raw arguments); any other
    error's text is masked here.
    """
    if isinstance(error, GraphBubbleUp):
        return f"{type(error).__name__}: paused for a person's decision"
    return mask_text(str(error) or type(error).__name__)
