"""The one entry point every surface calls: run a turn, stream its events, report the outcome."""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import psycopg
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import Command, Durability, StateSnapshot

from app.db.engine import open_database
from app.models import ModelConfigError, ModelResolver
from app.observability.audit import AuditLog, PlannerRuns, RunAudit, RunInfo
from app.observability.run_trace import RunTrace
from app.observability.tracing import Tracing, trace_id_for
from app.observability.usage import UsageCollector
from app.settings import Settings
from checkpoints.retention import apply_retention
from checkpoints.savers import CheckpointerNotReadyError, open_checkpointer
from graph import events, limits, proposals
from graph.asker import stamp
from graph.builder import build_graph
from graph.context import Context
from graph.proposals import ConfirmationRequest
from graph.remote import RemoteAgent
from graph.reply_intent import clear_intent
from graph.state import AgentState
from prompts import confirmation, replies
from tools.registry import ToolRegistry, default_registry

logger = logging.getLogger(__name__)

RunStatus = Literal["completed", "needs_confirmation", "refused", "failed"]
"""`refused`: a decision that could not be applied (nothing pending, not allowed, expired)."""
EventSink = Callable[[dict[str, Any]], Awaitable[None] | None]

# Beyond the in-graph deadline, a hard stop for a run stuck outside any node's control.
_WATCHDOG_GRACE_S = 15.0
_OUTCOME_STATUS = {
    "ok": "ok",
    "refused": "refused",
    "rejected": "rejected",
    "not_confirmed": "not_confirmed",
    "capped": "error",
    "timeout": "error",
}
CallStatus = Literal["ok", "error", "refused", "rejected", "not_confirmed", "pending_confirmation"]


@dataclass(frozen=True)
class TurnRequest:
    """One message from one person in one thread, with its per-run settings."""

    thread_id: str
    user_id: str
    message: str
    user_role: str = "member"
    channel: str = "cli"
    context_type: str = "general"
    model: str | None = None
    today: str | None = None


@dataclass
class ToolCallRecord:
    """A tool call of the turn and what became of it."""

    name: str
    args: Any
    status: CallStatus
    result: Any


@dataclass
class TurnResult:
    """What a surface needs to answer the person."""

    thread_id: str
    run_id: str
    status: RunStatus
    text: str
    tool_calls: list[ToolCallRecord] = field(default_factory=list)
    interrupts: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """Return the JSON shape of `agentloop ask --json`."""
        return asdict(self)


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


class Runner:
    """Runs turns of the compiled graph for any surface (CLI, Slack, tests)."""

    def __init__(
        self,
        graph: CompiledStateGraph[Any, Any, Any, Any] | RemoteAgent,
        settings: Settings,
        registry: ToolRegistry | None = None,
        models: ModelResolver | None = None,
        *,
        audit: AuditLog | None = None,
        tracing: Tracing | None = None,
    ) -> None:
        self.graph = graph
        self.settings = settings
        self.registry = registry or default_registry()
        self.models = models or ModelResolver(settings)
        self.audit = audit
        self.tracing = tracing or Tracing(None)

    @classmethod
    @asynccontextmanager
    async def open(
        cls,
        settings: Settings,
        registry: ToolRegistry | None = None,
        models: ModelResolver | None = None,
        tracing: Tracing | None = None,
    ) -> AsyncIterator[Runner]:
        """Open the configured checkpointer and compile the graph with it.

        With `settings.graph_url` the graph is the one a LangGraph Server runs, with its
        own checkpointer. Runs are audited in the workspace database and traced to Langfuse
        when its keys are set (`tracing` overrides); pending audit rows and spans are sent on
        close, and the tracer process of tracing it set up itself ends.
        """
        db = open_database(settings)
        registry = registry or default_registry()
        models = models or ModelResolver(settings)
        audit = AuditLog(db)
        own_tracing = tracing is None
        tracing = tracing or Tracing.from_settings()
        try:
            if settings.graph_url:
                remote = RemoteAgent.at(settings.graph_url)
                yield cls(remote, settings, registry, models, audit=audit, tracing=tracing)
            else:
                async with open_checkpointer(settings) as saver:
                    graph = build_graph(registry, models, db)
                    compiled = graph.compile(checkpointer=saver, name="agent")
                    yield cls(compiled, settings, registry, models, audit=audit, tracing=tracing)
        finally:
            await audit.drain()
            await (tracing.close() if own_tracing else tracing.flush())
            await db.dispose()

    def context_for(self, request: TurnRequest, run_id: str) -> Context:
        """Return the per-run context: the request's values and the deployment's limits."""
        s = self.settings
        return Context(
            user_id=request.user_id,
            user_role=request.user_role,
            channel=request.channel,
            context_type=request.context_type,
            model=request.model,
            today=request.today,
            timezone=s.timezone,
            run_id=run_id,
            max_tool_calls=s.max_tool_calls_per_turn,
            max_rounds=s.max_rounds,
            turn_timeout_s=s.turn_timeout_s,
            tool_timeout_s=s.tool_timeout_s,
            verify_max_attempts=s.verify_max_attempts,
            input_guard=s.input_guard,
            context_dir=s.context_dir,
            context_block_tokens=s.context_block_tokens,
            history_turns=s.history_turns,
            context_window=s.context_window_for(request.model),
            compaction_model=s.compaction_model,
            verify_judge=s.verify_judge,
            confirmation_ttl_s=s.confirmation_ttl_hours * 3600,
            approver_roles=s.approver_roles,
            deadline=time.time() + s.turn_timeout_s,
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
                self.settings.max_rounds, self.settings.verify_max_attempts
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

    async def run_turn(self, request: TurnRequest, on_event: EventSink | None = None) -> TurnResult:
        """Run one turn to its end (an answer, a pending confirmation, or a failure).

        In a thread with a pending proposal the message is first read as the decision: a
        clear yes or no decides it, anything the model judges unrelated drops it and is
        answered as a new turn.
        """
        pending = await self._pending(request.thread_id)
        if pending is not None:
            value = await self._reply_decision(pending[1], request)
            return await self._resume(request, pending, value, on_event)
        message = stamp(HumanMessage(content=request.message), request.user_id, request.user_role)
        return await self._drive({"messages": [message]}, request, "async", on_event)

    async def resume(
        self, request: TurnRequest, decision: dict[str, Any], on_event: EventSink | None = None
    ) -> TurnResult:
        """Apply a decision (approve / edit / reject) to the thread's pending proposals.

        The decision is checked before anything runs; a refused one (nothing pending, a
        proposal no longer pending, another person, expired, invalid edit) writes nothing.
        """
        snapshot = await self._snapshot(request.thread_id)
        pending = _pending_in(snapshot)
        if pending is not None:
            return await self._resume(request, pending, decision, on_event)
        if snapshot.next:
            # An approved run that died before it finished (a crash, a killed worker):
            # finish it from its last checkpoint; the mutation's key stops a second write.
            lineage = Lineage("resume", snapshot.values.get("run_id") or None)
            return await self._drive(None, request, "sync", on_event, lineage)
        return TurnResult(request.thread_id, "", "refused", confirmation.nothing_pending())

    async def _resume(
        self,
        request: TurnRequest,
        pending: tuple[str, ConfirmationRequest],
        decision: dict[str, Any],
        on_event: EventSink | None,
    ) -> TurnResult:
        interrupt_id, confirmation_request = pending
        value = {**decision, "decided_at": time.time()}
        checked = proposals.check(
            confirmation_request,
            value,
            decider=request.user_id,
            decider_role=request.user_role,
            approver_roles=self.settings.approver_roles,
            tools={tool.name: tool for tool in self.registry.tools()},
            now=time.time(),
        )
        if isinstance(checked, str):
            run_id = confirmation_request.get("run_id", "")
            result = TurnResult(request.thread_id, run_id, "refused", checked)
            result.interrupts = [{"id": interrupt_id, **confirmation_request}]
            return result
        # The approval and what it sets off are checkpointed before each next step, so a
        # crash in between resumes from the decision instead of losing or repeating it.
        command: Command[Any] = Command(resume={interrupt_id: value})
        lineage = Lineage(
            "resume",
            confirmation_request.get("turn_run_id") or confirmation_request.get("run_id") or None,
            confirmation_request.get("actor") or None,
        )
        return await self._drive(command, request, "sync", on_event, lineage)

    async def _drive(
        self,
        graph_input: dict[str, Any] | Command[Any] | None,
        request: TurnRequest,
        durability: Durability,
        on_event: EventSink | None,
        lineage: Lineage | None = None,
    ) -> TurnResult:
        lineage = lineage or Lineage()
        run_id = str(uuid.uuid4())
        # A resume joins the trace of the turn it carries on; the trace id is derived from
        # that turn's run id, so any process resuming it finds the same trace.
        trace_id = trace_id_for(lineage.parent_run_id or run_id)
        actor = lineage.actor or request.user_id
        config = self.config_for(request.thread_id, run_id, actor, trace_id)
        usage = UsageCollector()
        run_trace = self.tracing.start_run(trace_id)
        config["callbacks"] = [usage, *(run_trace.callbacks if run_trace else [])]
        config["run_name"] = "agent-resume" if lineage.kind == "resume" else "agent-turn"
        audit = self._audit_start(request, run_id, trace_id, actor, lineage, graph_input)
        planner_runs = PlannerRuns(self.audit, audit) if self.audit and audit else None
        context = self.context_for(request, run_id)
        await _emit(
            on_event,
            events.run_started(run_id, request.thread_id, trace_id, lineage.parent_run_id),
        )
        try:
            async with asyncio.timeout(self.settings.turn_timeout_s + _WATCHDOG_GRACE_S):
                # subgraphs=True: the planner's events (plan, steps, its tool calls) reach
                # every surface too.
                async for _namespace, mode, chunk in self.graph.astream(
                    graph_input,
                    config,
                    context=context,
                    stream_mode=["custom", "updates"],
                    durability=durability,
                    subgraphs=True,
                ):
                    _observe(audit, run_trace, mode, chunk, nested=bool(_namespace))
                    if planner_runs is not None:
                        planner_runs.observe(tuple(_namespace), mode, chunk)
                    if mode == "custom" and isinstance(chunk, dict):
                        await _emit(on_event, chunk)
            result = await self._result(request.thread_id, run_id, config)
            retention = self.settings.checkpoint_retention
            await apply_retention(self.graph.checkpointer, request.thread_id, retention)
        except (ModelConfigError, CheckpointerNotReadyError) as exc:
            logger.error("run %s: %s", run_id, exc)
            failed = await self._failed(request.thread_id, run_id, str(exc), str(exc), on_event)
            self._audit_finish(audit, failed, usage, str(exc), planner_runs)
            return failed
        except TimeoutError:
            logger.error("run %s exceeded the turn watchdog", run_id)
            text = replies.turn_timeout(self.settings.turn_timeout_s)
            failed = await self._failed(request.thread_id, run_id, text, "timeout", on_event)
            self._audit_finish(audit, failed, usage, "timeout", planner_runs)
            return failed
        except psycopg.OperationalError as exc:
            # The checkpoint database went away for longer than the pool waits (a restart, a
            # failover): the thread keeps what was saved before, and a resume or the next
            # message carries on from there.
            logger.exception("run %s lost the checkpoint database", run_id)
            reason = f"{type(exc).__name__}: {exc}"
            text = replies.storage_unavailable(run_id)
            failed = await self._failed(request.thread_id, run_id, text, reason, on_event)
            self._audit_finish(audit, failed, usage, reason, planner_runs)
            return failed
        except Exception as exc:
            logger.exception("run %s failed", run_id)
            reason = f"{type(exc).__name__}: {exc}"
            text = replies.run_failed(run_id, reason)
            failed = await self._failed(request.thread_id, run_id, text, reason, on_event)
            self._audit_finish(audit, failed, usage, reason, planner_runs)
            return failed
        self._audit_finish(audit, result, usage, None, planner_runs)
        await _emit(on_event, events.run_completed(run_id, result.status))
        return result

    def _audit_start(
        self,
        request: TurnRequest,
        run_id: str,
        trace_id: str,
        actor: str,
        lineage: Lineage,
        graph_input: dict[str, Any] | Command[Any] | None,
    ) -> RunAudit | None:
        if self.audit is None:
            return None
        info = RunInfo(
            run_id=run_id,
            thread_id=request.thread_id,
            user_id=actor,
            trace_id=trace_id,
            kind=lineage.kind,
            parent_run_id=lineage.parent_run_id,
            decided_by=request.user_id if lineage.kind == "resume" else None,
            channel=request.channel,
            input_text=request.message,
            model=request.model or self.settings.model_spec(),
        )
        audit = self.audit.start(info)
        audit.add_input(graph_input)
        return audit

    def _audit_finish(
        self,
        audit: RunAudit | None,
        result: TurnResult,
        usage: UsageCollector,
        error: str | None,
        planner_runs: PlannerRuns | None = None,
    ) -> None:
        if planner_runs is not None:
            planner_runs.close(result.status)
        if self.audit is None or audit is None:
            return
        self.audit.finish(
            audit, status=result.status, output_text=result.text, error=error, usage=usage.calls
        )

    async def pending(self, thread_id: str) -> ConfirmationRequest | None:
        """Return the thread's pending confirmation request, if any."""
        found = await self._pending(thread_id)
        return found[1] if found else None

    async def _pending(self, thread_id: str) -> tuple[str, ConfirmationRequest] | None:
        return _pending_in(await self._snapshot(thread_id))

    async def _snapshot(self, thread_id: str) -> StateSnapshot:
        return await self.graph.aget_state({"configurable": {"thread_id": thread_id}})

    async def _reply_decision(
        self, pending: ConfirmationRequest, request: TurnRequest
    ) -> dict[str, Any]:
        intent = clear_intent(request.message) or await self._classify_reply(pending, request)
        if intent == "approve":
            return {"decision": "approve"}
        if intent == "reject":
            return {"decision": "reject", "reason": request.message}
        return {"decision": "dismiss", "message": request.message}

    async def _classify_reply(
        self, pending: ConfirmationRequest, request: TurnRequest
    ) -> Literal["approve", "reject", "unrelated"]:
        model = self.models.resolve(request.model)
        descriptions = [p["description"] for p in pending.get("proposals", [])]
        answer = await model.ainvoke(
            [
                SystemMessage(content=confirmation.CLASSIFY_SYSTEM),
                HumanMessage(content=confirmation.classify_request(descriptions, request.message)),
            ]
        )
        word = answer.text.strip().lower().split(maxsplit=1)
        verdict = word[0].strip(".,!\"'") if word else ""
        return verdict if verdict in ("approve", "reject") else "unrelated"  # type: ignore[return-value]

    async def history(self, thread_id: str) -> list[BaseMessage]:
        """Return the thread's messages as checkpointed."""
        snapshot = await self._snapshot(thread_id)
        return list(snapshot.values.get("messages", []))

    async def _result(self, thread_id: str, run_id: str, config: RunnableConfig) -> TurnResult:
        snapshot: StateSnapshot = await self.graph.aget_state(config)
        state: AgentState = snapshot.values  # type: ignore[assignment]
        interrupts = [
            {"id": item.id, **_interrupt_value(item.value)} for item in snapshot.interrupts
        ]
        text = state.get("final_text", "")
        if interrupts:
            proposed = [p for item in interrupts for p in item.get("proposals", [])]
            text = confirmation.ask(proposed)
        return TurnResult(
            thread_id=thread_id,
            run_id=state.get("run_id", run_id),
            status="needs_confirmation" if interrupts else "completed",
            text=text,
            tool_calls=_turn_tool_calls(state),
            interrupts=interrupts,
        )

    async def _failed(
        self, thread_id: str, run_id: str, text: str, error: str, on_event: EventSink | None
    ) -> TurnResult:
        await _emit(on_event, events.run_failed(run_id, error))
        return TurnResult(thread_id=thread_id, run_id=run_id, status="failed", text=text)


def _observe(
    audit: RunAudit | None,
    run_trace: RunTrace | None,
    mode: str,
    chunk: Any,
    *,
    nested: bool = False,
) -> None:
    # A nested graph's (the planner's) updates are its own state, not this run's messages.
    if nested and mode == "updates":
        return
    if audit is not None:
        try:
            audit.observe(mode, chunk)
        except Exception:
            # The audit must never break a run; the traceback says what it could not read.
            logger.exception("audit: could not read a %s chunk", mode)
    if run_trace is not None:
        run_trace.observe(mode, chunk)


async def _emit(sink: EventSink | None, event: dict[str, Any]) -> None:
    if sink is None:
        return
    outcome = sink(event)
    if inspect.isawaitable(outcome):
        await outcome


def _pending_in(snapshot: StateSnapshot) -> tuple[str, ConfirmationRequest] | None:
    """Return the (interrupt id, request) of the confirmation a thread waits on, if any."""
    for item in snapshot.interrupts:
        if isinstance(item.value, dict) and item.value.get("type") == "confirmation":
            return item.id, item.value  # type: ignore[return-value]
    return None


def _interrupt_value(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {"value": value}


def _turn_tool_calls(state: AgentState) -> list[ToolCallRecord]:
    messages = state.get("messages", [])
    start = next(
        (i for i, m in enumerate(messages) if m.id and m.id == state.get("turn_start_id")), 0
    )
    results = {m.tool_call_id: m for m in messages[start:] if isinstance(m, ToolMessage)}
    records: list[ToolCallRecord] = []
    for message in messages[start:]:
        if not isinstance(message, AIMessage):
            continue
        calls: list[tuple[str | None, str | None, Any]] = [
            (c["id"], c["name"], c["args"]) for c in message.tool_calls
        ]
        calls += [(c["id"], c["name"], c["args"]) for c in message.invalid_tool_calls]
        for call_id, name, args in calls:
            tool_message = results.get(call_id or "")
            if tool_message is None:
                records.append(ToolCallRecord(name or "?", args, "pending_confirmation", None))
                continue
            outcome = str(tool_message.additional_kwargs.get("outcome", "error"))
            records.append(
                ToolCallRecord(
                    name=name or "?",
                    args=args,
                    status=_OUTCOME_STATUS.get(outcome, "error"),  # type: ignore[arg-type]
                    result=_parse(tool_message.text),
                )
            )
    return records


def _parse(content: str) -> Any:
    try:
        return json.loads(content)
    except (json.JSONDecodeError, TypeError):
        return content
