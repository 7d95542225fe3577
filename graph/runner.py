"""The one entry point every surface calls: run a turn, apply a decision, read a thread.

The runner opens what a deployment needs (checkpointer, workspace database, audit,
tracing, the threads' lanes), hands each invocation to the driver, and speaks the surfaces'
language: a message in a thread, a decision on what the thread waits for, carrying on a
turn that was interrupted. Every call that runs the graph holds the thread's lane, so no
caller can fork a thread's checkpoints. Decisions themselves are checked in the graph (the
confirm node), the same way for every surface.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, nullcontext
from dataclasses import replace
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command, Durability, StateSnapshot

from checkpoints import tables
from checkpoints.lanes import Lanes, OnWait
from checkpoints.savers import open_checkpointer
from core.asker import stamp
from core.db.engine import Database, open_database
from core.models import ModelResolver
from core.observability.audit import AuditLog
from core.observability.tracing import Tracing
from core.settings import Settings
from core.state import OPENING_NODES, ConfirmationRequest
from core.text import clean_text
from graph import cut_off
from graph.blocking_calls import abandon_blocking_calls
from graph.builder import build_graph
from graph.driver import Driver, EventSink, Lineage
from graph.in_flight import InFlight, Invocation
from graph.remote import RemoteAgent
from graph.results import (
    InvalidRequest,
    RunStatus,
    ToolCallRecord,
    TurnRequest,
    TurnResult,
    pending_in,
)
from tools.registry import ToolRegistry, open_registry, registry_for

__all__ = ["InvalidRequest", "RunStatus", "Runner", "ToolCallRecord", "TurnRequest", "TurnResult"]


class Runner:
    """Runs turns of the compiled graph for any surface (CLI, Slack, tests)."""

    turn_durability: Durability = "sync"
    """Every step of a turn is saved before the next starts, so a crash between two steps
    resumes from the last one (docs/storage.md); decisions are always run this way."""

    def __init__(
        self,
        graph: CompiledStateGraph[Any, Any, Any, Any] | RemoteAgent,
        settings: Settings,
        registry: ToolRegistry | None = None,
        models: ModelResolver | None = None,
        *,
        db: Database | None = None,
        audit: AuditLog | None = None,
        tracing: Tracing | None = None,
        lanes: Lanes | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.graph = graph
        self.clock = clock
        """When a person decides (epoch seconds): what expiry is judged against."""
        self.settings = settings
        self.registry = registry if registry is not None else registry_for(settings)
        self.models = models or ModelResolver(settings)
        self.db = db
        self.lanes = lanes or Lanes()
        """One run at a time per thread (in this process only, unless opened on Postgres)."""
        self.in_flight = InFlight()
        self.driver = Driver(graph, settings, audit, tracing or Tracing(None))

    @classmethod
    @asynccontextmanager
    async def open(
        cls,
        settings: Settings,
        registry: ToolRegistry | None = None,
        models: ModelResolver | None = None,
        tracing: Tracing | None = None,
        warn: Callable[[str], None] | None = None,
    ) -> AsyncIterator[Runner]:
        """Open the configured checkpointer and compile the graph with it.

        With `settings.graph_url` the graph is the one a LangGraph Server runs, with its
        own checkpointer. Without `registry`, the enabled packs' tools and the MCP servers'
        are offered (their sessions close with the runner; `warn` hears of an optional server
        left out). Runs are audited in the workspace database and traced to Langfuse when its
        keys are set (`tracing` overrides); pending audit rows and spans are sent on close.
        The lanes hold across processes on the PostgreSQL checkpointer.

        Blocking model calls (the local and scripted models) run on the loop's default
        executor, which this gives threads the process never waits for: a call abandoned at
        its turn's deadline holds up neither the turn nor the process's exit.
        """
        abandon_blocking_calls()
        db = open_database(settings)
        models = models or ModelResolver(settings)
        audit = AuditLog(db)
        tracing = tracing or Tracing.from_settings(settings)
        parts: dict[str, Any] = {"db": db, "audit": audit, "tracing": tracing}
        try:
            async with (
                Lanes.open(settings) as lanes,
                open_registry(settings, *([warn] if warn else []))
                if registry is None
                else nullcontext(registry) as tools,
            ):
                parts["lanes"] = lanes
                if settings.graph_url:
                    remote = RemoteAgent.at(settings.graph_url, settings.graph_api_key)
                    yield cls(remote, settings, tools, models, **parts)
                else:
                    async with open_checkpointer(settings) as saver:
                        graph = build_graph(models, db, tools)
                        compiled = graph.compile(checkpointer=saver, name="agent")
                        yield cls(compiled, settings, tools, models, **parts)
        finally:
            await audit.drain()
            await tracing.flush()
            await db.dispose()

    def check_model(self, spec: str | None) -> None:
        """Build the run's model now, so a bad model spec fails before the thread is touched.

        Raises ModelConfigError (one line to show) when the spec names no usable model.
        """
        if not self.settings.graph_url:  # a server resolves its own models
            self.models.resolve(spec)

    async def run_turn(
        self,
        request: TurnRequest,
        on_event: EventSink | None = None,
        on_wait: OnWait | None = None,
    ) -> TurnResult:
        """Run one turn to its end (an answer, a pending confirmation, or a failure).

        In a thread waiting on a proposed change the message is the person's reply to it:
        the graph reads it as a decision (approve, reject) or, when it is about something
        else, answers it as a new turn. `on_wait` runs once if another run holds the thread.
        """
        request = replace(request, message=clean_text(request.message))
        self.check_model(request.model)
        return await self.in_flight.call(
            self.lanes, request.thread_id, on_wait, lambda c: self._turn(request, on_event, c)
        )

    async def resume(
        self,
        request: TurnRequest,
        decision: dict[str, Any],
        on_event: EventSink | None = None,
        on_wait: OnWait | None = None,
    ) -> TurnResult:
        """Apply a decision (approve / edit / reject) to what the thread waits for.

        The confirm node checks it; a refused decision runs nothing and comes back `refused`.
        With nothing waiting it is refused, but for an approval that finishes a change
        approved already whose run was cut off (a crash, a stopped process).
        """
        self.check_model(request.model)
        return await self.in_flight.call(
            self.lanes,
            request.thread_id,
            on_wait,
            lambda call: self._decide(request, decision, on_event, call),
        )

    async def carry_on(
        self,
        request: TurnRequest,
        on_event: EventSink | None = None,
        on_wait: OnWait | None = None,
    ) -> TurnResult:
        """Carry on the thread's interrupted turn from its last saved step.

        Only the turn's asker, or a role that may decide on their changes, may; a thread
        waiting for a decision, or whose last turn ended, is refused with nothing run.
        """
        self.check_model(request.model)
        return await self.in_flight.call(
            self.lanes, request.thread_id, on_wait, lambda c: self._carry_on(request, on_event, c)
        )

    async def shutdown(self, grace_s: float | None = None) -> int:
        """Take no new turns; let those in flight end in the grace period; interrupt the rest."""
        grace = self.settings.shutdown_grace_s if grace_s is None else grace_s
        return await self.in_flight.shutdown(grace)

    async def _turn(
        self, request: TurnRequest, on_event: EventSink | None, call: Invocation
    ) -> TurnResult:
        latest = await tables.latest(self.graph.checkpointer, request.thread_id, "status")
        if latest is None or latest.interrupted:
            pending = pending_in(await self._snapshot(request.thread_id))
            if pending is not None:
                reply = {"reply": request.message, "decided_at": self.clock()}
                return await self._resume(request, pending, reply, on_event, call)
        message = stamp(HumanMessage(content=request.message), request.user_id, request.user_role)
        turn: dict[str, Any] | Command[Any] = {"messages": [message]}
        if latest is not None and (not latest.exists or latest.value not in (None, "running")):
            # The thread's last turn ended (finalize set how): the message is written with
            # the opening nodes as its next step, without an input's own checkpoint and
            # START step. After a turn cut off mid-way the message enters at START instead,
            # which drops what that turn left to run (a Command would run it alongside).
            turn = Command(update=turn, goto=list(OPENING_NODES))
        return await self.driver.run(turn, request, self.turn_durability, on_event, Lineage(), call)

    async def _decide(
        self,
        request: TurnRequest,
        decision: dict[str, Any],
        on_event: EventSink | None,
        call: Invocation,
    ) -> TurnResult:
        snapshot = await self._snapshot(request.thread_id)
        pending = pending_in(snapshot)
        if pending is not None:
            return await self._resume(request, pending, decision, on_event, call)
        # An approved run cut off before it finished (a crash, a stopped worker) is finished
        # from its last checkpoint; the mutation's key stops a second write.
        refusal = await cut_off.decision_refusal(
            self.db, self.settings, snapshot, request, decision
        )
        return await self._continue(request, snapshot, refusal, True, on_event, call)

    async def _carry_on(
        self, request: TurnRequest, on_event: EventSink | None, call: Invocation
    ) -> TurnResult:
        snapshot = await self._snapshot(request.thread_id)
        refusal = await cut_off.carry_on_refusal(self.db, self.settings, snapshot, request)
        return await self._continue(request, snapshot, refusal, False, on_event, call)

    async def _continue(
        self,
        request: TurnRequest,
        snapshot: StateSnapshot,
        refusal: str | None,
        decides: bool,
        on_event: EventSink | None,
        call: Invocation,
    ) -> TurnResult:
        """Run the thread on from its last checkpoint, or record why it may not."""
        lineage = Lineage("resume", snapshot.values.get("run_id") or None, decides=decides)
        if refusal is not None:
            return await self.driver.refuse(request, lineage, refusal, call)
        return await self.driver.run(None, request, "sync", on_event, lineage, call)

    async def _resume(
        self,
        request: TurnRequest,
        pending: tuple[str, ConfirmationRequest],
        value: dict[str, Any],
        on_event: EventSink | None,
        call: Invocation,
    ) -> TurnResult:
        interrupt_id, waiting = pending
        value = {"decided_at": self.clock(), **value}
        # The decision and what it sets off are checkpointed before each next step, so a
        # crash in between resumes from the decision instead of losing or repeating it.
        lineage = Lineage(
            "resume",
            waiting.get("turn_run_id") or waiting.get("run_id") or None,
            waiting.get("actor") or None,
        )
        command: Command[Any] = Command(resume={interrupt_id: value})
        return await self.driver.run(command, request, "sync", on_event, lineage, call)

    async def was_cut_off(self, thread_id: str) -> bool:
        """Whether the thread's last turn was interrupted mid-way (nothing waits on a person)."""
        snapshot = await self._snapshot(thread_id)
        return bool(snapshot.next) and pending_in(snapshot) is None

    async def pending(self, thread_id: str) -> ConfirmationRequest | None:
        """Return the thread's pending confirmation request, if any."""
        found = pending_in(await self._snapshot(thread_id))
        return found[1] if found else None

    async def history(self, thread_id: str) -> list[BaseMessage]:
        """Return the thread's messages as checkpointed."""
        snapshot = await self._snapshot(thread_id)
        return list(snapshot.values.get("messages", []))

    async def _snapshot(self, thread_id: str) -> StateSnapshot:
        return await self.graph.aget_state({"configurable": {"thread_id": thread_id}})
