"""The audit trail: every run, its messages, tool calls and results, and token usage.

One writer task writes runs in batches, a transaction every `BATCH_EVERY_S` while runs
wait: the rows of the runs that ended meanwhile (at a few turns a second a batch holds
several runs, under load dozens, so the audit costs a fraction of a transaction per run),
and the `running` row of each run still going after that long, so a crash leaves it
visible; a shorter run is written once, as it ended. A decision's run (a resume) is written
as it starts: surfaces read who decided from it. The audit never delays an answer; a failed
write is logged with its traceback, never raised, and its rows are kept and written again
(a database blip, a restart): whether the audit tables exist is checked, not remembered as
a failure. `drain` writes everything at once (the runner calls it as it closes).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import bindparam, insert, inspect, update
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.ext.asyncio import AsyncConnection

from core.db.base import table_of
from core.db.engine import Database
from core.db.models import AgentMessage, AgentRun, SkillEvent
from core.observability.audit.reconcile import close_dead_runs
from core.observability.audit.rows import message_rows, run_row, skill_rows
from core.observability.audit.run import RunAudit, RunInfo
from core.text import clean_data

logger = logging.getLogger(__name__)

BATCH_EVERY_S = 0.5
"""How long a run's rows wait to be written with other runs' (and how long a run goes on
before its `running` row is written)."""
RETRY_AFTER_S = 2.0
"""After a failed batch, when its rows are tried again."""
RECHECK_TABLES_S = 30.0
"""Without the audit tables (a workspace never migrated), when to look for them again."""
MAX_KEPT = 10_000
"""Runs kept for writing while the database cannot take them; past this the oldest go."""

# Statements on the tables, built once: the ORM entities' statements go through the ORM's
# bulk path and are rebuilt and re-keyed for the statement cache on every batch.
_RUNS = table_of(AgentRun)
_INSERT_RUN = insert(_RUNS)
_FINISH_RUN = update(_RUNS).where(_RUNS.c.id == bindparam("finished_run_id"))
_INSERT_MESSAGES = insert(table_of(AgentMessage))
_INSERT_SKILLS = insert(table_of(SkillEvent))
_UNREACHABLE = (OperationalError, InterfaceError, OSError, TimeoutError)
"""What a database that is away (restarting, its backends killed, unreachable) raises."""


@dataclass
class _Outcome:
    """How a run ended, as `AuditLog.finish` was told."""

    status: str
    output_text: str
    error: str | None
    usage: list[dict[str, Any]]
    finished: float


@dataclass
class _Entry:
    """A run the writer has not finished writing."""

    audit: RunAudit
    show_at: float
    """When its `running` row is due, if it has not ended by then."""
    row_written: bool = False
    outcome: _Outcome | None = None
    retry_at: float = 0.0
    """After a failed write, when its rows may be tried again."""


class AuditLog:
    """Writes runs to the workspace database's audit tables (off when they don't exist)."""

    def __init__(self, db: Database, batch_every_s: float = BATCH_EVERY_S) -> None:
        """Audit into `db`, a batch every `batch_every_s` while runs wait."""
        self.db = db
        self.batch_every_s = batch_every_s
        self._tables: bool | None = None
        """Whether the audit tables exist, as last found (None: not found out yet)."""
        self._tables_checked = 0.0
        self._unreachable = False
        self._entries: dict[str, _Entry] = {}
        self._writer: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()

    async def start(self, info: RunInfo) -> RunAudit:
        """Begin a run's audit; a decision's run is written before it starts.

        Runs of the thread still marked running when a later one ends died before finishing:
        they are closed as interrupted then (see `close_dead_runs`).
        """
        audit = self.start_child(info)
        if info.kind == "resume":
            self._entries[info.run_id].show_at = audit.started
            await self._flush(everything=False)
        return audit

    def start_child(self, info: RunInfo) -> RunAudit:
        """Begin the audit of a run found in the stream (a planner run)."""
        audit = RunAudit(info)
        self._entries[info.run_id] = _Entry(audit, audit.started + self.batch_every_s)
        self._ensure_writer()
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
        """Record the run's outcome; it is written, with its messages, in the next batch."""
        entry = self._entries.setdefault(audit.info.run_id, _Entry(audit, audit.started))
        entry.outcome = _Outcome(status, output_text, error, usage or [], time.time())
        self._ensure_writer()

    async def drain(self) -> None:
        """Write every run now: the ended ones whole, the ones still going as `running`."""
        writer, self._writer = self._writer, None
        if writer is not None and not writer.done():
            writer.cancel()  # between batches: a batch being written is shielded
            with contextlib.suppress(asyncio.CancelledError):
                await writer
        await self._flush(everything=True)

    def _ensure_writer(self) -> None:
        if self._writer is None or self._writer.done():
            self._writer = asyncio.get_running_loop().create_task(self._write_batches())

    async def _write_batches(self) -> None:
        while any(e.outcome is not None or not e.row_written for e in self._entries.values()):
            await asyncio.sleep(self.batch_every_s)
            await asyncio.shield(self._flush(everything=False))

    async def _flush(self, *, everything: bool) -> None:
        async with self._lock:
            now = time.time()
            due = [e for e in self._entries.values() if everything or e.retry_at <= now]
            ended = [e for e in due if e.outcome is not None]
            going = [
                e
                for e in due
                if e.outcome is None and not e.row_written and (everything or e.show_at <= now)
            ]
            if not ended and not going:
                return
            try:
                written = await self._write_now(ended, going)
            except _UNREACHABLE:
                if not self._unreachable:
                    logger.exception(
                        "audit: could not reach the database for runs %s; they are kept",
                        ", ".join(e.audit.info.run_id for e in [*ended, *going]),
                    )
                self._unreachable = True
                self._later([*ended, *going], now)
                return
            except Exception:
                # Rows the database refuses would be refused again: the ended runs go.
                logger.exception(
                    "audit: could not record runs %s",
                    ", ".join(e.audit.info.run_id for e in [*ended, *going]),
                )
                for entry in ended:
                    del self._entries[entry.audit.info.run_id]
                self._later(going, now)
                return
            if self._unreachable and written:
                logger.warning("audit: the workspace database is back; the kept runs are written")
                self._unreachable = False
            # Without the audit tables the audit is off: what ended is dropped, not kept.
            for entry in ended:
                del self._entries[entry.audit.info.run_id]
            for entry in going:
                entry.row_written = True

    async def _write_now(self, ended: list[_Entry], going: list[_Entry]) -> bool:
        """Write the rows in one transaction; False when the audit tables do not exist."""
        if not await self._has_tables():
            return False
        try:
            async with self.db.engine.begin() as conn:
                await self._write(conn, ended, going)
        except DBAPIError as exc:
            if not exc.connection_invalidated:
                raise
            # The pooled connection had died (a killed backend, a restart): once more, on
            # a new one.
            async with self.db.engine.begin() as conn:
                await self._write(conn, ended, going)
        return True

    def _later(self, entries: list[_Entry], now: float) -> None:
        """Try these runs' rows again after a while; keep at most `MAX_KEPT` runs waiting."""
        for entry in entries:
            entry.retry_at = now + RETRY_AFTER_S
        over = len(self._entries) - MAX_KEPT
        if over <= 0:
            return
        ended = [k for k, e in self._entries.items() if e.outcome is not None][:over]
        for run_id in ended:
            del self._entries[run_id]
        logger.error("audit: the database is away too long; %d runs were dropped", len(ended))

    @staticmethod
    async def _write(conn: AsyncConnection, ended: list[_Entry], going: list[_Entry]) -> None:
        # Core statements, not the ORM's unit of work: a run's rows are plain inserts, and
        # the ORM's bookkeeping cost more than the writes themselves.
        rows = [clean_data(run_row(e.audit, "running")) for e in going]
        updates: list[dict[str, Any]] = []
        messages: list[dict[str, Any]] = []
        skills: list[dict[str, Any]] = []
        for entry in ended:
            assert entry.outcome is not None
            outcome = _outcome_columns(entry.audit, entry.outcome)
            if entry.row_written:
                updates.append({"finished_run_id": entry.audit.info.run_id, **outcome})
            else:
                rows.append({**clean_data(run_row(entry.audit, outcome["status"])), **outcome})
            messages += clean_data(message_rows(entry.audit, entry.outcome.usage))
            skills += clean_data(skill_rows(entry.audit))
        # One run at a time works on a thread: an earlier run still marked running died with
        # its process (its planner runs with it), and the thread has moved on.
        await close_dead_runs(conn, [e.audit for e in ended if e.audit.info.kind != "planner"])
        if rows:
            await conn.execute(_INSERT_RUN, rows)
        if updates:
            await conn.execute(_FINISH_RUN, updates)
        if messages:
            await conn.execute(_INSERT_MESSAGES, messages)
        if skills:
            await conn.execute(_INSERT_SKILLS, skills)

    async def _has_tables(self) -> bool:
        """Whether the audit tables exist: found once, looked for again while they don't.

        Raises what reaching the database raised: an unreachable database is no answer.
        """
        now = time.time()
        if self._tables or (
            self._tables is False and now - self._tables_checked < RECHECK_TABLES_S
        ):
            return bool(self._tables)
        async with self.db.engine.connect() as conn:
            found = await conn.run_sync(lambda sync: inspect(sync).has_table("agent_runs"))
        if not found and self._tables is not False:
            logger.warning("audit off: no agent_runs table (run `agentloop db upgrade`)")
        self._tables, self._tables_checked = found, now
        return found


def _outcome_columns(audit: RunAudit, outcome: _Outcome) -> dict[str, Any]:
    """The `agent_runs` columns a run's outcome sets."""
    usage = outcome.usage
    models = [c["model"] for c in usage if c.get("model")]
    return clean_data(
        {
            "status": outcome.status,
            "output_text": outcome.output_text,
            "error": outcome.error,
            "usage": usage,
            "input_tokens": sum(int(c.get("input_tokens", 0)) for c in usage),
            "output_tokens": sum(int(c.get("output_tokens", 0)) for c in usage),
            "model": models[-1] if models else audit.info.model,
            "finished_at": datetime.fromtimestamp(outcome.finished, UTC),
            "duration_ms": round((outcome.finished - audit.started) * 1000, 2),
        }
    )
