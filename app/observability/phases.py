"""Langfuse's LangChain callback handler, shaped into one span per phase of the agent graph.

Node runs become `phase-<node>` spans with compact inputs and outputs (`phase_io`); the
edges LangGraph runs inside a node (routers, channel writes) get no span; model calls stay
generations with their token usage, and anything nested in a node (a planner subgraph)
nests under its phase span.
"""

from __future__ import annotations

from typing import Any
from uuid import UUID

from langchain_core.messages import AIMessage
from langfuse.langchain import CallbackHandler
from langfuse.types import TraceContext

from app.observability import phase_io


class PhaseCallbackHandler(CallbackHandler):
    """Traces one run of the graph into the trace given by `trace_context`."""

    # Inline on the event loop: no thread hop per callback (the handler only builds spans).
    run_inline = True

    def __init__(self, *, public_key: str, trace_context: TraceContext) -> None:
        """Trace into `trace_context`'s trace with the client of `public_key`."""
        super().__init__(public_key=public_key, trace_context=trace_context)
        self._roots: set[UUID] = set()
        self._phases: dict[UUID, str] = {}
        self._skipped: set[UUID] = set()
        self._tool_parents: dict[str, Any] = {}

    def _get_langchain_observation_metadata(
        self,
        *,
        parent_run_id: UUID | None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        keep_langfuse_trace_attributes: bool = False,
    ) -> dict[str, Any] | None:
        # LangGraph hands every run the whole config metadata (checkpoint ids, paths,
        # triggers), and every attribute a span carries is serialized, masked and scanned
        # for media: only the run's root carries the run id; a phase's name says the rest.
        if parent_run_id is not None:
            return None
        run_id = (metadata or {}).get("agentloop_run_id")
        return {"is_langchain_root": True, **({"agentloop_run_id": run_id} if run_id else {})}

    def tools_span(self, tool_call_id: str) -> Any | None:
        """Return the `phase-tools` observation that ran this tool call, if traced."""
        return self._tool_parents.get(tool_call_id)

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
    ) -> Any:
        """Open the run's span, or skip it when it is an edge inside a node."""
        node = (metadata or {}).get("langgraph_node")
        call_ids: list[str] = []
        if parent_run_id in self._phases and any(t.startswith("seq:step:") for t in tags or ()):
            # An edge of the node (router, writes): no span of its own; anything it runs
            # nests under the phase.
            self._skipped.add(run_id)
            self._track_run(run_id=run_id, parent_run_id=parent_run_id, metadata=metadata)
            if parent_run_id in self._runs:
                self._runs[run_id] = self._runs[parent_run_id]
            return None
        if parent_run_id is None:
            self._roots.add(run_id)
            inputs = phase_io.turn_input(inputs)
        elif node and kwargs.get("name") == node and parent_run_id in self._roots:
            self._phases[run_id] = node
            kwargs["name"] = f"phase-{node}"
            if node == "tools":
                call_ids = _call_ids(inputs)
            inputs = phase_io.phase_input(node, inputs)
        super().on_chain_start(
            serialized,
            inputs,
            run_id=run_id,
            parent_run_id=parent_run_id,
            tags=tags,
            metadata=metadata,
            **kwargs,
        )
        span = self._runs.get(run_id)
        for call_id in call_ids:
            self._tool_parents[call_id] = span
        return None

    def on_chain_end(
        self,
        outputs: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        **kwargs: Any,
    ) -> Any:
        """Close the run's span with a compact output."""
        if run_id in self._skipped:
            self._skipped.discard(run_id)
            self._runs.pop(run_id, None)
            return None
        kwargs.pop("inputs", None)
        if run_id in self._roots:
            self._roots.discard(run_id)
            outputs = phase_io.turn_output(outputs)
        elif self._phases.pop(run_id, None) is not None:
            outputs = phase_io.phase_output(outputs)
        return super().on_chain_end(outputs, run_id=run_id, parent_run_id=parent_run_id, **kwargs)

    def on_chain_error(
        self,
        error: BaseException,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tags: list[str] | None = None,
        **kwargs: Any,
    ) -> Any:
        """Close the run's span as failed (or paused, for an interrupt)."""
        if run_id in self._skipped:
            self._skipped.discard(run_id)
            self._runs.pop(run_id, None)
            return None
        kwargs.pop("inputs", None)
        self._roots.discard(run_id)
        self._phases.pop(run_id, None)
        return super().on_chain_error(
            error, run_id=run_id, parent_run_id=parent_run_id, tags=tags, **kwargs
        )


def _call_ids(state: Any) -> list[str]:
    messages = state.get("messages") if isinstance(state, dict) else None
    last = messages[-1] if messages else None
    if not isinstance(last, AIMessage):
        return []
    ids = [c["id"] or "" for c in last.tool_calls]
    return ids + [c.get("id") or "" for c in last.invalid_tool_calls]
