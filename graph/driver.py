"""Drives one invocation of the graph: streams it, records it, bounds it, reports its outcome.

An invocation is a new turn, or the resume of a paused one. It streams the graph's updates
and custom events (the planner's too) to the surface and to its recorder, runs under a
watchdog behind the in-graph deadline, and turns every failure into a `failed` result with
the run id, never an exception.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

import psycopg
from langchain_core.runnables import RunnableConfig
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command, Durability, StreamMode

from checkpoints.postgres_saver import PooledPostgresSaver
from checkpoints.retention import Retention
from checkpoints.savers import CheckpointerNotReadyError
from core import events, limits
from core.models import ModelConfigError
from core.observability.audit import AuditLog, RunInfo
from core.observability.recorder import RunRecorder
from core.observability.tracing import Tracing, trace_id_for
from core.observability.usage import collecting
from core.run_context import RunContext
from core.settings import DEFAULT_VERIFY_ATTEMPTS, Settings
from graph.endings import Ending, checks_failed, failure_reason
from graph.in_flight import Invocation
from graph.remote import RemoteAgent
from graph.results import TurnRequest, TurnResult, result_of
from prompts import replies

logger = logging.getLogger(__name__)

EventSink = Callable[[dict[str, Any]], Awaitable[None] | None]

# Beyond the in-graph deadline, a hard stop for a run stuck outside any node's control
# (the nodes' own calls end at the deadline: a blocking one is abandoned there).
WATCHDOG_GRACE_S = 5.0


@dataclass(frozen=True)
class Lineage:
    """How an invocation relates to the turn it belongs to.

    A turn starts as a `main` run; a decision that carries a paused turn on is a `resume`
    run whose parent is the run that proposed, in the same trace, acting for the asker.
    """

    kind: Literal["main", "resume"] = "main"
    parent_run_id: str | None = None
    actor: str | None = None
    """Who the run acts for; None: the person sending the request."""
    decides: bool = True
    """Whether a resume carries a decision (False: it carries on an interrupted turn)."""


class Driver:
    """Runs invocations of one compiled (or remote) graph with one deployment's settings."""

    def __init__(
        self,
        graph: CompiledStateGraph[Any, Any, Any, Any] | RemoteAgent,
        settings: Settings,
        audit: AuditLog | None,
        tracing: Tracing,
    ) -> None:
        self.graph = graph
        self.settings = settings
        self.audit = audit
        self.tracing = tracing
        self.retention = Retention(settings.checkpoint_retention)
        # In process, the run's final state comes with its stream (no second read after it).
        remote = isinstance(graph, RemoteAgent)
        self._modes: list[StreamMode] = (
            ["custom", "updates"]
            if remote
            else [
                "custom",
                "updates",
                "values",
            ]
        )

    def context_for(self, request: TurnRequest, run_id: str) -> RunContext:
        """Return the per-run context: the deployment's settings and the request's values."""
        return RunContext.from_settings(
            self.settings,
            user_id=request.user_id,
            user_role=request.user_role,
            channel=request.channel,
            context_type=request.context_type,
            model=request.model,
            today=request.today,
            run_id=run_id,
            deadline=time.time() + self.settings.turn_timeout_s,
        )

    def config_for(
        self, thread_id: str, run_id: str, user_id: str, trace_id: str = ""
    ) -> RunnableConfig:
        """Return the LangGraph config: thread, an explicit recursion limit, run metadata.

        The metadata names the thread and user the way Langfuse reads them (session and
        user of the trace) and carries the trace id for any other callback.
        """
        return {
            "configurable": {"thread_id": thread_id},
            "recursion_limit": limits.recursion_limit(
                # The larger default covers every model's attempts (local has fewer).
                self.settings.max_rounds,
                self.settings.verify_max_attempts or DEFAULT_VERIFY_ATTEMPTS,
            ),
            "run_id": uuid.UUID(run_id),
            "metadata": {
                "agentloop_run_id": run_id,
                "user_id": user_id,
                "thread_id": thread_id,
                "trace_id": trace_id,
                "langfuse_session_id": thread_id,
                "langfuse_user_id": user_id,
            },
        }

    async def run(
        self,
        graph_input: dict[str, Any] | Command[Any] | None,
        request: TurnRequest,
        durability: Durability,
        on_event: EventSink | None,
        lineage: Lineage,
        invocation: Invocation | None = None,
    ) -> TurnResult:
        """Run one invocation to its end and return its outcome.

        Never raises for the run, except a cancellation, which is recorded first.
        """
        invocation = invocation or Invocation()
        info = self._info(request, lineage, invocation.run_id)
        run_id, trace_id, actor = info.run_id, info.trace_id, info.user_id
        recorder = await RunRecorder.start(info, self.audit, self.tracing, graph_input)
        invocation.started = True
        config = self.config_for(request.thread_id, run_id, actor, trace_id)
        config["callbacks"] = recorder.callbacks
        config["run_name"] = "agent-resume" if lineage.kind == "resume" else "agent-turn"
        context = self.context_for(request, run_id)
        ending = Ending()
        await emit(
            on_event,
            events.run_started(run_id, request.thread_id, trace_id, lineage.parent_run_id),
        )
        try:
            try:
                async with asyncio.timeout(self.settings.turn_timeout_s + WATCHDOG_GRACE_S):
                    with (
                        self.tracing.scope(user_id=actor, session_id=request.thread_id),
                        collecting(recorder.usage),
                    ):
                        # subgraphs=True: the planner's events (plan, steps, its tool calls)
                        # reach every surface too.
                        async for namespace, mode, chunk in self.graph.astream(
                            graph_input,
                            config,
                            context=context,
                            stream_mode=self._modes,
                            durability=durability,
                            subgraphs=True,
                        ):
                            if mode == "values":
                                if not namespace and isinstance(chunk, dict):
                                    ending.values = chunk
                                continue
                            ending.observe(tuple(namespace), mode, chunk)
                            recorder.observe(tuple(namespace), mode, chunk)
                            if mode == "custom" and isinstance(chunk, dict):
                                await emit(on_event, chunk)
            finally:
                await self._write_held(request.thread_id)
            result = await self._result(ending, config, request.thread_id, run_id)
            await self.retention.after_run(
                self.graph.checkpointer, request.thread_id, ending.steps + 1
            )
        except Exception as exc:
            failed = await self._failed(request.thread_id, run_id, exc, on_event)
            recorder.finish(failed.status, failed.text, failure_reason(exc))
            return failed
        except BaseException as exc:
            # Cancelled (a stopping process, a lost lane, Ctrl-C, a person's stop): the run
            # ends here and says so, instead of staying `running` until the thread's next
            # run; the thread keeps its last saved step, which a resume carries on.
            cause = invocation.stop_cause() or type(exc).__name__
            recorder.finish("interrupted", "", f"stopped: {cause}")
            raise
        recorder.finish(result.status, result.text, checks_failed(ending.values))
        await emit(on_event, events.run_completed(run_id, result.status))
        return result

    async def refuse(
        self,
        request: TurnRequest,
        lineage: Lineage,
        refusal: str,
        invocation: Invocation | None = None,
    ) -> TurnResult:
        """Record a decision refused before anything ran, as a run that ended `refused`.

        Who tried to decide stays on record, and, like any run of the thread that ends, it
        closes the runs a killed process left `running` (the runner holds the thread's lane).
        """
        invocation = invocation or Invocation()
        info = self._info(request, lineage, invocation.run_id)
        invocation.started = True
        if self.audit is not None:
            self.audit.finish(await self.audit.start(info), status="refused", output_text=refusal)
        return TurnResult(request.thread_id, info.run_id, "refused", refusal)

    def _info(self, request: TurnRequest, lineage: Lineage, run_id: str) -> RunInfo:
        """Who runs what for a new invocation, under its run id."""
        return RunInfo(
            run_id=run_id,
            thread_id=request.thread_id,
            user_id=lineage.actor or request.user_id,
            # A resume joins the trace of the turn it carries on; the trace id is derived
            # from that turn's run id, so any process resuming it finds the same trace.
            trace_id=trace_id_for(lineage.parent_run_id or run_id),
            kind=lineage.kind,
            parent_run_id=lineage.parent_run_id,
            decided_by=request.user_id if lineage.kind == "resume" and lineage.decides else None,
            channel=request.channel,
            input_text=request.message,
            model=request.model or self.settings.model_spec(),
        )

    async def _write_held(self, thread_id: str) -> None:
        """Save the task writes a step cut off left unsaved (a timeout, a cancellation)."""
        saver = self.graph.checkpointer
        if not isinstance(saver, PooledPostgresSaver):
            return
        try:
            await saver.write_held(thread_id)
        except psycopg.Error:
            # Unsaved, those tasks run again when the thread resumes.
            logger.warning("could not save the held writes of thread %s", thread_id, exc_info=True)

    async def _result(
        self, ending: Ending, config: RunnableConfig, thread_id: str, run_id: str
    ) -> TurnResult:
        if ending.values is not None:
            return result_of(ending.values, ending.interrupts, thread_id, run_id)
        # A server's run: its final state is read back (it streams no values here).
        snapshot = await self.graph.aget_state(config)
        return result_of(snapshot.values, snapshot.interrupts, thread_id, run_id)

    async def _failed(
        self, thread_id: str, run_id: str, exc: Exception, on_event: EventSink | None
    ) -> TurnResult:
        if isinstance(exc, ModelConfigError | CheckpointerNotReadyError):
            logger.error("run %s: %s", run_id, exc)
            text = str(exc)
        elif isinstance(exc, TimeoutError):
            logger.error("run %s exceeded the turn watchdog", run_id)
            text = replies.turn_timeout(self.settings.turn_timeout_s)
        elif isinstance(exc, psycopg.OperationalError):
            # The checkpoint database went away for longer than the pool waits (a restart, a
            # failover): the thread keeps what was saved before, and a resume or the next
            # message carries on from there.
            logger.exception("run %s lost the checkpoint database", run_id)
            text = replies.storage_unavailable(run_id)
        else:
            logger.exception("run %s failed", run_id)
            text = replies.run_failed(run_id, failure_reason(exc))
        await emit(on_event, events.run_failed(run_id, failure_reason(exc)))
        return TurnResult(thread_id=thread_id, run_id=run_id, status="failed", text=text)


async def emit(sink: EventSink | None, event: dict[str, Any]) -> None:
    """Hand an event to the surface's sink (sync or async)."""
    if sink is None:
        return
    outcome = sink(event)
    if inspect.isawaitable(outcome):
        await outcome
