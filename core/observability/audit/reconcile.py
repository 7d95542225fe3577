"""Closing what a crash left open in a thread's audit, when the thread's next run ends.

A process killed mid-run leaves its run `running` and may have carried out an approved
change whose result it never recorded (the change is committed with its receipt; the audit
rows come later). One run at a time works on a thread, so when the thread's next run ends,
the earlier runs still marked running are closed as `interrupted` (with their planner runs)
and every change they carried out gets its result recorded from the change's receipt.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import and_, bindparam, exists, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from core.db.base import table_of
from core.db.models import AgentRun, ConfirmationRecord, MutationReceipt, SkillEvent
from core.observability.audit.rows import summary
from core.observability.audit.run import RunAudit
from core.text import clean_data

_RUNS = table_of(AgentRun)
# Built once (the sweep runs with every batch of the audit).
_RUNNING = select(_RUNS.c.id, _RUNS.c.thread_id, _RUNS.c.started_at).where(
    _RUNS.c.status == "running", _RUNS.c.thread_id.in_(bindparam("threads", expanding=True))
)
_CLOSE = (
    update(_RUNS)
    .where(_RUNS.c.id.in_(bindparam("dead", expanding=True)), _RUNS.c.status == "running")
    .values(status="interrupted", finished_at=bindparam("now"), error="the process ended mid-run")
)


async def close_dead_runs(conn: AsyncConnection, ending: list[RunAudit]) -> None:
    """Close the runs left running that began before a run of their thread now ending.

    `ending` are main and resume runs whose outcome is being written; the changes the
    closed runs made get their results.
    """
    if not ending:
        return
    since: dict[str, float] = {}
    for audit in ending:
        thread = audit.info.thread_id
        since[thread] = max(since.get(thread, 0.0), audit.started)
    ended = {audit.info.run_id for audit in ending}
    running = await conn.execute(_RUNNING, {"threads": sorted(since)})
    dead = sorted(
        (_epoch(started), thread_id, run_id)
        for run_id, thread_id, started in running
        if run_id not in ended and _epoch(started) < since[thread_id]
    )
    if not dead:
        return
    now = datetime.now(UTC)
    await conn.execute(_CLOSE, {"dead": [run_id for _, _, run_id in dead], "now": now})
    last_dead = {thread_id: run_id for _, thread_id, run_id in dead}
    for thread_id, run_id in last_dead.items():
        await _record_results_from_receipts(conn, thread_id, run_id, now)


def _epoch(moment: datetime) -> float:
    """Seconds since the epoch of a stored time (SQLite gives it back without its zone)."""
    return (moment if moment.tzinfo else moment.replace(tzinfo=UTC)).timestamp()


async def _record_results_from_receipts(
    conn: AsyncConnection, thread_id: str, run_id: str, now: datetime
) -> None:
    """Give every change the thread carried out without a recorded result its receipt's."""
    recorded = exists().where(
        and_(
            SkillEvent.thread_id == thread_id,
            SkillEvent.tool_call_id == ConfirmationRecord.tool_call_id,
            SkillEvent.event_type == "skill_result",
        )
    )
    executed = await conn.execute(
        select(ConfirmationRecord.tool_call_id, ConfirmationRecord.tool, MutationReceipt.result)
        .join(MutationReceipt, MutationReceipt.idempotency_key == ConfirmationRecord.decision_key)
        .where(ConfirmationRecord.thread_id == thread_id, ~recorded)
    )
    rows = [
        clean_data(
            {
                "run_id": run_id,
                "thread_id": thread_id,
                "tool_call_id": call_id,
                "event_type": "skill_result",
                "skill_id": tool,
                "payload": {"result": result, "from_receipt": True},
                "payload_summary": summary(result),
                "status": "ok",
                "duration_ms": None,
                "created_at": now,
            }
        )
        for call_id, tool, result in executed
    ]
    if rows:
        await conn.execute(insert(SkillEvent), rows)
