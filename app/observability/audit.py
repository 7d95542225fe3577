"""The audit trail: every run, its messages, tool calls and results, and token usage.

A run's rows are collected from its stream while it runs and written in the background, so
the audit never delays an answer; a failed write is logged with its traceback, never raised.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, RemoveMessage, ToolMessage
from sqlalchemy import insert, inspect, update
from sqlalchemy.exc import SQLAlchemyError

from app.db.engine import Database
from app.db.models import AgentMessage, AgentRun, SkillEvent

logger = logging.getLogger(__name__)

SUMMARY_CHARS = 300


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
class _ToolTiming:
    outcome: str = ""
    duration_ms: float | None = None


@dataclass
class RunAudit:
    """What one run did, gathered from its stream; `AuditLog.finish` writes it."""

    info: RunInfo
    started: float = field(default_factory=time.time)
    messages: dict[str, BaseMessage] = field(default_factory=dict)
    timings: dict[str, _ToolTiming] = field(default_factory=dict)

    def add_input(self, graph_input: Any) -> None:
        """Record the messages the run starts with (a new turn's message)."""
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
            self.timings[chunk["id"]] = _ToolTiming(
                chunk.get("outcome", ""), chunk.get("duration_ms")
            )

    def _add(self, message: Any) -> None:
        if not isinstance(message, BaseMessage) or isinstance(message, RemoveMessage):
            return
        # A node may rewrite a message in place (same id): the audit keeps the last version.
        self.messages[message.id or f"_{len(self.messages)}"] = message


class AuditLog:
    """Writes runs to the workspace database's audit tables (off when they don't exist)."""

    def __init__(self, db: Database) -> None:
        """Audit into `db`."""
        self.db = db
        self._ready: bool | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._started: dict[str, asyncio.Task[None]] = {}

    def start(self, info: RunInfo) -> RunAudit:
        """Begin a run's audit: its row (status running) is written in the background."""
        audit = RunAudit(info)
        task = self._spawn(self._write_start(audit))
        self._started[info.run_id] = task
        return audit

    def finish(
        self,
        audit: RunAudit,
        *,
        status: str,
        output_text: str = "",
        error: str | None = None,
        usage: list[dict[str, Any]] | None = None,
    ) -> None:
        """Write the run's outcome, messages, tool calls and usage in the background."""
        started = self._started.pop(audit.info.run_id, None)
        self._spawn(self._write_finish(audit, started, status, output_text, error, usage or []))

    async def drain(self) -> None:
        """Wait for every pending write (before the database closes)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    def _spawn(self, coro: Any) -> asyncio.Task[None]:
        task: asyncio.Task[None] = asyncio.create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    async def _is_ready(self) -> bool:
        if self._ready is None:
            try:
                async with self.db.engine.connect() as conn:
                    self._ready = await conn.run_sync(
                        lambda sync: inspect(sync).has_table("agent_runs")
                    )
            except (SQLAlchemyError, OSError):
                logger.warning("audit: the workspace database is unreachable", exc_info=True)
                self._ready = False
            if not self._ready:
                logger.warning("audit off: no agent_runs table (run `agentloop db upgrade`)")
        return self._ready

    async def _write_start(self, audit: RunAudit) -> None:
        try:
            if not await self._is_ready():
                return
            async with self.db.engine.begin() as conn:
                await conn.execute(insert(AgentRun), [_run_row(audit, "running")])
        except Exception:
            logger.exception("audit: could not record the start of run %s", audit.info.run_id)

    async def _write_finish(
        self,
        audit: RunAudit,
        started: asyncio.Task[None] | None,
        status: str,
        output_text: str,
        error: str | None,
        usage: list[dict[str, Any]],
    ) -> None:
        if started is not None:
            await started
        try:
            if not await self._is_ready():
                return
            models = [c["model"] for c in usage if c.get("model")]
            finished = time.time()
            outcome = {
                "status": status,
                "output_text": output_text,
                "error": error,
                "usage": usage,
                "input_tokens": sum(int(c.get("input_tokens", 0)) for c in usage),
                "output_tokens": sum(int(c.get("output_tokens", 0)) for c in usage),
                "model": models[-1] if models else audit.info.model,
                "finished_at": datetime.fromtimestamp(finished, UTC),
                "duration_ms": round((finished - audit.started) * 1000, 2),
            }
            messages = _message_rows(audit, usage)
            skills = _skill_rows(audit)
            # Core statements, not the ORM's unit of work: a run's rows are plain inserts,
            # and the ORM's bookkeeping cost more than the writes themselves.
            async with self.db.engine.begin() as conn:
                updated = await conn.execute(
                    update(AgentRun).where(AgentRun.id == audit.info.run_id).values(**outcome)
                )
                if updated.rowcount == 0:  # the start row was never written
                    await conn.execute(insert(AgentRun), [{**_run_row(audit, status), **outcome}])
                if messages:
                    await conn.execute(insert(AgentMessage), messages)
                if skills:
                    await conn.execute(insert(SkillEvent), skills)
        except Exception:
            logger.exception("audit: could not record run %s", audit.info.run_id)


def _run_row(audit: RunAudit, status: str) -> dict[str, Any]:
    info = audit.info
    return {
        "id": info.run_id,
        "kind": info.kind,
        "parent_run_id": info.parent_run_id,
        "thread_id": info.thread_id,
        "user_id": info.user_id,
        "decided_by": info.decided_by,
        "channel": info.channel,
        "trace_id": info.trace_id,
        "status": status,
        "input_text": info.input_text,
        "output_text": "",
        "model": info.model,
        "input_tokens": 0,
        "output_tokens": 0,
        "usage": [],
        "started_at": datetime.fromtimestamp(audit.started, UTC),
    }


def _message_rows(audit: RunAudit, usage: list[dict[str, Any]]) -> list[dict[str, Any]]:
    # Model calls and AI messages line up in order for the act node's calls.
    act_calls = iter([c for c in usage if c.get("node") == "act"])
    now = datetime.now(UTC)
    rows: list[dict[str, Any]] = []
    for seq, message in enumerate(audit.messages.values()):
        row: dict[str, Any] = {
            "run_id": audit.info.run_id,
            "thread_id": audit.info.thread_id,
            "seq": seq,
            "role": message.type,
            "content": message.text,
            "tool_calls": [],
            "tool_call_id": None,
            "name": None,
            "model": None,
            "input_tokens": None,
            "output_tokens": None,
            "created_at": now,
        }
        if isinstance(message, AIMessage):
            row["tool_calls"] = _jsonable(
                [{"id": c["id"], "name": c["name"], "args": c["args"]} for c in message.tool_calls]
            )
            call = next(act_calls, None) or {}
            tokens: dict[str, Any] = dict(message.usage_metadata or {})
            row["model"] = message.response_metadata.get("model_name") or call.get("model")
            row["input_tokens"] = tokens.get("input_tokens", call.get("input_tokens"))
            row["output_tokens"] = tokens.get("output_tokens", call.get("output_tokens"))
        if isinstance(message, ToolMessage):
            row["tool_call_id"] = message.tool_call_id
            row["name"] = message.name
        rows.append(row)
    return rows


def _skill_rows(audit: RunAudit) -> list[dict[str, Any]]:
    info = audit.info
    now = datetime.now(UTC)
    rows: list[dict[str, Any]] = []

    def event(
        call_id: str,
        kind: str,
        name: str,
        payload: dict[str, Any],
        summary: str,
        status: str = "",
        duration_ms: float | None = None,
    ) -> dict[str, Any]:
        return {
            "run_id": info.run_id,
            "thread_id": info.thread_id,
            "tool_call_id": call_id,
            "event_type": kind,
            "skill_id": name,
            "payload": payload,
            "payload_summary": summary,
            "status": status,
            "duration_ms": duration_ms,
            "created_at": now,
        }

    for message in audit.messages.values():
        if isinstance(message, AIMessage):
            calls: list[tuple[str, str, Any]] = [
                (c["id"] or "", c["name"], c["args"]) for c in message.tool_calls
            ]
            calls += [
                (c.get("id") or "", c.get("name") or "?", c.get("args"))
                for c in message.invalid_tool_calls
            ]
            for call_id, name, args in calls:
                payload = {"args": _jsonable(args)}
                rows.append(event(call_id, "skill_call", name, payload, _summary(payload["args"])))
        elif isinstance(message, ToolMessage):
            timing = audit.timings.get(message.tool_call_id, _ToolTiming())
            result = _parse(message.text)
            rows.append(
                event(
                    message.tool_call_id,
                    "skill_result",
                    message.name or "?",
                    {"result": result},
                    _summary(result),
                    str(message.additional_kwargs.get("outcome") or timing.outcome),
                    timing.duration_ms,
                )
            )
    return rows


def _parse(text: str) -> Any:
    try:
        return json.loads(text)
    except (json.JSONDecodeError, TypeError):
        return text


def _jsonable(value: Any) -> Any:
    return json.loads(json.dumps(value, default=str))


def _summary(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str, ensure_ascii=False)
    return text if len(text) <= SUMMARY_CHARS else text[:SUMMARY_CHARS] + "…"


class PlannerRuns:
    """The planner runs inside one invocation, audited as its child runs.

    The planner's own conversation (its steps, tool calls and results) arrives as the
    nested graph's updates; each planner run becomes an `agent_runs` row of kind `planner`
    whose parent is the invocation that ran it (the turn, or the resume that continued it).
    The planner's opening message carries its run id.
    """

    def __init__(self, log: AuditLog, parent: RunAudit) -> None:
        """Audit the planner runs of `parent` into `log`."""
        self._log = log
        self._parent = parent
        self._runs: dict[str, RunAudit] = {}

    def observe(self, namespace: tuple[str, ...], mode: str, chunk: Any) -> None:
        """Follow one nested chunk of the stream."""
        if not namespace or mode != "updates" or not isinstance(chunk, dict):
            return
        for node, node_update in chunk.items():
            if not isinstance(node_update, dict):
                continue
            run = self._run(namespace[0], node_update)
            if node == "finish":
                self._finish(namespace[0], run, node_update)
            else:
                run.observe(mode, {node: node_update})

    def close(self, status: str) -> None:
        """End the planner runs still open (paused for a confirmation, or failed)."""
        for key in list(self._runs):
            self._log.finish(self._runs.pop(key), status=status)

    def _run(self, key: str, update: dict[str, Any]) -> RunAudit:
        run = self._runs.get(key)
        if run is None:
            parent = self._parent.info
            opening = next(
                (
                    m
                    for m in update.get("messages") or []
                    if isinstance(m, BaseMessage) and m.additional_kwargs.get("planner_run_id")
                ),
                None,
            )
            run = self._log.start(
                RunInfo(
                    run_id=str(opening.additional_kwargs["planner_run_id"])
                    if opening is not None
                    else str(uuid.uuid4()),
                    thread_id=parent.thread_id,
                    user_id=parent.user_id,
                    trace_id=parent.trace_id,
                    kind="planner",
                    parent_run_id=parent.run_id,
                    channel=parent.channel,
                    input_text=opening.text if opening is not None else "",
                    model=parent.model,
                )
            )
            self._runs[key] = run
        return run

    def _finish(self, key: str, run: RunAudit, update: dict[str, Any]) -> None:
        report = next((m for m in update.get("messages") or [] if isinstance(m, ToolMessage)), None)
        result = _parse(report.text) if report is not None else {}
        result = result if isinstance(result, dict) else {}
        summary = str((result.get("report") or {}).get("summary", ""))
        self._log.finish(run, status=str(result.get("status", "completed")), output_text=summary)
        self._runs.pop(key, None)
