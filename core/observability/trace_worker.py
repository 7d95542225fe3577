"""The tracer process: replays runs' callback events into Langfuse, off the agent's path.

Building a Langfuse observation (an OpenTelemetry span with serialized, masked attributes)
costs far more CPU than the agent's own bookkeeping of a phase, so the agent process only
records what happened and when (`run_trace.RunTrace`) and sends it here, where Langfuse's
LangChain callback handler builds the spans and the SDK exports them.

Each event carries the time it happened; while an event is replayed, the span clock reads
that time, so the trace shows when things ran in the agent, not when they were replayed.
Each run is replayed in a context of its own, as each ran in its own task in the agent.

Protocol (stdin, length-prefixed pickles; `trace_process.TraceProcess` writes them):
- ("open", {LangfuseSettings fields}) first;
- ("run", key, trace_id): a run starts, traced into `trace_id`;
- ("cb", key, ns, method, args, kwargs): a LangChain callback of run `key` at `ns`;
- ("tool", key, tools_run_id, ToolCallSpan): a tool call the `phase-tools` run made;
- ("flush", n): export everything; answered on stdout with "n <cpu seconds>".
End of input: export everything and exit.
"""

from __future__ import annotations

import contextvars
import logging
import os
import pickle
import sys
import time
from collections import OrderedDict
from datetime import UTC, datetime
from typing import IO, Any
from uuid import UUID

import opentelemetry.sdk.trace as otel_sdk_trace
from langfuse.langchain import CallbackHandler
from langfuse.types import TraceContext

from core.observability.langfuse_client import LangfuseSettings, langfuse_client
from core.observability.trace_process import HEADER, ToolCallSpan

logger = logging.getLogger("agentloop.trace_worker")

MAX_RUNS = 1_000
"""Runs replayed at once; the oldest is dropped past this (its root never ended)."""


class ReplayClock:
    """The span clock: the replayed event's time while one is replayed, else the real time."""

    def __init__(self) -> None:
        self.now_ns: int | None = None

    def __call__(self) -> int:
        """Nanoseconds since the epoch, as `time.time_ns`."""
        return self.now_ns if self.now_ns is not None else time.time_ns()


class ReplayHandler(CallbackHandler):
    """Langfuse's LangChain handler for one run whose events the agent shaped and sent."""

    def __init__(self, *, public_key: str, trace_context: TraceContext, clock: ReplayClock):
        """Trace into `trace_context`'s trace with the client of `public_key`."""
        super().__init__(public_key=public_key, trace_context=trace_context)
        self._clock = clock
        self._tools_spans: dict[UUID, Any] = {}

    def _get_langchain_observation_metadata(
        self,
        *,
        parent_run_id: UUID | None,
        tags: list[str] | None = None,
        metadata: dict[str, Any] | None = None,
        keep_langfuse_trace_attributes: bool = False,
    ) -> dict[str, Any] | None:
        # LangGraph gives every run the whole config metadata (checkpoint ids, paths,
        # triggers); only the root carries the run id, a phase's name says the rest.
        if parent_run_id is not None:
            return None
        run_id = (metadata or {}).get("agentloop_run_id")
        return {"is_langchain_root": True, **({"agentloop_run_id": run_id} if run_id else {})}

    def on_chain_start(self, serialized: Any, inputs: Any, **kwargs: Any) -> Any:
        """Open the run's span; a `phase-tools` span is kept for the tool calls it made."""
        super().on_chain_start(serialized, inputs, **kwargs)
        if kwargs.get("name") == "phase-tools":
            span = self._runs.get(kwargs["run_id"])
            if span is not None:
                self._tools_spans[kwargs["run_id"]] = span

    def on_llm_new_token(self, token: Any, *, run_id: UUID, **kwargs: Any) -> Any:
        """Stamp the generation's first token at the time the agent received it."""
        generation = self._runs.get(run_id)
        if generation is not None and run_id not in self._updated_completion_start_time_memo:
            now = self._clock()
            generation.update(completion_start_time=datetime.fromtimestamp(now / 1e9, UTC))
            self._updated_completion_start_time_memo.add(run_id)

    def tool_span(self, tools_run_id: UUID, call: ToolCallSpan) -> None:
        """Add one tool call's span under the `phase-tools` span that ran it."""
        parent = self._tools_spans.get(tools_run_id)
        if parent is None:
            return
        self._clock.now_ns = call.start_ns
        span = parent.start_observation(
            name=f"tool-{call.name}",
            as_type="tool",
            input=call.args,
            output=call.output,
            metadata=call.metadata,
            level=call.level,
        )
        self._clock.now_ns = call.end_ns
        span.end()


class Replayer:
    """Replays the events of every run of one agent process."""

    def __init__(self, public_key: str) -> None:
        self._public_key = public_key
        self._clock = ReplayClock()
        # The SDK stamps spans with this module's `time_ns` (start and end alike).
        otel_sdk_trace.time_ns = self._clock
        self._runs: OrderedDict[int, tuple[ReplayHandler, contextvars.Context]] = OrderedDict()

    def handle(self, message: tuple[Any, ...]) -> None:
        """Apply one event."""
        kind, key = message[0], message[1]
        if kind == "run":
            handler = ReplayHandler(
                public_key=self._public_key,
                trace_context={"trace_id": message[2]},
                clock=self._clock,
            )
            self._runs[key] = (handler, contextvars.Context())
            while len(self._runs) > MAX_RUNS:
                self._runs.popitem(last=False)
            return
        run = self._runs.get(key)
        if run is None:
            return
        handler, context = run
        try:
            if kind == "cb":
                _, _, at_ns, method, args, kwargs = message
                self._clock.now_ns = at_ns
                context.run(getattr(handler, method), *args, **kwargs)
                if method in ("on_chain_end", "on_chain_error") and not kwargs.get("parent_run_id"):
                    del self._runs[key]
            elif kind == "tool":
                context.run(handler.tool_span, message[2], message[3])
        finally:
            self._clock.now_ns = None


def _read(stream: IO[bytes]) -> Any | None:
    """Return the next message, or None at the end of input."""
    header = stream.read(HEADER.size)
    if len(header) < HEADER.size:
        return None
    size = HEADER.unpack(header)[0]
    data = stream.read(size)
    if len(data) < size:
        return None
    return pickle.loads(data)


def main() -> None:
    """Serve one agent process until its end of input."""
    logging.basicConfig(level=logging.WARNING, format="agentloop tracing: %(message)s")
    # Background work: whenever the agent wants the CPU, it comes first.
    os.setpriority(os.PRIO_PROCESS, 0, 19)
    # Acknowledgements go out on the original stdout; anything else printed goes to stderr.
    stdin, stdout = sys.stdin.buffer, os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    opened = _read(stdin)
    if not opened or opened[0] != "open":
        return
    settings = LangfuseSettings(**opened[1])
    client = langfuse_client(settings)
    if client is None or settings.public_key is None:
        return
    replayer = Replayer(settings.public_key)
    while True:
        try:
            message = _read(stdin)
        except Exception:
            logger.warning("could not read a trace event", exc_info=True)
            continue
        if message is None:
            break
        if message[0] == "flush":
            client.flush()
            stdout.write(f"{message[1]} {time.process_time():.6f}\n")
            stdout.flush()
            continue
        try:
            replayer.handle(message)
        except Exception:
            # One bad event costs its span, never the process.
            logger.warning("could not trace a %s event", message[0], exc_info=True)
    client.flush()
    client.shutdown()


if __name__ == "__main__":
    main()
