"""The audit trail: every run, its messages, tool calls and results, and token usage.

A run's row is written before it starts; the rest is collected from its stream and written
in the background, so the audit never delays an answer; a failed write is logged with its
traceback, never raised.
"""

from __future__ import annotations

import asyncio
import logging
import time
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import insert, inspect, update
from sqlalchemy.exc import SQLAlchemyError

from core.db.engine import Database
from core.db.models import AgentMessage, AgentRun, SkillEvent
from core.observability.audit.reconcile import close_dead_runs
from core.observability.audit.rows import message_rows, run_row, skill_rows
from core.observability.audit.run import RunAudit, RunInfo
from core.text import clean_data

logger = logging.getLogger(__name__)


class AuditLog:
    """Writes runs to the workspace database's audit tables (off when they don't exist)."""

    def __init__(self, db: Database) -> None:
        """Audit into `db`."""
        self.db = db
        self._ready: bool | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._started: dict[str, asyncio.Task[None]] = {}

    async def start(self, info: RunInfo) -> RunAudit:
        """Begin a run's audit: its row (status running) is written before the run starts.

        Runs of the thread still marked running when it ends died before finishing: they are
        closed as interrupted then (see `close_dead_runs`).
        """
        audit = RunAudit(info)
        await self._write_start(audit)
        return audit

    def start_child(self, info: RunInfo) -> RunAudit:
        """Begin the audit of a run found in the stream (a planner run), in the background."""
        audit = RunAudit(info)
        self._started[info.run_id] = self._spawn(self._write_start(audit))
        return audit

    async def _write_start(self, audit: RunAudit) -> None:
        info = audit.info
        try:
            if not await self._is_ready():
                return
            async with self.db.engine.begin() as conn:
                await conn.execute(insert(AgentRun), [clean_data(run_row(audit, "running"))])
        except Exception:
            logger.exception("audit: could not record the start of run %s", info.run_id)

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
            outcome = clean_data(outcome)
            messages = clean_data(message_rows(audit, usage))
            skills = clean_data(skill_rows(audit))
            # Core statements, not the ORM's unit of work: a run's rows are plain inserts,
            # and the ORM's bookkeeping cost more than the writes themselves.
            async with self.db.engine.begin() as conn:
                if audit.info.kind != "planner":
                    # One run at a time works on a thread: an earlier run still marked running
                    # died with its process (its planner runs with it), and the thread has
                    # moved on.
                    await close_dead_runs(conn, audit.info.thread_id, before=audit)
                updated = await conn.execute(
                    update(AgentRun).where(AgentRun.id == audit.info.run_id).values(**outcome)
                )
                if updated.rowcount == 0:  # the start row was never written
                    row = clean_data(run_row(audit, status))
                    await conn.execute(insert(AgentRun), [{**row, **outcome}])
                if messages:
                    await conn.execute(insert(AgentMessage), messages)
                if skills:
                    await conn.execute(insert(SkillEvent), skills)
        except Exception:
            logger.exception("audit: could not record run %s", audit.info.run_id)
